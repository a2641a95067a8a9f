/** Running the built entry points as real child processes and reading their JSON log lines. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import { REPO_ROOT } from './paths.js';

export interface RunningProcess {
  child: ChildProcess;
  /** Resolves with the first JSON log line for which `match` is true; rejects if the process exits first. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  output(): string;
}

export function startProcess(script: string, env: Record<string, string>, args: string[] = []): RunningProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, script), ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const lines: Record<string, unknown>[] = [];
  const waiters: { match: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    buffered += chunk.toString();
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        const line = JSON.parse(text) as Record<string, unknown>;
        lines.push(line);
        for (const waiter of [...waiters]) if (waiter.match(line)) waiter.resolve(line);
      } catch {
        // not a log line
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return {
    child,
    output: () => output,
    waitForLog(match, timeoutMs = 20_000) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching log line within ${timeoutMs} ms:\n${output}`)), timeoutMs);
        const waiter = { match, resolve: (line: Record<string, unknown>) => { clearTimeout(timer); resolve(line); } };
        waiters.push(waiter);
        void exited.then(([code]) => {
          clearTimeout(timer);
          reject(new Error(`process exited (${code}) before the expected log line:\n${output}`));
        });
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = await exited;
      return code;
    },
  };
}

export interface CliResult {
  status: number | null;
  json: unknown;
  stdout: string;
  stderr: string;
}

const CLI = path.join(REPO_ROOT, 'dist/cli/threshold.js');
const CLI_TIMEOUT_MS = 60_000;

/**
 * Runs the `threshold` command-line tool to completion. `json` is stdout parsed on success, else the
 * first line of stderr parsed (the error); null when that is not JSON (help text, a crash). It blocks this
 * process: a command that talks to a server running in this process needs `runCliAsync`.
 */
export function runCli(args: string[], env: Record<string, string>): CliResult {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: cliEnv(env), encoding: 'utf8', timeout: CLI_TIMEOUT_MS });
  return cliResult(result.status, result.stdout, result.stderr);
}

/** `runCli` without blocking this process's event loop (the command may call an engine started by the test). */
export async function runCliAsync(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: cliEnv(env), timeout: CLI_TIMEOUT_MS });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return cliResult(code, stdout, stderr);
}

function cliEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...env };
}

function cliResult(status: number | null, stdout: string, stderr: string): CliResult {
  let json: unknown = null;
  try {
    json = JSON.parse(status === 0 ? stdout : stderr.split('\n')[0]!);
  } catch {
    json = null;
  }
  return { status, json, stdout, stderr };
}
