/**
 * The scale-out backend: MongoDB through the official driver. One collection per port
 * collection, the SCHEMA indexes created at start-up, blobs in chunks (mongo-blobs.ts).
 *
 * `batch` is a multi-document transaction and needs a replica set or a sharded cluster (a
 * single-node replica set is enough for development). `deleteUser` uses a transaction too where
 * the deployment offers them and otherwise deletes children first and the user last, so a retry
 * after a failure finishes the job. Kept honest by test/storage/contract.ts through
 * test/storage/mongo.test.ts and by test/gateway/mongo-end-to-end.test.ts, in every run (on the
 * bundled jongodb server, or on MONGODB_URI).
 */
import { MongoClient, MongoServerError, type ClientSession, type CommandStartedEvent, type Db, type IndexDescription } from 'mongodb';
import { StoreUsageError, type CollectionName, type Collections, type Doc, type JobRecord, type Store } from '../store.js';
import { COLLECTION_NAMES, SCHEMA, indexName, isDescending, type IndexSpec } from '../schema.js';
import { batchStep, checkMatched, claimJobQuery, managedUsers, ownedDeletion, userDeletion, type DeletionResult, type DeletionStep } from '../store-operations.js';
import { MongoCollection, type StoredDoc } from './mongo-collection.js';
import { MongoBlobs } from './mongo-blobs.js';
import { DEFAULT_DATABASE, databaseNamedBy } from './uri.js';

/**
 * A SCHEMA index as MongoDB creates it. Sparse unique indexes are partial indexes over
 * `{field: {$gte: ''}}`: that admits every string and nothing else (no null, no missing field) —
 * the sparse fields hold strings — and, unlike a `$type` filter, the planner recognises an equality
 * on the field as implying it, so lookups by email or job key use the index.
 */
function indexDescription(collection: CollectionName, index: IndexSpec): IndexDescription {
  const description: IndexDescription = {
    key: Object.fromEntries(index.fields.map((field) => [field === 'id' ? '_id' : field, isDescending(index, field) ? -1 : 1])),
    name: indexName(collection, index),
  };
  if (index.unique) description.unique = true;
  if (index.sparse) description.partialFilterExpression = Object.fromEntries(index.fields.map((field) => [field, { $gte: '' }]));
  return description;
}

/**
 * Creates every SCHEMA index, then drops the ones a collection no longer declares (named by the
 * `<collection>_by_` rule), so an older database upgrades: activities' unique `(source_id, source_index)`
 * became `(user_id, start, source_id, source_index)`, which a collection sharded on `{user_id, start}` requires. Returns the
 * indexes dropped, and those kept because the server has no `dropIndexes` (the bundled test server), with why.
 */
export async function createIndexes(db: Db, blobs: MongoBlobs): Promise<{ dropped: string[]; kept: { index: string; reason: string }[] }> {
  const dropped: string[] = [];
  const kept: { index: string; reason: string }[] = [];
  for (const name of COLLECTION_NAMES) {
    const indexes = SCHEMA[name].indexes.map((index) => indexDescription(name, index));
    const collection = db.collection(name);
    if (indexes.length > 0) await collection.createIndexes(indexes);
    const declared = new Set(indexes.map((index) => index.name));
    for (const index of await collection.listIndexes().toArray() as { name: string }[]) {
      if (!index.name.startsWith(`${name}_by_`) || declared.has(index.name)) continue;
      try {
        await collection.dropIndex(index.name);
        dropped.push(`${name}.${index.name}`);
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === COMMAND_NOT_FOUND)) throw error;
        kept.push({ index: `${name}.${index.name}`, reason: `the server cannot drop indexes (${error.message})` });
      }
    }
  }
  await blobs.createIndexes();
  return { dropped, kept };
}

/** MongoDB's code for a command the server does not have. */
const COMMAND_NOT_FOUND = 59;

/** Whether the deployment runs multi-document transactions: a replica set member or a mongos. */
async function supportsTransactions(db: Db): Promise<boolean> {
  const hello = await db.command({ hello: 1 });
  return typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid';
}

/**
 * Connects and prepares the store. `database` overrides the database the URI names; without it
 * the URI's database is used, else 'threshold'. `onCommand` turns on the driver's command monitoring and
 * hears every command as it starts (the shard-key discipline test reads them).
 */
export async function openMongoStore(options: { uri: string; database?: string; onCommand?: (event: CommandStartedEvent) => void }): Promise<Store> {
  // ignoreUndefined: an undefined field is absent, as JSON.stringify makes it in the SQLite backend.
  const client = new MongoClient(options.uri, { ignoreUndefined: true, appName: 'threshold', monitorCommands: options.onCommand !== undefined });
  if (options.onCommand) client.on('commandStarted', options.onCommand);
  await client.connect();
  try {
    const db = client.db(options.database ?? databaseNamedBy(options.uri) ?? DEFAULT_DATABASE);
    const blobs = new MongoBlobs(db);
    await createIndexes(db, blobs);
    const transactions = await supportsTransactions(db);
    return mongoStore(client, db, blobs, transactions);
  } catch (error) {
    await client.close();
    throw error;
  }
}

function mongoStore(client: MongoClient, db: Db, blobs: MongoBlobs, transactions: boolean): Store {
  const collections = Object.fromEntries(
    COLLECTION_NAMES.map((name) => [name, new MongoCollection<Doc>(db.collection<StoredDoc>(name), name)]),
  ) as Record<CollectionName, MongoCollection<Doc>>;

  async function runDeletionStep(step: DeletionStep, session?: ClientSession): Promise<DeletionResult> {
    switch (step.kind) {
      case 'find-ids': return collections[step.collection].findIds(step.filter, session);
      case 'delete': return collections[step.collection].deleteMany(step.filter, session);
      case 'delete-blobs': return blobs.deleteOwned(step.userIds, session);
    }
  }

  /** Runs a deletion walk; a fresh walk per call, because a transaction may be retried. */
  async function drive<R>(walk: Generator<DeletionStep, R, DeletionResult>, session?: ClientSession): Promise<R> {
    let step = walk.next();
    while (!step.done) step = walk.next(await runDeletionStep(step.value, session));
    return step.value;
  }

  return {
    ...(collections as unknown as Collections),
    backend: 'mongo',
    blobs,

    // "MongoDB: one multi-document transaction (requires a replica set or sharded cluster)."
    async batch(ops) {
      const steps = ops.map(batchStep);
      if (!transactions) {
        throw new Error('store: batch needs a MongoDB replica set or sharded cluster; this server is a standalone mongod');
      }
      await client.withSession((session) => session.withTransaction(async () => {
        for (const step of steps) {
          const collection = collections[step.collection];
          switch (step.kind) {
            case 'insert': await collection.insert(step.doc, session); break;
            case 'put': await collection.put(step.doc, session); break;
            case 'update': checkMatched(step, await collection.updateMany(step.filter, step.change, session)); break;
            case 'delete': await collection.deleteMany(step.filter, session); break;
          }
        }
      }));
    },

    async claimJob(kinds, owner, leaseMs, now = Date.now()): Promise<JobRecord | null> {
      const claim = claimJobQuery(kinds, owner, leaseMs, now);
      const jobs = collections.jobs as unknown as MongoCollection<JobRecord>;
      return jobs.updateOne(claim.filter, claim.change, { sort: claim.sort });
    },

    async deleteUser(userId) {
      if (typeof userId !== 'string' || userId.length === 0) throw new StoreUsageError('deleteUser: expected a user id');
      if (!transactions) return drive(userDeletion(userId));
      // One transaction per user, the managed ones first (deepest first) and the user last, so no transaction
      // spans users and a retry after a failure finishes the job. Very large accounts can meet the server's
      // transaction limits (transactionLifetimeLimitSeconds); a failed transaction leaves that user in place.
      const users = await drive(managedUsers(userId));
      let removed = 0;
      for (const user of users.reverse()) {
        removed += await client.withSession((session) => session.withTransaction(() => drive(ownedDeletion([user]), session)));
      }
      return removed;
    },

    async ping() {
      await db.command({ ping: 1 });
    },

    async close() {
      await client.close();
    },
  };
}
