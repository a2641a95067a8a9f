/**
 * The whole service on MongoDB, in every run: the real stack (gateway, engine, ingest jobs) over a
 * MongoDB store — the bundled jongodb server, or MONGODB_URI (test/support/mongo-server.ts) — ingests
 * `sweatpy/4078723797.fit` uploaded through the API, and its mean-max and `/data` Parquet come out
 * byte-identical to the same upload on a SQLite stack. The bytes depend only on the series and the
 * request, never on ids or clocks, so any difference is a backend storing or returning something else.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { suite, skipUnless } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { openMongoStore } from '../../storage/mongo/mongo-store.js';
import type { Store } from '../../storage/store.js';
import { dropTestDatabase, mongoServerMissing, startMongoServer, type MongoServer } from '../support/mongo-server.js';
import { FIXTURES } from '../support/paths.js';
import { startStack, type TestStack } from '../support/stack.js';
import { settled, upload, type SourceBody } from '../support/uploads.js';

const FIT = '4078723797.fit';
/** The Parquet responses compared, after the activity's id. */
const ANALYSES = ['mean-max', 'mean-max', 'mean-max?durations=all', 'data'];

const test = suite('end to end on MongoDB');
skipUnless(mongoServerMissing(), test);

let server: MongoServer;
test.before(async () => {
  server = await startMongoServer();
});
test.after(async () => {
  await server?.stop();
});

/** Uploads the fixture ride, waits until it is processed, and returns each analysis's Parquet bytes. */
async function ingestAndAnalyse(stack: TestStack): Promise<Buffer[]> {
  const { token } = await stack.userWithToken(['activities:read', 'activities:write']);
  const response = await upload(stack, token, [{ name: FIT, bytes: fs.readFileSync(path.join(FIXTURES, 'fit', 'sweatpy', FIT)) }]);
  assert.is(response.status, 202);
  const [accepted] = ((await response.json()) as { sources: SourceBody[] }).sources;
  const source = await settled(stack, token, accepted!.id);
  assert.is(source.status, 'processed', JSON.stringify(source.error));
  const id = source.activity_ids[0]!;
  // jongodb can show a committed transaction's writes one collection after another (README, MongoDB in every
  // run): the source may read `processed` a moment before its activity, written in the same batch, can be
  // read. Wait for the activity (as a real replica set never needs to) before comparing bytes.
  await readable(stack, token, `/api/v1/activities/${id}`);
  const bodies: Buffer[] = [];
  for (const analysis of ANALYSES) {
    const reply = await stack.get(`/api/v1/activities/${id}/${analysis}`, token);
    assert.is(reply.status, 200, `${analysis}: ${reply.status}`);
    assert.is(reply.headers.get('content-type'), 'application/vnd.apache.parquet');
    bodies.push(Buffer.from(await reply.arrayBuffer()));
  }
  return bodies;
}

/** Polls GET `path` until it answers 200, or fails after 10 s naming the last status. */
async function readable(stack: TestStack, token: string, path: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const status = (await stack.get(path, token)).status;
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${path} still answers ${status} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('a FIT ride ingested on MongoDB gives mean-max and data Parquet byte-identical to SQLite', async () => {
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  let store: Store | undefined;
  let mongoStack: TestStack | undefined;
  let sqliteStack: TestStack | undefined;
  try {
    store = await openMongoStore({ uri: server.uri, database });
    // Warnings and errors reach the test output: a job that fails or retries on MongoDB says why, which a
    // bare "still processing" timeout would not.
    mongoStack = await startStack({ JOB_POLL_MS: '20', LOG_LEVEL: 'warn' }, { store });
    assert.is(mongoStack.store.backend, 'mongo');
    const onMongo = await ingestAndAnalyse(mongoStack);
    sqliteStack = await startStack({ JOB_POLL_MS: '20' });
    assert.is(sqliteStack.store.backend, 'sqlite');
    const onSqlite = await ingestAndAnalyse(sqliteStack);
    for (const [index, analysis] of ANALYSES.entries()) {
      assert.ok(onMongo[index]!.length > 0, `${analysis}: a Parquet body`);
      assert.ok(onMongo[index]!.equals(onSqlite[index]!), `${analysis}: ${onMongo[index]!.length} bytes on MongoDB, ${onSqlite[index]!.length} on SQLite, not the same bytes`);
    }
  } finally {
    await mongoStack?.close();
    await sqliteStack?.close();
    await store?.close();
    if (store) await dropTestDatabase(server.uri, database);
  }
});

test.run();
