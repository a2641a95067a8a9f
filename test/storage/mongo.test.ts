/**
 * The storage contract on MongoDB, in every run: on the server MONGODB_URI names, else on the bundled
 * jongodb server (test/support/mongo-server.ts) in its single-node replica-set mode. Each test gets its
 * own database (`threshold_test_<random>`), removed when the store closes (`dropTestDatabase`). `batch`
 * needs transactions, so a MONGODB_URI must name a replica set (a single node started with
 * `--replSet rs0` and `rs.initiate()` is enough) or a sharded cluster.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { Binary, MongoClient } from 'mongodb';
import * as assert from 'uvu/assert';
import { openMongoStore } from '../../storage/mongo/mongo-store.js';
import type { Store } from '../../storage/store.js';
import { JONGODB_DEVIATIONS, JONGODB_RACES, dropTestDatabase, mongoServerMissing, openFreshMongoStore, startMongoServer, type MongoServer } from '../support/mongo-server.js';
import { storeContract } from './contract.js';
import { FIXTURES } from '../support/paths.js';
import { skipUnless, suite } from '../support/uvu.js';

let server: MongoServer | undefined;

const openFresh = () => openFreshMongoStore(server!.uri);


const external = Boolean(process.env.MONGODB_URI?.trim());

storeContract(external ? 'mongo (MONGODB_URI)' : 'mongo (bundled jongodb)', openFresh, {
  missing: mongoServerMissing(),
  deviations: external ? {} : { ...JONGODB_DEVIATIONS, ...JONGODB_RACES },
  async before() {
    server = await startMongoServer();
  },
  async after() {
    await server?.stop();
  },
});

/** A real FIT file (1 MB, multisport): an original upload as the store keeps it. */
const FIT_FILE = path.join(FIXTURES, 'fit', 'python-fitparse', 'activity-large-fenxi2-multisport.fit');

const blobs = suite(`mongo blobs: ${external ? 'MONGODB_URI' : 'bundled jongodb'}`);
let blobServer: MongoServer | undefined;
let database = '';
let store: Store;
let client: MongoClient;
skipUnless(mongoServerMissing(), blobs);
blobs.before(async () => {
  blobServer = await startMongoServer();
});
blobs.after(async () => {
  await blobServer?.stop();
});
blobs.before.each(async () => {
  database = `threshold_test_${randomBytes(6).toString('hex')}`;
  store = await openMongoStore({ uri: blobServer!.uri, database });
  client = new MongoClient(blobServer!.uri);
});
blobs.after.each(async () => {
  await store?.close();
  await client?.close();
  await dropTestDatabase(blobServer!.uri, database);
});

blobs('stores a blob Brotli-compressed: the header records the encoding and its own size, the chunks the fewer bytes', async () => {
  const fit = readFileSync(FIT_FILE);
  await store.blobs.put('source:s1', fit, { userId: 'u1' });
  assert.ok(Buffer.from((await store.blobs.get('source:s1'))!).equals(fit));
  assert.is(await store.blobs.size('source:s1'), fit.byteLength);
  const header = (await client.db(database).collection('blobs').findOne({ _id: 'source:s1' as never }))!;
  assert.is(header.encoding, 'br');
  assert.is(header.size, fit.byteLength);
  assert.ok(header.stored_size < fit.byteLength * 0.5, `stored ${header.stored_size} of ${fit.byteLength} bytes`);
  const chunks = await client.db(database).collection('blob_chunks').find({ version: header.version }).toArray();
  assert.is(chunks.reduce((sum, chunk) => sum + (chunk.bytes as Binary).length(), 0), header.stored_size);
});

blobs('reads blobs stored uncompressed by the previous version (headers without an encoding)', async () => {
  const fit = readFileSync(FIT_FILE);
  // Bytes that are themselves a valid Brotli stream: the stored encoding decides, never the bytes.
  const looksCompressed = brotliCompressSync(fit);
  const db = client.db(database);
  for (const [key, bytes] of [['source:old', fit], ['files/old.br', looksCompressed]] as const) {
    // The previous layout: a header {_id, user_id, size, version, chunks} and chunks of the raw bytes.
    const version = randomUUID();
    const pieces = 256 * 1024;
    const count = Math.ceil(bytes.byteLength / pieces);
    await db.collection('blob_chunks').insertMany(Array.from({ length: count }, (_, n) => ({
      _id: `${version}:${n}` as never, version, n, bytes: new Binary(bytes.subarray(n * pieces, (n + 1) * pieces)),
    })));
    await db.collection('blobs').insertOne({ _id: key as never, user_id: 'u1', size: bytes.byteLength, version, chunks: count });
  }
  assert.ok(Buffer.from((await store.blobs.get('source:old'))!).equals(fit));
  assert.is(await store.blobs.size('source:old'), fit.byteLength);
  assert.ok(Buffer.from((await store.blobs.get('files/old.br'))!).equals(looksCompressed));
  assert.is(await store.blobs.size('files/old.br'), looksCompressed.byteLength);
  await store.blobs.put('source:old', fit, { userId: 'u1' });
  assert.ok(Buffer.from((await store.blobs.get('source:old'))!).equals(fit), 'replacing an old blob stores it the new way');
  assert.is((await db.collection('blobs').findOne({ _id: 'source:old' as never }))!.encoding, 'br');
  assert.is(await store.blobs.delete('files/old.br'), true);
});

blobs.run();
