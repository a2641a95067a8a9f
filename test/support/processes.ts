/**
 * Running the built entry points as real child processes and reading their JSON log lines; the whole
 * service started that way, split as in production (`startSeparateProcesses`, `startServeProcesses`).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { REPO_ROOT } from './paths.js';
import { tempDir } from './stack.js';
import { endGroup, spawnChild } from './children.js';

export interface RunningProcess {
  child: ChildProcess;
  /** Resolves with the first JSON log line for which `match` is true; rejects if the process exits first. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Sends `signal` to the process alone (as an operator's `kill` would) and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Kills the process and everything it started (its process group), and resolves once all are gone. */
  kill(): Promise<void>;
  output(): string;
}

export function startProcess(script: string, env: Record<string, string>, args: string[] = []): RunningProcess {
  const child = spawnChild(process.execPath, [path.join(REPO_ROOT, script), ...args], {
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
    async kill() {
      if (child.pid !== undefined) await endGroup(child.pid);
      if (child.exitCode === null && child.signalCode === null) await exited;
    },
  };
}

/** `startProcess`, resolved with the first log line matching `match`; a process that does not get there is killed (its whole group). */
export async function startProcessUntil(
  script: string, env: Record<string, string>, args: string[], match: (line: Record<string, unknown>) => boolean, timeoutMs?: number,
): Promise<{ running: RunningProcess; line: Record<string, unknown> }> {
  const running = startProcess(script, env, args);
  try {
    return { running, line: await running.waitForLog(match, timeoutMs) };
  } catch (error) {
    await running.kill();
    throw error;
  }
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
  const child = spawnChild(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: cliEnv(env), timeout: CLI_TIMEOUT_MS });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
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

/** The service running in child processes, however it was split, as a test talks to it. */
export interface ServiceProcesses {
  baseUrl: string;
  /** The engine's gRPC address. */
  engineAddress: string;
  /** Every process of the service: `[engine, gateway]` when run apart, `[serve]` under `threshold serve`. */
  processes: RunningProcess[];
  get(urlPath: string, token?: string): Promise<Response>;
  /** A new user and an access token carrying `scopes`, made with the CLI on the service's store. */
  userWithToken(scopes: string[]): { userId: string; token: string };
  /** Kills every process (a stopped one too) and removes the data directory. */
  stop(): Promise<void>;
}

/** The issuer every token is minted for; the gateways listen on port 0 whatever it says. */
const ISSUER = 'http://localhost:8080';

/**
 * `start:engine` and `start:gateway` as two processes on one temporary store (compose's layout), the
 * engine on port 0 with one worker thread. Resolves once the gateway listens.
 */
export async function startSeparateProcesses(env: Record<string, string> = {}): Promise<ServiceProcesses> {
  const common = { DATA_DIR: tempDir(), LOG_LEVEL: 'info', ENGINE_THREADS: '1', BASE_URL: ISSUER, ...env };
  const engine = startProcess('dist/engine/main.js', { ...common, ENGINE_ADDRESS: '127.0.0.1:0' });
  const processes = [engine];
  try {
    const { address } = await engine.waitForLog((line) => line.msg === 'engine listening');
    const gateway = startProcess('dist/gateway/main.js', { ...common, PORT: '0', PAGES_PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: String(address) });
    processes.push(gateway);
    const { port } = await gateway.waitForLog((line) => line.msg === 'gateway listening');
    return serviceProcesses({ baseUrl: `http://127.0.0.1:${port}`, engineAddress: String(address) }, processes, common);
  } catch (error) {
    await stopAll(processes, common.DATA_DIR);
    throw error;
  }
}

/** `threshold serve` with `gatewayProcesses` HTTP processes and the engine in the primary. Resolves once every one listens. */
export async function startServeProcesses(gatewayProcesses: number, env: Record<string, string> = {}): Promise<ServiceProcesses> {
  const common = { DATA_DIR: tempDir(), LOG_LEVEL: 'info', ENGINE_THREADS: '1', BASE_URL: ISSUER, ...env };
  const serve = startProcess('dist/cli/threshold.js', {
    ...common, PORT: '0', PAGES_PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', GATEWAY_PROCESSES: String(gatewayProcesses),
  }, ['serve']);
  try {
    const pids = new Set<unknown>();
    let port: unknown;
    while (pids.size < gatewayProcesses) {
      const line = await serve.waitForLog((entry) => entry.msg === 'gateway listening' && !pids.has(entry.pid));
      pids.add(line.pid);
      port = line.port;
    }
    const { engine } = await serve.waitForLog((line) => line.msg === 'threshold is running');
    return serviceProcesses({ baseUrl: `http://127.0.0.1:${port}`, engineAddress: String(engine) }, [serve], common);
  } catch (error) {
    await stopAll([serve], common.DATA_DIR);
    throw error;
  }
}

function serviceProcesses(
  { baseUrl, engineAddress }: { baseUrl: string; engineAddress: string }, processes: RunningProcess[], env: Record<string, string> & { DATA_DIR: string },
): ServiceProcesses {
  return {
    baseUrl,
    engineAddress,
    processes,
    get: (urlPath, token) => fetch(`${baseUrl}${urlPath}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }),
    userWithToken(scopes) {
      const user = runCli(['user', 'create', '--email', `${Math.random().toString(36).slice(2)}@example.com`], env);
      if (user.status !== 0) throw new Error(`user create: ${user.stderr}`);
      const userId = (user.json as { id: string }).id;
      const minted = runCli(['token', 'mint', '--user', userId, '--scopes', scopes.join(' ')], env);
      if (minted.status !== 0) throw new Error(`token mint: ${minted.stderr}`);
      return { userId, token: (minted.json as { access_token: string }).access_token };
    },
    stop: () => stopAll(processes, env.DATA_DIR),
  };
}

async function stopAll(processes: RunningProcess[], dataDir: string): Promise<void> {
  for (const running of processes) await running.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
