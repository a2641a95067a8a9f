/**
 * The engine of `npm test` (test/run.ts): runs test files, each in a child process of its own
 * (support/run-files.ts over that one file), `jobs` at a time, and reports each file when it finishes,
 * its output whole (buffered, never interleaved with another file's). Files marked to run alone run
 * first, one at a time, with nothing beside them; the others follow, the longest of the last run first.
 *
 * Nothing a test started outlives it: each file's process leads a process group of its own and tells
 * this one, over IPC, of every group it starts (support/children.ts). A file that finishes, runs past
 * `fileLimitMs`, or is still running when the run passes `runLimitMs` or is interrupted has its group and
 * all of those killed (`kill(-pgid)`).
 *
 * Kept honest by test/support/run.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { groupMembers, signalGroup, type ToRunner } from './children.js';

export interface FileRun {
  /** The file's path under the test folder. */
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
  /** `done`: it ended by itself; `timed-out`: killed past its limit; `stopped`: killed by the run's limit or an interruption. */
  outcome: 'done' | 'timed-out' | 'stopped';
  /** Process groups its tests left running, killed after it ended. */
  leftRunning: number;
  /** What it printed, stdout and stderr together, without uvu's closing counts. */
  output: string;
}

export interface PoolOptions {
  /** The folder holding the built test files. */
  dir: string;
  /** Paths under `dir`, in the order to start them (alone files are taken out and run first). */
  files: string[];
  /** Files that must run with no other file beside them. */
  alone: ReadonlySet<string>;
  jobs: number;
  fileLimitMs: number;
  runLimitMs: number;
  env: NodeJS.ProcessEnv;
  /** Called as each file finishes, in the order they finish. */
  onFile(run: FileRun): void;
}

export interface PoolResult {
  runs: FileRun[];
  /** Files never started (the run's limit was reached, or it was interrupted). */
  notRun: string[];
  /** Why the run stopped early: null when every file ran. */
  stoppedBy: string | null;
}

const RUN_FILES = path.join(path.dirname(new URL(import.meta.url).pathname), 'run-files.js');

interface Running {
  file: string;
  child: ChildProcess;
  groups: Set<number>;
  started: number;
  output: string;
  outcome: FileRun['outcome'];
  timer: NodeJS.Timeout;
}

/** Runs the files; resolves once every started file has ended. `stop(reason)` ends the run early. */
export function runPool(options: PoolOptions): { done: Promise<PoolResult>; stop(reason: string): void } {
  const alone = options.files.filter((file) => options.alone.has(file));
  const queue = [...alone, ...options.files.filter((file) => !options.alone.has(file))];
  const running = new Set<Running>();
  const runs: FileRun[] = [];
  let stoppedBy: string | null = null;
  let finish!: (result: PoolResult) => void;
  const done = new Promise<PoolResult>((resolve) => (finish = resolve));

  const killAll = (entry: Running): void => {
    for (const pgid of [entry.child.pid!, ...entry.groups]) signalGroup(pgid);
  };

  const start = (file: string): void => {
    const escaped = file.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    const child = spawn(process.execPath, [RUN_FILES, options.dir, `^${escaped}$`], {
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    const entry: Running = {
      file, child, groups: new Set(), started: Date.now(), output: '', outcome: 'done',
      timer: setTimeout(() => {
        entry.outcome = 'timed-out';
        killAll(entry);
      }, options.fileLimitMs),
    };
    running.add(entry);
    child.stdout!.on('data', (chunk: Buffer) => (entry.output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (entry.output += chunk.toString('utf8')));
    child.on('message', (message: ToRunner) => {
      if (message?.type === 'child-group' && Number.isInteger(message.pgid)) entry.groups.add(message.pgid);
    });
    child.on('close', (code, signal) => {
      clearTimeout(entry.timer);
      running.delete(entry);
      // The file's own group (its process is gone, a grandchild may not be) and every group it started.
      const left = [child.pid!, ...entry.groups].filter((pgid) => groupMembers(pgid).length > 0);
      for (const pgid of [child.pid!, ...entry.groups]) signalGroup(pgid);
      const leftRunning = left.length;
      runs.push(fileRun(entry, code, signal, leftRunning));
      options.onFile(runs.at(-1)!);
      next();
    });
  };

  const next = (): void => {
    while (stoppedBy === null && queue.length > 0) {
      const file = queue[0]!;
      const isAlone = options.alone.has(file);
      // An alone file waits for the pool to empty; nothing starts beside it.
      if (running.size > 0 && (isAlone || [...running].some((entry) => options.alone.has(entry.file)))) break;
      if (running.size >= options.jobs) break;
      queue.shift();
      start(file);
      if (isAlone) break;
    }
    if (running.size === 0) finish({ runs, notRun: stoppedBy === null ? [] : [...queue], stoppedBy });
  };

  const stop = (reason: string): void => {
    if (stoppedBy !== null) return;
    stoppedBy = reason;
    for (const entry of running) {
      entry.outcome = 'stopped';
      killAll(entry);
    }
    if (running.size === 0) next();
  };
  const limit = setTimeout(() => stop(`the run limit of ${formatMs(options.runLimitMs)} was reached`), options.runLimitMs);
  void done.then(() => clearTimeout(limit));
  // However this process ends, no file's processes outlive it.
  process.on('exit', () => {
    for (const entry of running) killAll(entry);
  });
  next();
  return { done, stop };
}

const ANSI = /\x1b\[[0-9;]*m/g;

/** The counts uvu printed for the file, or (killed before its summary) the passes and failures it marked so far. */
function fileRun(entry: Running, code: number | null, signal: NodeJS.Signals | null, leftRunning: number): FileRun {
  const plain = entry.output.replace(ANSI, '');
  const count = (label: string): number | null => {
    const match = new RegExp(`^\\s+${label}:\\s+(\\d+)`, 'm').exec(plain);
    return match ? Number(match[1]) : null;
  };
  const total = count('Total');
  const summarised = total !== null && entry.outcome === 'done';
  const passed = summarised ? count('Passed') ?? 0 : (plain.match(/• /g) ?? []).length;
  let failed = summarised ? total - passed : (plain.match(/✘ /g) ?? []).length;
  // Killed, or ended badly after its tests (an unhandled rejection, an exit code): one failure more.
  if (!summarised || (failed === 0 && (code !== 0 || signal !== null))) failed += 1;
  return {
    file: entry.file, passed, failed, skipped: count('Skipped') ?? 0, ms: Date.now() - entry.started, outcome: entry.outcome, leftRunning,
    output: entry.output.replace(/\n\s+Total:\s+\d+\n\s+Passed:\s+\d+\n\s+Skipped:\s+\d+\n\s+Duration:\s+[^\n]*\n*/m, '\n'),
  };
}

export function formatMs(ms: number): string {
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)} s`;
  const total = Math.round(ms / 1000);
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}
