/**
 * Every process a test starts, ended whatever happens. Children are spawned detached, each the leader of
 * a process group of its own, so one `kill(-pgid)` ends the whole tree (`threshold serve` and its gateway
 * processes, a database server and its helpers) and a terminal's Ctrl-C aimed at the runner cannot leave
 * half of one running. The groups are ended:
 *
 * - by the test, through `endGroup` (RunningProcess.kill in processes.ts), when it is done or its start-up failed;
 * - when this test process exits, however it exits (a failed assertion, a thrown hook, uvu's end);
 * - by the runner (test/run.ts), which hears of every group over IPC, when this process is killed for
 *   running past its time limit, or the run is interrupted.
 *
 * Kept honest by test/support/children.test.ts.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Process groups this process started and has not seen end. */
const groups = new Set<number>();

/** What a test process tells the runner: a process group it must end if this process cannot. */
export type ToRunner = { type: 'child-group'; pgid: number };

/** `spawn`, detached into a process group of its own that is ended with this process at the latest. */
export function spawnChild(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  const pgid = child.pid;
  if (pgid !== undefined) {
    groups.add(pgid);
    process.send?.({ type: 'child-group', pgid } satisfies ToRunner);
    // The leader gone and nothing left in its group: forget it (its number may be reused).
    child.once('exit', () => {
      if (!groupAlive(pgid)) groups.delete(pgid);
    });
  }
  return child;
}

/** Sends `signal` to every process of the group; false when none is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0 = 'SIGKILL'): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

/** Kills every process of the group and resolves once none is left (or after `timeoutMs`; then false). */
export async function endGroup(pgid: number, timeoutMs = 10_000): Promise<boolean> {
  groups.delete(pgid);
  const deadline = Date.now() + timeoutMs;
  while (signalGroup(pgid, 'SIGKILL')) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** The pids of the group's processes that still run (zombies left out), read from /proc as `ps -g` would. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so read after its last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

process.on('exit', () => {
  for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
});
