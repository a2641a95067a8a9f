/**
 * The storage contract on MongoDB, in every run: on the server MONGODB_URI names, else on the bundled
 * jongodb server (test/support/mongo-server.ts) in its single-node replica-set mode. Each test gets its
 * own database (`threshold_test_<random>`), removed when the store closes (`dropTestDatabase`). `batch`
 * needs transactions, so a MONGODB_URI must name a replica set (a single node started with
 * `--replSet rs0` and `rs.initiate()` is enough) or a sharded cluster.
 */
import { randomBytes } from 'node:crypto';
import { openMongoStore } from '../../storage/mongo/mongo-store.js';
import type { Store } from '../../storage/store.js';
import { dropTestDatabase, mongoServerMissing, startMongoServer, type MongoServer } from '../support/mongo-server.js';
import { storeContract } from './contract.js';

let server: MongoServer | undefined;

async function openFresh(): Promise<Store> {
  const { uri } = server!;
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  const store = await openMongoStore({ uri, database });
  const closeStore = store.close;
  return {
    ...store,
    async close() {
      await closeStore();
      await dropTestDatabase(uri, database);
    },
  };
}

/** Where jongodb 0.1.6 answers differently from MongoDB, so these run only against a real MONGODB_URI. */
const JONGODB_DEVIATIONS: Record<string, string> = {
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
const JONGODB_RACES: Record<string, string> = {
  'lets exactly one of ten concurrent consumers redeem an authorization code': NO_CONCURRENCY,
  'insertIfAbsent under ten concurrent callers inserts once and hands every caller the winner': NO_CONCURRENCY,
  'lets exactly one of ten concurrent claimers win a job': NO_CONCURRENCY,
};

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
