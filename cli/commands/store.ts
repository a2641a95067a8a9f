/** `threshold store prepare`: indexes, and sharding on a MongoDB sharded cluster (README, Scaling out). */
import { storeOptionsFor } from '../../storage/config.js';
import { databaseFor } from '../../storage/mongo/uri.js';
import { command } from '../command.js';

export const storePrepare = command({
  words: 'store prepare',
  summary: 'Creates the store\'s indexes and, on a MongoDB sharded cluster, shards each user-owned collection on its key → what was done.',
  options: {},
  details: [
    'On MongoDB: creates every index (dropping the ones a newer version replaced); through a mongos, enables sharding on the database and '
      + 'shards activities on {user_id, start}, the other user-owned collections on {user_id} and the blob space on its look-up keys, '
      + 'leaving sign-in state, applications, keys, jobs and deliveries unsharded. On a replica set or a standalone server it says sharding was skipped and why. '
      + 'On the embedded SQLite store there is nothing to shard. Safe to run again.',
  ],
  async run(_input, context) {
    const options = storeOptionsFor(context.config().store);
    if (!options.mongodbUri) {
      // Opening the store creates its indexes and drops replaced ones.
      await context.store();
      return { backend: 'sqlite', file: options.sqliteFile, indexes: { created: 'every declared index' }, sharding: { applied: false, skipped: 'SQLite is one file on one machine: there is nothing to shard' } };
    }
    const { prepareMongo } = await import('../../storage/mongo/prepare.js');
    return prepareMongo({ uri: options.mongodbUri, database: databaseFor(options.mongodbUri, options.mongodbDatabase) });
  },
});
