/**
 * Deleting an account removes every record the user owns, of every kind, and nothing of anyone else's
 * (issue 12 item 6): the account is gone at once, the rest goes in the delete-user job (issue 24 item 7). A person writes one record of every kind through the API first. The kinds are read from storage/schema.ts — every collection
 * owned by `user_id` — so a kind added later is counted without touching this test, and each kind the
 * test writes through the API must hold something before the deletion and nothing after. The blobs of
 * the user's sources, series and analysis caches are checked by their keys. A managed user deleted by its
 * manager through DELETE /api/v1/users/{id} loses the same, its manager nothing (issue 14 item 1).
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, csrfFrom, signIn } from '../support/browser-session.js';
import { csvActivity, settled, upload, type SourceBody } from '../support/uploads.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { okJson } from '../support/json-api.js';
import { COLLECTION_NAMES, SCHEMA } from '../../storage/schema.js';
import type { CollectionName } from '../../storage/store.js';
import { DELETE_USER_JOB } from '../../storage/user-deletion.js';
import { until } from '../support/integrations.js';

const deletion = suite<{ stack: TestStack }>('account deletion');

deletion.before(async (context) => {
  context.stack = await startStack({ JOB_POLL_MS: '20' });
});
deletion.after(async (context) => {
  await context.stack.close();
});

const OWNED = COLLECTION_NAMES.filter((name) => SCHEMA[name].owner === 'user_id');
const PASSWORD = 'account deletion password';

/** Documents per owned collection for the user, only the kinds holding any. */
async function holdings(stack: TestStack, userId: string): Promise<Partial<Record<CollectionName, number>>> {
  const counts: Partial<Record<CollectionName, number>> = {};
  for (const name of OWNED) {
    const count = await (stack.store[name] as { count(filter: object): Promise<number> }).count({ user_id: userId });
    if (count > 0) counts[name] = count;
  }
  return counts;
}

/** Every blob key the user's records name: uploaded bytes, series, analysis caches. */
async function blobKeys(stack: TestStack, userId: string): Promise<string[]> {
  const sources = await stack.store.sources.find({ user_id: userId });
  const activities = await stack.store.activities.find({ user_id: userId });
  return [...sources.map((source) => source.bytes_key), ...activities.flatMap((activity) => [activity.series_key, activity.analysis_key ?? []].flat())];
}

/** Waits for the delete-user job to have removed every record and blob of the user, then checks it did. */
async function erased(stack: TestStack, userId: string, keys: string[]): Promise<void> {
  const job = await until('the user deletion job to finish', async () => {
    const found = await stack.store.jobs.findOne({ key: `${DELETE_USER_JOB}:${userId}` });
    return found?.status === 'done' ? found : undefined;
  }, 30_000);
  assert.ok(Number(job.payload.batches) >= 2, `the bytes went in batches after the first write: ${JSON.stringify(job.payload)}`);
  assert.equal(await holdings(stack, userId), {}, 'nothing of any kind is left');
  for (const key of keys) assert.is(await stack.store.blobs.size(key), null, `blob ${key} after`);
}

/** Every record kind the API writes, each written through the API. */
const RECORD_KINDS = ['activities', 'sources', 'traces', 'tests', 'dailies', 'markers', 'max_efforts', 'grants', 'sessions'] as const;

/**
 * One record of every kind the token can write, through the API: an uploaded and processed activity, a
 * trace linked to a test, dailies (wellness and the cycle day), a marker and a max effort.
 */
async function writeRecords(stack: TestStack, token: string): Promise<void> {
  const response = await upload(stack, token, [{ name: 'ride.csv', bytes: csvActivity() }]);
  const [accepted] = ((await response.json()) as { sources: SourceBody[] }).sources;
  const source = await settled(stack, token, accepted!.id);
  assert.is(source.status, 'processed', JSON.stringify(source.error));

  const post = (path: string, body: unknown) => okJson(stack, 'POST', path, token, body);
  const test = await post('/api/v1/tests/', { sport: 'cycling', start: '2024-05-01T06:00:00+02:00', end: null, title: 'Ramp', results: null, tags: ['lab'] });
  await post('/api/v1/traces/', {
    timestamp: '2024-05-01T06:10:00+02:00', test_id: test.id, lactate: 2.1, rpe: null, notes: null, power: 200, speed: null,
    heart_rate: 150, vo2: null, tags: ['lab'], sport: 'cycling',
  });
  await post('/api/v1/dailies/body_mass', { date: '2024-05-01', value: 71.5 });
  await post('/api/v1/dailies/menstrual_cycle_day', { date: '2024-05-01', value: 12 });
  await post('/api/v1/profile/markers', { sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 265, date: '2024-05-01', provenance: 'declared', pinned: null });
  await post('/api/v1/profile/max-efforts', { sport: 'cycling', metric: 'power', date: '2024-05-01', duration: 1200, distance: null, value: 301, provenance: 'measured', title: null });
}

const DATA_SCOPES = ['activities:read', 'activities:write', 'wellness:write', 'reproductive_health:write'];

/**
 * A person with a password and one record of every kind: the records of writeRecords, app metadata on the
 * user (through an app's grant), a session and an access token.
 */
async function populated(stack: TestStack): Promise<{ userId: string; email: string; token: string; jar: CookieJar }> {
  const email = `deleted-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD });
  const { token } = await stack.userWithToken(DATA_SCOPES, { userId: user.id });
  await writeRecords(stack, token);
  const owner = await stack.userWithToken([]);
  const app = await createApplication(stack.store, owner.userId, { name: 'Metadata app' });
  const appToken = (await stack.userWithToken(DATA_SCOPES, { appId: app.id, userId: user.id })).token;
  await okJson(stack, 'PUT', '/api/v1/profile/app-metadata', appToken, { plan: 'base' });
  return { userId: user.id, email, token, jar: await signIn(stack, email, PASSWORD) };
}

deletion('deleting the account on its page removes every record of every kind, its blobs, its session and its tokens', async ({ stack }) => {
  const person = await populated(stack);
  const bystander = await populated(stack);
  const before = await holdings(stack, person.userId);
  for (const kind of RECORD_KINDS) assert.ok((before[kind] ?? 0) > 0, `${kind} before: ${JSON.stringify(before)}`);
  assert.ok(Object.keys((await stack.store.users.get(person.userId))!.app_metadata ?? {}).length > 0, 'app metadata on the user before');
  const keys = await blobKeys(stack, person.userId);
  assert.is(keys.length, 3);
  for (const key of keys) assert.ok((await stack.store.blobs.size(key)) !== null, `blob ${key} before`);
  const bystanderBefore = await holdings(stack, bystander.userId);

  const page = await person.jar.get('/account');
  const deleted = await person.jar.post('/account/delete', { csrf: csrfFrom(await page.text()), confirm: person.email.toUpperCase() });
  assert.is(deleted.status, 200);
  assert.match(await deleted.text(), 'Your account is deleted');

  // At once: the account is gone and nothing of it is served; then the job removes the rest.
  assert.is(await stack.store.users.get(person.userId), null);
  assert.is((await stack.get('/api/v1/activities/', person.token)).status, 401, 'its access token stopped working');
  assert.is((await person.jar.get('/account')).status, 303, 'its browser is signed out');
  await erased(stack, person.userId, keys);
  assert.equal(await holdings(stack, bystander.userId), bystanderBefore, 'another user keeps everything');
});

deletion('a wrong confirmation or a missing CSRF token deletes nothing', async ({ stack }) => {
  const person = await populated(stack);
  const before = await holdings(stack, person.userId);
  const csrf = csrfFrom(await (await person.jar.get('/account')).text());

  const wrong = await person.jar.post('/account/delete', { csrf, confirm: 'someone@example.com' });
  assert.is(wrong.status, 422);
  assert.match(await wrong.text(), 'Nothing was deleted');
  assert.is((await person.jar.post('/account/delete', { csrf, confirm: '' })).status, 422);
  assert.is((await person.jar.post('/account/delete', { confirm: person.email })).status, 403);
  assert.is((await new CookieJar(stack.baseUrl).post('/account/delete', { csrf, confirm: person.email })).status, 403);
  assert.equal(await holdings(stack, person.userId), before);
  assert.is((await person.jar.get('/account')).status, 200);
});

/** Kinds a managed user holds: it never signs in (no session) and consents to nothing (no grant). */
const MANAGED_KINDS = RECORD_KINDS.filter((kind) => kind !== 'grants' && kind !== 'sessions');

deletion('deleting a managed user through DELETE /api/v1/users/{id} removes every record of it and nothing of its manager', async ({ stack }) => {
  const owner = await stack.userWithToken([]);
  const app = await createApplication(stack.store, owner.userId, { name: 'Coaching app' });
  const manager = await stack.userWithToken([...DATA_SCOPES, 'sharing:read', 'sharing:write'], { appId: app.id });
  await writeRecords(stack, manager.token);
  const managed = await okJson(stack, 'POST', '/api/v1/users/', manager.token, { first_name: 'Junior', last_name: null });
  const minted = await okJson(stack, 'POST', '/api/v1/oauth/delegated-token', manager.token, { sub: managed.id, team_id: null, scopes: null });
  await writeRecords(stack, minted.access_token);
  await okJson(stack, 'PUT', '/api/v1/profile/app-metadata', minted.access_token, { plan: 'junior' });
  const before = await holdings(stack, managed.id);
  for (const kind of MANAGED_KINDS) assert.ok((before[kind] ?? 0) > 0, `${kind} before: ${JSON.stringify(before)}`);
  assert.ok(Object.keys((await stack.store.users.get(managed.id))!.app_metadata).length > 0, 'app metadata on the managed user before');
  const keys = await blobKeys(stack, managed.id);
  assert.is(keys.length, 3);
  const managerBefore = await holdings(stack, manager.userId);
  const managerKeys = await blobKeys(stack, manager.userId);

  const deleted = await fetch(`${stack.baseUrl}/api/v1/users/${managed.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${manager.token}` } });
  assert.is(deleted.status, 204);

  assert.is(await stack.store.users.get(managed.id), null);
  assert.is((await stack.get('/api/v1/activities/', minted.access_token)).status, 401, 'its delegated token stopped working');
  await erased(stack, managed.id, keys);
  assert.equal(await holdings(stack, manager.userId), managerBefore, 'the manager keeps everything');
  for (const key of managerKeys) assert.ok((await stack.store.blobs.size(key)) !== null, `manager blob ${key} after`);
  assert.is((await stack.get('/api/v1/activities/', manager.token)).status, 200, "the manager's token still works");
});

deletion.run();
