/**
 * `threshold store prepare` and the sharding plan it applies (storage/sharding.ts, from schema.ts). The plan is
 * checked as data: which collection is sharded on which key, that every other one says why it is not, and
 * that every unique index of a sharded collection starts with its whole shard key (MongoDB refuses to shard
 * otherwise). The command runs on SQLite (nothing to shard) and on the bundled MongoDB-wire server, which is
 * a single-node replica set: it must create the indexes, drop a replaced one, and report sharding skipped.
 * A real sharded cluster is not available here (README, Scaling out).
 */
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { COLLECTION_NAMES, SCHEMA, indexName } from '../../storage/schema.js';
import { shardingPlan } from '../../storage/sharding.js';
import { runCliAsync } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { dropTestDatabase, mongoServerMissing, startMongoServer } from '../support/mongo-server.js';

const test = suite('threshold store prepare');

const USER_DATA = ['sources', 'traces', 'tests', 'dailies', 'markers', 'max_efforts', 'workouts', 'listing_stamps'];

test('the plan shards activities on {user_id, start}, the other user data on {user_id}, the blob space on its look-up keys', () => {
  const plan = shardingPlan();
  const keys = Object.fromEntries(plan.sharded.map((entry) => [entry.collection, entry.key]));
  assert.equal(keys, {
    activities: { user_id: 1, start: 1 },
    ...Object.fromEntries(USER_DATA.map((name) => [name, { user_id: 1 }])),
    blobs: { _id: 'hashed' },
    blob_chunks: { version: 1, n: 1 },
  });
  const unsharded = plan.unsharded.map((entry) => entry.collection);
  assert.equal([...unsharded, ...plan.sharded.map((entry) => entry.collection)].sort(), [...COLLECTION_NAMES, 'blobs', 'blob_chunks'].sort(), 'every collection once');
  for (const name of ['jobs', 'sessions', 'magic_links', 'refresh_tokens', 'authorization_codes', 'applications', 'client_secrets', 'signing_keys', 'users', 'teams', 'event_deliveries', 'connections']) {
    assert.ok(unsharded.includes(name), `${name} stays unsharded`);
  }
  for (const entry of [...plan.sharded, ...plan.unsharded]) assert.ok(entry.why.length > 20, `${entry.collection} says why`);
});

test('every unique index of a sharded collection starts with its whole shard key, and its key with user_id', () => {
  for (const name of COLLECTION_NAMES) {
    const shard = SCHEMA[name].shard;
    if (!('key' in shard)) continue;
    assert.is(shard.key[0], 'user_id', name);
    assert.is(SCHEMA[name].owner, 'user_id', name);
    for (const index of SCHEMA[name].indexes.filter((spec) => spec.unique)) {
      assert.equal(index.fields.slice(0, shard.key.length), [...shard.key], indexName(name, index));
    }
  }
});

test('on SQLite it creates the indexes and says there is nothing to shard', async () => {
  const result = await runCliAsync(['store', 'prepare'], { DATA_DIR: tempDir() });
  assert.is(result.status, 0, result.stderr);
  const answer = result.json as { backend: string; sharding: { applied: boolean; skipped: string } };
  assert.is(answer.backend, 'sqlite');
  assert.is(answer.sharding.applied, false);
  assert.match(answer.sharding.skipped, /nothing to shard/);
});

test('on the bundled MongoDB-wire server (a replica set) it creates the indexes, drops a replaced one and reports sharding skipped', async () => {
  const missing = mongoServerMissing();
  if (missing !== null) {
    console.log(`  skipped the MongoDB part: ${missing}`);
    return;
  }
  const server = await startMongoServer();
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  const client = new MongoClient(server.uri);
  try {
    await client.connect();
    // An older database: activities' unique index before it was prefixed by the shard key.
    await client.db(database).collection('activities').createIndex({ source_id: 1, source_index: 1 }, { name: 'activities_by_source_id_source_index', unique: true });
    const result = await runCliAsync(['store', 'prepare'], { MONGODB_URI: server.uri, MONGODB_DATABASE: database });
    assert.is(result.status, 0, result.stderr);
    type Answer = { backend: string; topology: string; indexes: { dropped: string[]; kept: { index: string; reason: string }[] }; sharding: { applied: boolean; skipped: string } };
    const answer = result.json as Answer;
    assert.is(answer.backend, 'mongo');
    assert.is(answer.topology, 'replica set');
    assert.is(answer.sharding.applied, false);
    assert.match(answer.sharding.skipped, /not a sharded cluster/);
    const names = async () => (await client.db(database).collection('activities').listIndexes().toArray()).map((index) => index.name as string);
    assert.ok((await names()).includes('activities_by_user_id_start_source_id_source_index'), (await names()).join(', '));
    const replaced = 'activities.activities_by_source_id_source_index';
    if (server.kind === 'external') {
      assert.equal(answer.indexes.dropped, [replaced]);
      assert.not.ok((await names()).includes('activities_by_source_id_source_index'));
      const again = await runCliAsync(['store', 'prepare'], { MONGODB_URI: server.uri, MONGODB_DATABASE: database });
      assert.equal((again.json as Answer).indexes.dropped, [], 'a second run changes nothing');
    } else {
      // jongodb 0.1.6 has no dropIndexes command: the replaced index is reported as kept, with the server's answer.
      assert.equal(answer.indexes.dropped, []);
      assert.equal(answer.indexes.kept.map((entry) => entry.index), [replaced]);
      assert.match(answer.indexes.kept[0]!.reason, /cannot drop indexes/);
    }
  } finally {
    await client.close();
    await dropTestDatabase(server.uri, database);
    await server.stop();
  }
});

test.run();
