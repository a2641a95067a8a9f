/**
 * A MongoDB server for the tests. With MONGODB_URI set, that server (nothing is started). Otherwise the
 * MongoDB-wire-compatible server shipped inside the dev dependency `@jongodb/memory-server-bin-linux-x64-gnu`
 * (a native executable, nothing downloaded), started as a child process on a free loopback port in its
 * single-node replica-set mode, so `batch` and `deleteUser` run in transactions as on a real replica set,
 * behind a proxy (jongodb-proxy.ts) that mends the one driver request jongodb refuses. Its URI asks the
 * driver for `serverMonitoringMode=poll`: jongodb ends every streamed heartbeat ("Server ended moreToCome
 * unexpectedly"), so the driver's default streaming monitor fails each one; polling `hello` works.
 *
 * It deliberately does not paper over the bundled server's gaps inside the store: where jongodb differs
 * from MongoDB (no `dropDatabase`, `drop` or `listCollections`), only the harness adapts
 * (`dropTestDatabase`), and the differences are listed in the README's test section. The child is killed
 * when the suite stops it, on process exit or SIGINT/SIGTERM, and (through `setpriv --pdeathsig`, where
 * util-linux is installed) by the kernel when the test process dies any other way, so none outlives the run.
 *
 * Kept honest by test/storage/mongo.test.ts, test/storage/mongo-double.test.ts and
 * test/gateway/mongo-end-to-end.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnChild } from './children.js';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { MongoClient, MongoServerError, type CommandStartedEvent } from 'mongodb';
import { openMongoStore } from '../../storage/mongo/mongo-store.js';
import type { Store } from '../../storage/store.js';
import { COLLECTION_NAMES } from '../../storage/schema.js';
import { startJongodbProxy, type Proxy } from './jongodb-proxy.js';
import { REPO_ROOT } from './paths.js';

const PACKAGE = '@jongodb/memory-server-bin-linux-x64-gnu';
export const JONGODB_BINARY = path.join(REPO_ROOT, 'node_modules', PACKAGE, 'bin', 'jongodb');
/** How long the bundled server may take to print its ready line (it usually needs ~0.1 s). */
const START_DEADLINE_MS = 20_000;
/** How long `stop` waits after SIGTERM before it sends SIGKILL. */
const STOP_DEADLINE_MS = 5_000;
/** MongoDB's error code for a command the server does not know. */
const COMMAND_NOT_FOUND = 59;

export interface MongoServer {
  /** A connection string for the server (the user's MONGODB_URI, or the bundled server's). */
  uri: string;
  /** 'external' for MONGODB_URI, 'jongodb' for the bundled server. */
  kind: 'external' | 'jongodb';
  /** Stops the bundled server and waits for it to exit; does nothing for MONGODB_URI. */
  stop(): Promise<void>;
}

function externalUri(): string | null {
  return process.env.MONGODB_URI?.trim() || null;
}

/** For `skipUnless`: why no MongoDB server can run here, or null (MONGODB_URI set, or the bundled one runs). */
export function mongoServerMissing(): string | null {
  if (externalUri() !== null) return null;
  const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  if (process.platform !== 'linux' || process.arch !== 'x64' || !glibc) {
    return `needs MONGODB_URI (the bundled ${PACKAGE} runs only on linux-x64 with glibc; this is ${process.platform}-${process.arch}${glibc ? '' : ' without glibc'})`;
  }
  if (!fs.existsSync(JONGODB_BINARY)) return `needs MONGODB_URI or the dev dependency ${PACKAGE} (${JONGODB_BINARY} is missing; run npm ci)`;
  return null;
}

const running = new Set<ChildProcess>();
let exitHooksInstalled = false;

/** Kills every bundled server still running when the test process ends, however it ends. */
function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  const killAll = (): void => {
    for (const child of running) child.kill('SIGKILL');
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.kill(process.pid, signal);
    });
  }
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}

/** Starts the bundled server (or hands back MONGODB_URI) and resolves once it accepts connections. */
export async function startMongoServer(): Promise<MongoServer> {
  const uri = externalUri();
  if (uri !== null) return { uri, kind: 'external', stop: async () => undefined };

  installExitHooks();
  const command = [
    JONGODB_BINARY,
    '--host=127.0.0.1',
    '--port=0', // the server binds a free port and names it in its ready line
    '--database=threshold',
    '--replica-set-name=rs0',
    '--topology-profile=single_node_replicaset',
  ];
  // setpriv (util-linux) makes the kernel kill the server when this process dies, even by SIGKILL.
  const setpriv = onPath('setpriv');
  if (setpriv !== null) command.unshift(setpriv, '--pdeathsig', 'KILL', '--');
  const child = spawnChild(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  void exited.then(() => running.delete(child));

  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const fail = (why: string): void => reject(new Error(`mongo-server: ${why}; it printed:\n${output || '(nothing)'}`));
    const timer = setTimeout(() => fail(`${JONGODB_BINARY} printed no JONGODB_URI line within ${START_DEADLINE_MS} ms`), START_DEADLINE_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const started = /^JONGODB_URI=(\S+)$/m.exec(output);
      if (started) {
        clearTimeout(timer);
        resolve(started[1]!);
      } else if (/^JONGODB_START_FAILURE=/m.test(output)) {
        clearTimeout(timer);
        fail('the bundled server failed to start');
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(`cannot run ${JONGODB_BINARY}: ${error.message}`);
    });
    void exited.then(([code, signal]) => {
      clearTimeout(timer);
      fail(`${JONGODB_BINARY} exited (${signal ?? code}) before it was ready`);
    });
  });

  let proxy: Proxy | undefined;
  const stop = async (): Promise<void> => {
    await proxy?.close();
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const hard = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
    await exited;
    clearTimeout(hard);
  };
  try {
    const port = Number(new URL(await ready).port);
    proxy = await startJongodbProxy({ host: '127.0.0.1', port });
    // A direct connection: the replica set's member list names jongodb's own port, which would bypass the proxy.
    // Polled heartbeats: jongodb ends every streamed one (test/storage/mongo-double.test.ts shows it).
    return { uri: `mongodb://127.0.0.1:${proxy.port}/?directConnection=true&serverMonitoringMode=poll`, kind: 'jongodb', stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Removes a test's database. MongoDB drops it; jongodb has no `dropDatabase` (nor `drop` or
 * `listCollections`), so there every document of each collection the store writes is deleted instead,
 * which frees the server's memory the same way for the rest of the run.
 */
export async function dropTestDatabase(uri: string, database: string): Promise<void> {
  const client = new MongoClient(uri);
  try {
    const db = client.db(database);
    try {
      await db.dropDatabase();
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === COMMAND_NOT_FOUND)) throw error;
      // The store's collections: one per port collection, and the blob headers and chunks (mongo-blobs.ts).
      for (const name of [...COLLECTION_NAMES, 'blobs', 'blob_chunks']) await db.collection(name).deleteMany({});
    }
  } finally {
    await client.close();
  }
}

/** Where jongodb 0.1.6 answers differently from MongoDB, so these contract tests run only against a real MONGODB_URI. */
export const JONGODB_DEVIATIONS: Record<string, string> = {
  'treats null in a $nin list as missing or null, so both are excluded':
    'jongodb deviates: {$nin: [null]} still matches documents without the field (MongoDB excludes them, as $in: [null] matches them)',
  'sorts null and missing as equal, breaking the tie by id':
    'jongodb deviates: it sorts a missing field before null (MongoDB sorts them as equal, so the next sort key decides)',
};

/**
 * The contract's concurrency tests count winners among racing writers. jongodb loses concurrent commits
 * (test/storage/mongo-double.test.ts), so their result on it would be evidence about it, not about the
 * store: they run on SQLite (in memory, on a file, and across worker threads) and on a real MONGODB_URI.
 */
const NO_CONCURRENCY = 'jongodb cannot test concurrency (it loses concurrent commits, README): runs on SQLite and on a real MONGODB_URI';
export const JONGODB_RACES: Record<string, string> = {
  'lets exactly one of ten concurrent consumers redeem an authorization code': NO_CONCURRENCY,
  'insertIfAbsent under ten concurrent callers inserts once and hands every caller the winner': NO_CONCURRENCY,
  'lets exactly one of ten concurrent claimers win a job': NO_CONCURRENCY,
  'two activities of one source deleted at once take the source along, never leaving it to each other': NO_CONCURRENCY,
};

/** A store on a fresh database (`threshold_test_<random>`) of `uri`, dropped when the store closes; `onCommand` hears every command. */
export async function openFreshMongoStore(uri: string, onCommand?: (event: CommandStartedEvent) => void): Promise<Store> {
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  const store = await openMongoStore({ uri, database, ...(onCommand && { onCommand }) });
  const closeStore = store.close;
  return {
    ...store,
    async close() {
      await closeStore();
      await dropTestDatabase(uri, database);
    },
  };
}
