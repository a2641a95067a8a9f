/**
 * The storage contract on MongoDB, in every run: on the server MONGODB_URI names, else on the bundled
 * jongodb server (test/support/mongo-server.ts) in its single-node replica-set mode. Each test gets its
 * own database (`threshold_test_<random>`), removed when the store closes (`dropTestDatabase`). `batch`
 * needs transactions, so a MONGODB_URI must name a replica set (a single node started with
 * `--replSet rs0` and `rs.initiate()` is enough) or a sharded cluster.
 */
import { JONGODB_DEVIATIONS, mongoServerMissing, openFreshMongoStore, startMongoServer, type MongoServer } from '../support/mongo-server.js';
import { storeContract } from './contract.js';

let server: MongoServer | undefined;

const openFresh = () => openFreshMongoStore(server!.uri);

const external = Boolean(process.env.MONGODB_URI?.trim());

storeContract(external ? 'mongo (MONGODB_URI)' : 'mongo (bundled jongodb)', openFresh, {
  missing: mongoServerMissing(),
  deviations: external ? {} : JONGODB_DEVIATIONS,
  async before() {
    server = await startMongoServer();
  },
  async after() {
    await server?.stop();
  },
});
