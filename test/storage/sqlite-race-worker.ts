/**
 * Worker for test/storage/sqlite.test.ts: opens its own store on a shared file, waits at a gate so
 * every worker starts together, tries to consume every code and reports the ones it won.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';

export interface RaceWorkerData {
  file: string;
  worker: number;
  codes: string[];
  /** Int32 gate: index 0 turns 1 when the race starts. */
  gate: SharedArrayBuffer;
}

if (!isMainThread && parentPort !== null) {
  const port = parentPort;
  const { file, worker, codes, gate } = workerData as RaceWorkerData;
  try {
    const store = await openSqliteStore({ file });
    port.postMessage({ ready: worker });
    Atomics.wait(new Int32Array(gate), 0, 0);
    const won: string[] = [];
    for (const id of codes) {
      const consumed = await store.authorization_codes.updateOne({ id, consumed_at: null }, { set: { consumed_at: worker } });
      if (consumed !== null) won.push(id);
    }
    await store.close();
    port.postMessage({ won });
  } catch (error) {
    // Errors from better-sqlite3 do not survive structured cloning as Errors: send the text.
    const { code } = error as { code?: unknown };
    port.postMessage({ failed: `${String(code ?? '')} ${error instanceof Error ? error.stack : String(error)}` });
  }
}
