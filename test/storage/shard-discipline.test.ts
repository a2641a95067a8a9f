/**
 * The shard-key discipline, checked on the wire. This stands in for a sharded MongoDB cluster, which this
 * project does not run: with the driver's command monitoring on, every command the store sends to the
 * bundled MongoDB-wire server (or MONGODB_URI) is read (test/support/shard-discipline.ts), and the run fails
 * on any command against a collection sharded by user (schema.ts) whose filter does not name the user by
 * equality, any insert or upsert whose document lacks a shard-key field, and any multi-document transaction
 * that names more than one user. Two workloads: the whole storage contract suite, and an end-to-end flow on
 * the real stack (a FIT upload and its analyses; traces, tests, dailies, markers and max efforts; a coach
 * reading an athlete through a team's delegated token and uploading for a managed user; deleting the managed
 * user through the API and the coach through the store). Both must show zero violations.
 */
import fs from 'node:fs';
import path from 'node:path';
import { suite, skipUnless } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { createUser } from '../../gateway/services/accounts.js';
import { newId } from '../../storage/ids.js';
import { JONGODB_DEVIATIONS, JONGODB_RACES, mongoServerMissing, openFreshMongoStore, startMongoServer, type MongoServer } from '../support/mongo-server.js';
import { ShardDiscipline } from '../support/shard-discipline.js';
import { FIXTURES } from '../support/paths.js';
import { okJson } from '../support/json-api.js';
import { startStack, type TestStack } from '../support/stack.js';
import { csvActivity, settled, upload, type SourceBody } from '../support/uploads.js';
import { storeContract } from './contract.js';

const external = Boolean(process.env.MONGODB_URI?.trim());
let server: MongoServer | undefined;
const contractDiscipline = new ShardDiscipline();

const openMonitored = (discipline: ShardDiscipline) => openFreshMongoStore(server!.uri, discipline.listen);

storeContract('mongo under shard-key monitoring', () => openMonitored(contractDiscipline), {
  missing: mongoServerMissing(),
  deviations: external ? {} : { ...JONGODB_DEVIATIONS, ...JONGODB_RACES },
  async before() {
    server = await startMongoServer();
  },
});

const flow = suite('shard-key discipline');
skipUnless(mongoServerMissing(), flow);
flow.after(async () => {
  await server?.stop();
});

flow('the check itself reports a scattered read, an upsert without the whole key and a transaction spanning users\' sharded data', () => {
  const check = new ShardDiscipline();
  const lsid = { id: { buffer: new Uint8Array([1, 2, 3]) } };
  const send = (commandName: string, command: Record<string, unknown>) => check.listen({ commandName, command } as never);
  send('find', { find: 'activities', filter: { _id: 'a1' } });
  send('update', { update: 'activities', updates: [{ q: { _id: 'a1', user_id: 'u1' }, u: { user_id: 'u1', start: 1 }, upsert: true }] });
  send('insert', { insert: 'sources', documents: [{ _id: 's1' }], lsid, txnNumber: 7 });
  send('update', { update: 'sources', updates: [{ q: { $and: [{ _id: 's1' }, { user_id: 'u1' }] }, u: {} }], lsid, txnNumber: 7 });
  send('insert', { insert: 'traces', documents: [{ _id: 't1', user_id: 'u2' }], lsid, txnNumber: 7 });
  send('insert', { insert: 'events', documents: [{ _id: 'e1', user_id: 'u3' }], lsid, txnNumber: 7 });
  send('find', { find: 'jobs', filter: { status: 'queued' } });
  // Several users named only in unsharded collections (all on the primary shard): one shard, no violation.
  send('delete', { delete: 'users', deletes: [{ q: { _id: { $in: ['u1', 'u2'] } } }], lsid, txnNumber: 8 });
  send('delete', { delete: 'applications', deletes: [{ q: { user_id: 'u1' } }, { q: { user_id: 'u2' } }], lsid, txnNumber: 8 });
  assert.equal(check.report(), [
    'find activities: filter names no user: {"_id":"a1"}',
    'update activities: upsert filter lacks shard-key field start: {"_id":"a1","user_id":"u1"}',
    'insert sources: inserted document lacks user_id',
    'a transaction spans users u1, u2: insert sources; update sources; insert traces; insert events',
  ]);
});

flow('the storage contract suite sends no command a cluster sharded by user would scatter or refuse', () => {
  assert.ok(contractDiscipline.checked > 100, `commands on sharded collections seen: ${contractDiscipline.checked}`);
  assert.ok(contractDiscipline.transactionsSeen > 5, `transactions seen: ${contractDiscipline.transactionsSeen}`);
  assert.equal(contractDiscipline.report(), []);
});

/** Uploads a file and waits until it is processed; answers its activity ids. */
async function ingest(stack: TestStack, token: string, name: string, bytes: Uint8Array | string): Promise<string[]> {
  const response = await upload(stack, token, [{ name, bytes }]);
  assert.is(response.status, 202);
  const [accepted] = ((await response.json()) as { sources: SourceBody[] }).sources;
  const source = await settled(stack, token, accepted!.id);
  assert.is(source.status, 'processed', JSON.stringify(source.error));
  // jongodb can show a committed transaction's writes one collection after another: wait for the activities.
  const deadline = Date.now() + 10_000;
  for (const id of source.activity_ids) {
    while ((await stack.get(`/api/v1/activities/${id}`, token)).status !== 200) {
      if (Date.now() > deadline) throw new Error(`activity ${id} not readable after 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  return source.activity_ids;
}

async function ok(stack: TestStack, token: string, url: string): Promise<void> {
  const response = await stack.get(url, token);
  assert.is(response.status, 200, `${url}: ${response.status} ${response.status === 200 ? '' : await response.text()}`);
  await response.arrayBuffer();
}

flow('an end-to-end flow on the real stack sends no such command either', async () => {
  const discipline = new ShardDiscipline();
  const store = await openMonitored(discipline);
  let stack: TestStack | undefined;
  try {
    stack = await startStack({ JOB_POLL_MS: '20', LOG_LEVEL: 'warn' }, { store });
    const scopes = ['activities:read', 'activities:write', 'wellness:read', 'wellness:write', 'profile', 'sharing:read', 'sharing:write'];
    const athlete = await stack.userWithToken(scopes);
    const token = athlete.token;

    // Upload and analyses.
    const fit = fs.readFileSync(path.join(FIXTURES, 'fit', 'sweatpy', '4078723797.fit'));
    const [rideId] = await ingest(stack, token, 'ride.fit', fit);
    await ingest(stack, token, 'second.csv', csvActivity({ start: '2024-05-02T06:00:00Z' }));
    for (const url of [
      `/api/v1/activities/${rideId}`, `/api/v1/activities/${rideId}/mean-max`, `/api/v1/activities/${rideId}/accumulated-work-duration`,
      `/api/v1/activities/${rideId}/data`, '/api/v1/activities/', '/api/v1/activities/latest',
      '/api/v1/activities/longitudinal-mean-max?sport=cycling&start=2000-01-01&end=2030-12-31',
      '/api/v1/profile/sources/', '/api/v1/profile/tags/', '/api/v1/profile/sports/', '/api/v1/profile/status',
    ]) await ok(stack, token, url);

    // Records.
    const post = (url: string, body: unknown) => okJson(stack!, 'POST', url, token, body);
    const test = await post('/api/v1/tests/', { sport: 'cycling', start: '2024-05-01T06:00:00+02:00', end: null, title: 'Ramp', results: null, tags: ['lab'] });
    const trace = await post('/api/v1/traces/', {
      timestamp: '2024-05-01T06:10:00+02:00', test_id: test.id, lactate: 2.1, rpe: null, notes: null, power: 200, speed: null,
      heart_rate: 150, vo2: null, tags: ['lab'], sport: 'cycling',
    });
    await post('/api/v1/dailies/body_mass', { date: '2024-05-01', value: 71.5 });
    await post('/api/v1/profile/markers', { sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 265, date: '2024-05-01', provenance: 'declared', pinned: null });
    await post('/api/v1/profile/max-efforts', { sport: 'cycling', metric: 'power', date: '2024-05-01', duration: 1200, distance: null, value: 301, provenance: 'measured', title: null });
    for (const url of [
      '/api/v1/traces/', `/api/v1/traces/${trace.id}`, '/api/v1/tests/', `/api/v1/tests/${test.id}`, '/api/v1/dailies/body_mass?start=2024-04-01&end=2024-05-31',
      '/api/v1/profile/markers', '/api/v1/profile/max-efforts',
    ]) await ok(stack, token, url);
    assert.is((await fetch(`${stack.baseUrl}/api/v1/traces/${trace.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status, 204);

    // Sharing: a coach's team, which the athlete authorized; the coach reads the athlete through a delegated token.
    const coach = await stack.userWithToken(scopes);
    const teamId = newId();
    const now = Date.now();
    await stack.store.teams.insert({ id: teamId, user_id: coach.userId, name: 'Squad', description: null, url: null, image: null, privacy_statement: null, created_at: now } as never);
    for (const [userId, role] of [[coach.userId, 'owner'], [athlete.userId, 'member']] as const) {
      await stack.store.team_members.insert({ id: newId(), team_id: teamId, user_id: userId, role, created_at: now });
    }
    // (People authorize a team in the browser; the record it writes is written here.)
    await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: athlete.userId, scopes: ['activities:read', 'profile'], created_at: now, updated_at: now });
    const shared = await okJson(stack, 'POST', '/api/v1/oauth/delegated-token', coach.token, { sub: athlete.userId, team_id: teamId, scopes: null });
    await ok(stack, shared.access_token, '/api/v1/activities/');
    await ok(stack, shared.access_token, `/api/v1/activities/${rideId}/mean-max`);

    // A managed user: the coach uploads for it through a delegated token, then deletes it through the API.
    const managed = await createUser(stack.store, { email: null, first_name: 'Junior', last_name: null, managed_by: coach.userId });
    const junior = await okJson(stack, 'POST', '/api/v1/oauth/delegated-token', coach.token, { sub: managed.id, team_id: null, scopes: null });
    await ingest(stack, junior.access_token, 'junior.csv', csvActivity({ start: '2024-05-03T06:00:00Z' }));
    const second = await createUser(stack.store, { email: null, first_name: 'Second', last_name: null, managed_by: coach.userId });
    const secondToken = await okJson(stack, 'POST', '/api/v1/oauth/delegated-token', coach.token, { sub: second.id, team_id: null, scopes: null });
    await ingest(stack, secondToken.access_token, 'second-junior.csv', csvActivity({ start: '2024-05-04T06:00:00Z' }));
    const removed = await fetch(`${stack.baseUrl}/api/v1/users/${managed.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${coach.token}` } });
    assert.is(removed.status, 204, await removed.text());

    // Deleting the coach takes the remaining managed user along, one transaction per user; then the athlete.
    assert.ok((await stack.store.deleteUser(coach.userId)) > 0);
    assert.ok((await stack.store.deleteUser(athlete.userId)) > 0);
    assert.is(await stack.store.activities.count({ user_id: second.id }), 0);

    assert.ok(discipline.checked > 50, `commands on sharded collections seen: ${discipline.checked}`);
    assert.ok(discipline.transactionsSeen > 3, `transactions seen: ${discipline.transactionsSeen}`);
    assert.equal(discipline.report(), []);
  } finally {
    await stack?.close();
    await store.close();
  }
});

flow.run();
