/** Storage settings: defaults, validation that reports every problem, and the backend they select. */
import path from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { STORE_DEFAULTS, readStoreConfig, sqliteFileFor } from '../../storage/config.js';
import { openStore, storeLocation } from '../../storage/open-store.js';
import { databaseNamedBy, hostsOf } from '../../storage/mongo/uri.js';

const test = suite('storage config');

test('defaults to the embedded store under ./data', () => {
  const problems: string[] = [];
  const config = readStoreConfig({}, problems);
  assert.equal(problems, []);
  assert.equal(config, { dataDir: STORE_DEFAULTS.dataDir, mongodbUri: null, mongodbDatabase: 'threshold' });
  assert.is(sqliteFileFor(config), path.join('data', 'threshold.sqlite'));
  assert.is(sqliteFileFor({ ...config, dataDir: ':memory:' }), ':memory:');
});

test('reads DATA_DIR, MONGODB_URI and MONGODB_DATABASE, treating blank as unset', () => {
  const problems: string[] = [];
  const config = readStoreConfig({ DATA_DIR: '/var/lib/threshold', MONGODB_URI: 'mongodb+srv://db.example.com/prod', MONGODB_DATABASE: 'other' }, problems);
  assert.equal(problems, []);
  assert.equal(config, { dataDir: '/var/lib/threshold', mongodbUri: 'mongodb+srv://db.example.com/prod', mongodbDatabase: 'other' });
  assert.is(readStoreConfig({ MONGODB_URI: '  ' }, problems).mongodbUri, null);
  assert.equal(problems, []);
});

test('reports every problem at once', () => {
  const problems: string[] = [];
  readStoreConfig({ MONGODB_URI: 'postgres://db', MONGODB_DATABASE: 'a.b' }, problems);
  assert.equal(problems, [
    'MONGODB_URI must start with mongodb:// or mongodb+srv://',
    'MONGODB_DATABASE must be 1-63 characters without / \\ . space " $ * < > : | ?',
  ]);
});

test('finds the database a MongoDB URI names', () => {
  assert.is(databaseNamedBy('mongodb://localhost:27017/threshold_prod?replicaSet=rs0'), 'threshold_prod');
  assert.is(databaseNamedBy('mongodb://u:p%2F@h1:27017,h2:27017/db%31'), 'db1');
  assert.is(databaseNamedBy('mongodb://localhost:27017/?replicaSet=rs0'), null);
  assert.is(databaseNamedBy('mongodb+srv://cluster.example.com'), null);
});

test('describes where the data lives without the credentials or options of a MongoDB URI', () => {
  assert.is(hostsOf('mongodb://admin:s3cret@h1:27017,h2:27017/prod?replicaSet=rs0&authSource=admin'), 'mongodb://h1:27017,h2:27017');
  assert.is(hostsOf('mongodb+srv://u:p%40ss@cluster.example.com/?retryWrites=true'), 'mongodb+srv://cluster.example.com');
  assert.is(hostsOf('mongodb://u:unescaped/sl@sh@localhost/db'), 'mongodb://localhost');
  assert.is(hostsOf('mongodb://localhost'), 'mongodb://localhost');
  assert.equal(storeLocation({ mongodbUri: 'mongodb://admin:s3cret@db.example.com/prod', mongodbDatabase: 'other', sqliteFile: 'x' }),
    { backend: 'mongo', hosts: 'mongodb://db.example.com', database: 'prod' });
  assert.equal(storeLocation({ mongodbUri: 'mongodb://db.example.com', mongodbDatabase: 'other', sqliteFile: 'x' }),
    { backend: 'mongo', hosts: 'mongodb://db.example.com', database: 'other' });
  assert.equal(storeLocation({ mongodbUri: null, sqliteFile: path.join('data', 'threshold.sqlite') }),
    { backend: 'sqlite', file: path.resolve('data', 'threshold.sqlite') });
  assert.equal(storeLocation({ mongodbUri: null, sqliteFile: ':memory:' }), { backend: 'sqlite', file: ':memory:' });
});

test('opens the embedded store when no MongoDB URI is configured', async () => {
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  assert.is(store.backend, 'sqlite');
  await store.ping();
  await store.close();
});

test.run();
