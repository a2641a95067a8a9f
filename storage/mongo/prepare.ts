/**
 * Prepares a MongoDB deployment for Threshold (`threshold store prepare`): creates every index (and drops the
 * ones a newer schema replaced), then, on a sharded cluster (`hello` answers `msg: 'isdbgrid'` through a
 * mongos), enables sharding on the database and shards each collection of the plan on its key
 * (storage/sharding.ts), leaving the rest unsharded. On a replica set or a standalone server it shards
 * nothing and says why. Safe to run again: a collection already sharded on its key is reported as such.
 */
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { MongoBlobs } from './mongo-blobs.js';
import { createIndexes } from './mongo-store.js';
import { shardingPlan, type ShardedCollection, type UnshardedCollection } from '../sharding.js';

export type Topology = 'sharded cluster' | 'replica set' | 'standalone';

export interface PreparedDeployment {
  backend: 'mongo';
  database: string;
  topology: Topology;
  indexes: { created: 'every declared index'; dropped: string[]; kept: { index: string; reason: string }[] };
  sharding:
    | { applied: true; sharded: (ShardedCollection & { outcome: 'sharded' | 'already sharded' })[]; unsharded: UnshardedCollection[] }
    | { applied: false; skipped: string };
}

async function topologyOf(db: Db): Promise<Topology> {
  const hello = await db.admin().command({ hello: 1 });
  if (hello['msg'] === 'isdbgrid') return 'sharded cluster';
  return typeof hello['setName'] === 'string' ? 'replica set' : 'standalone';
}

/** MongoDB answers AlreadyInitialized (23) when a collection is already sharded on this key. */
const ALREADY_INITIALIZED = 23;

export async function prepareMongo(options: { uri: string; database: string }): Promise<PreparedDeployment> {
  const client = new MongoClient(options.uri, { appName: 'threshold-prepare' });
  await client.connect();
  try {
    const db = client.db(options.database);
    const { dropped, kept } = await createIndexes(db, new MongoBlobs(db));
    const topology = await topologyOf(db);
    const indexes = { created: 'every declared index' as const, dropped, kept };
    if (topology !== 'sharded cluster') {
      const skipped = `this deployment is a ${topology}, not a sharded cluster (hello reports no mongos): every collection stays whole; `
        + 'run this command again through a mongos to shard';
      return { backend: 'mongo', database: options.database, topology, indexes, sharding: { applied: false, skipped } };
    }
    const plan = shardingPlan();
    const admin = client.db('admin');
    await admin.command({ enableSharding: options.database });
    const sharded: (ShardedCollection & { outcome: 'sharded' | 'already sharded' })[] = [];
    for (const entry of plan.sharded) {
      try {
        await admin.command({ shardCollection: `${options.database}.${entry.collection}`, key: entry.key });
        sharded.push({ ...entry, outcome: 'sharded' });
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === ALREADY_INITIALIZED)) throw error;
        sharded.push({ ...entry, outcome: 'already sharded' });
      }
    }
    return { backend: 'mongo', database: options.database, topology, indexes, sharding: { applied: true, sharded, unsharded: plan.unsharded } };
  } finally {
    await client.close();
  }
}
