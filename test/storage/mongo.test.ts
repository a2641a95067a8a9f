/**
 * The storage contract on MongoDB, run when MONGODB_URI is set; each test gets its own database
 * (`threshold_test_<random>`), dropped when the store closes. `batch` needs transactions, so point
 * MONGODB_URI at a replica set (a single node started with `--replSet rs0` and `rs.initiate()` is
 * enough) or a sharded cluster.
 */
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openMongoStore } from '../../storage/mongo/mongo-store.js';
import type { Store } from '../../storage/store.js';
import { storeContract } from './contract.js';

const uri = process.env['MONGODB_URI'];

async function dropDatabase(database: string): Promise<void> {
  const client = new MongoClient(uri!);
  try {
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}

async function openFresh(): Promise<Store> {
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  const store = await openMongoStore({ uri: uri!, database });
  const closeStore = store.close;
  return {
    ...store,
    async close() {
      await closeStore();
      await dropDatabase(database);
    },
  };
}

if (uri) {
  storeContract('mongo', openFresh);
} else {
  console.log('storage contract: MongoDB suite skipped (MONGODB_URI is not set)');
}
