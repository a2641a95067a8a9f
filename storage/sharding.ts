/**
 * The sharding plan of a MongoDB deployment, read from schema.ts: which collection is sharded on which key
 * and which stays unsharded, and why. `threshold store prepare` applies it (storage/mongo/prepare.ts); the
 * README's "Scaling out" section describes it. Kept honest by test/storage/sharding.test.ts.
 */
import { COLLECTION_NAMES, SCHEMA } from './schema.js';

export interface ShardedCollection {
  collection: string;
  /** The shard key as MongoDB's `shardCollection` takes it: field → 1 (ranged) or 'hashed'. */
  key: Record<string, 1 | 'hashed'>;
  why: string;
}

export interface UnshardedCollection {
  collection: string;
  why: string;
}

export interface ShardingPlan {
  sharded: ShardedCollection[];
  unsharded: UnshardedCollection[];
}

/**
 * The blob space (storage/mongo/mongo-blobs.ts) lives outside the port's collections: headers are read and
 * replaced by key, chunks by the version a header names, so each is sharded on what it is looked up by.
 */
const BLOB_COLLECTIONS: ShardedCollection[] = [
  { collection: 'blobs', key: { _id: 'hashed' }, why: 'headers are read, replaced and deleted by key: hashing the key spreads them evenly' },
  {
    collection: 'blob_chunks', key: { version: 1, n: 1 },
    why: 'chunks are read by the random version a header names, in order; the key is their unique index, so one blob reads from one shard',
  },
];

export function shardingPlan(): ShardingPlan {
  const plan: ShardingPlan = { sharded: [], unsharded: [] };
  for (const name of COLLECTION_NAMES) {
    const shard = SCHEMA[name].shard;
    if ('key' in shard) {
      const why = shard.key.length > 1
        ? `user data, read by user and time range: ${shard.key.join(', ')} keeps one user's ${name} together, split by ${shard.key.slice(1).join(', ')} when large`
        : `user data, read and written by its user: one API call reaches one shard`;
      plan.sharded.push({ collection: name, key: Object.fromEntries(shard.key.map((field) => [field, 1 as const])), why });
    } else {
      plan.unsharded.push({ collection: name, why: shard.unsharded });
    }
  }
  plan.sharded.push(...BLOB_COLLECTIONS);
  return plan;
}
