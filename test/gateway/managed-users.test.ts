/**
 * Managed users on the real stack (interface §4 "Users", gaps.md "Managed user GET/PUT"): create, read,
 * rename (a form, omitted fields unchanged) and delete, only by the manager, with personal and app tokens;
 * strangers, unknown ids and the caller's own id all get the same 404; delegated tokens and tokens
 * without the scope get 403; the new user shows in the users listing. That a managed user can never sign
 * in is test/gateway/sign-in.test.ts; that deleting one removes every record is account-deletion.test.ts.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, sendJson, validationIssueAt, type JsonClient } from '../support/json-api.js';
import { createApplication } from '../../gateway/services/accounts.js';
import { newId } from '../../storage/ids.js';

let stack: TestStack;
let appId: string;

test.before(async () => {
  stack = await startStack();
  appId = (await createApplication(stack.store, (await stack.userWithToken([])).userId, { name: 'Coaching app' })).id;
});
test.after(async () => {
  await stack.close();
});

const SHARING = ['sharing:read', 'sharing:write', 'activities:read'];

async function manager(scopes = SHARING, options: { app?: boolean } = {}): Promise<{ userId: string; token: string; api: JsonClient }> {
  const { userId, token } = await stack.userWithToken(scopes, options.app ? { appId } : {});
  return { userId, token, api: jsonClient(stack, token) };
}

function putForm(path: string, token: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${stack.baseUrl}${path}`, {
    method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form),
  });
}

async function delegatedFor(token: string, sub: string): Promise<string> {
  const response = await sendJson(stack, 'POST', '/api/v1/oauth/delegated-token', token, { sub, team_id: null, scopes: null });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body.access_token;
}

test('creates a managed user and answers the User object', async () => {
  const { api } = await manager();
  const created = await api.post('/api/v1/users/', { first_name: ' Bob ', last_name: 'Smit' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.equal(Object.keys(created.body).sort(), ['admin', 'display_name', 'first_name', 'id', 'is_managed', 'last_name', 'registered_at']);
  assert.is(created.body.first_name, 'Bob');
  assert.is(created.body.last_name, 'Smit');
  assert.is(created.body.display_name, 'Bob Smit');
  assert.is(created.body.is_managed, true);
  assert.is(created.body.admin, false);
  assert.match(created.body.registered_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const stored = await stack.store.users.get(created.body.id);
  assert.is(stored?.email, null, 'no email, so no way to sign in');
  assert.is(stored?.password_hash, null);
});

test('the new user is listed as managed, hidden with include_managed=false, and found by name', async () => {
  const { api } = await manager();
  const { body: bob } = await api.post('/api/v1/users/', { first_name: 'Bob', last_name: null });
  const { body: carla } = await api.post('/api/v1/users/', { first_name: 'Carla', last_name: 'Dekker' });
  const all = (await api.get('/api/v1/users/')).body as { id: string; is_managed: boolean; display_name: string }[];
  assert.equal(all.slice(1).map((row) => [row.id, row.is_managed, row.display_name]), [[bob.id, true, 'Bob'], [carla.id, true, 'Carla Dekker']]);
  assert.is(all[0]!.is_managed, false, 'the caller first');
  assert.is((await api.get('/api/v1/users/?include_managed=false')).body.length, 1);
  assert.equal(((await api.get('/api/v1/users/?name=dEKK')).body as { id: string }[]).map((row) => row.id), [carla.id]);
});

test('create refuses a missing first_name, a missing last_name key and a name over 100 characters (422)', async () => {
  const { api } = await manager();
  validationIssueAt(await api.post('/api/v1/users/', { last_name: null }), ['body', 'first_name']);
  validationIssueAt(await api.post('/api/v1/users/', { first_name: 'Bob' }), ['body', 'last_name']);
  validationIssueAt(await api.post('/api/v1/users/', { first_name: 'x'.repeat(101), last_name: null }), ['body', 'first_name']);
});

test('create, rename and delete need sharing:write, reading needs sharing:read (403 naming the scope)', async () => {
  const owner = await manager();
  const { body: bob } = await owner.api.post('/api/v1/users/', { first_name: 'Bob', last_name: null });
  const reader = jsonClient(stack, (await stack.userWithToken(['sharing:read'], { userId: owner.userId })).token);
  const created = await reader.post('/api/v1/users/', { first_name: 'Eve', last_name: null });
  assert.is(created.status, 403);
  assert.match(created.headers.get('www-authenticate') ?? '', 'scope="sharing:write"');
  assert.is((await reader.del(`/api/v1/users/${bob.id}`)).status, 403);
  assert.is((await putForm(`/api/v1/users/${bob.id}`, (await stack.userWithToken(['sharing:read'], { userId: owner.userId })).token, { first_name: 'X' })).status, 403);
  assert.is((await reader.get(`/api/v1/users/${bob.id}`)).status, 200);
  const writer = jsonClient(stack, (await stack.userWithToken(['sharing:write'], { userId: owner.userId })).token);
  const read = await writer.get(`/api/v1/users/${bob.id}`);
  assert.is(read.status, 403);
  assert.match(read.body.detail, 'sharing:read');
});

test('a delegated token is refused on every one of them, as the signed-in user is meant', async () => {
  const owner = await manager(['sharing:read', 'sharing:write', 'activities:read'], { app: true });
  const { body: bob } = await owner.api.post('/api/v1/users/', { first_name: 'Bob', last_name: null });
  assert.ok(bob.id, 'an app token with sharing:write creates');
  const delegated = jsonClient(stack, await delegatedFor(owner.token, bob.id));
  for (const response of [
    await delegated.post('/api/v1/users/', { first_name: 'Eve', last_name: null }),
    await delegated.get(`/api/v1/users/${bob.id}`),
    await delegated.del(`/api/v1/users/${bob.id}`),
  ]) {
    assert.is(response.status, 403);
    assert.match(response.body.detail, /delegated token/);
  }
  assert.ok(await stack.store.users.get(bob.id));
});

test('GET answers the managed user to its manager, with a personal or an app token', async () => {
  const personal = await manager();
  const { body: bob } = await personal.api.post('/api/v1/users/', { first_name: 'Bob', last_name: 'Smit' });
  const got = await personal.api.get(`/api/v1/users/${bob.id}`);
  assert.is(got.status, 200);
  assert.equal(got.body, bob);
  const app = jsonClient(stack, (await stack.userWithToken(SHARING, { appId, userId: personal.userId })).token);
  assert.equal((await app.get(`/api/v1/users/${bob.id}`)).body, bob);
});

test('a stranger, an unknown id and the caller\'s own id get the same 404', async () => {
  const owner = await manager();
  const stranger = await manager();
  const { body: bob } = await owner.api.post('/api/v1/users/', { first_name: 'Bob', last_name: null });
  const answers = [
    await stranger.api.get(`/api/v1/users/${bob.id}`),
    await owner.api.get(`/api/v1/users/${newId()}`),
    await owner.api.get(`/api/v1/users/${owner.userId}`),
    await stranger.api.del(`/api/v1/users/${bob.id}`),
  ];
  for (const answer of answers) assert.is(answer.status, 404);
  assert.is(answers[0]!.body.detail.replace(bob.id, '<id>'), answers[1]!.body.detail.replace(/users: no managed user \S+/, 'users: no managed user <id>'));
  const renamed = await putForm(`/api/v1/users/${bob.id}`, stranger.token, { first_name: 'Mallory' });
  assert.is(renamed.status, 404);
  assert.is((await stack.store.users.get(bob.id))?.first_name, 'Bob', 'nothing changed');
});

test('PUT takes a form: omitted fields stay, an empty value clears, and it answers the User object', async () => {
  const { api, token } = await manager();
  const { body: bob } = await api.post('/api/v1/users/', { first_name: 'Bob', last_name: 'Smit' });
  const renamed = await putForm(`/api/v1/users/${bob.id}`, token, { last_name: 'de Vries' });
  assert.is(renamed.status, 200);
  const body = (await renamed.json()) as Record<string, unknown>;
  assert.equal(body, { ...bob, last_name: 'de Vries', display_name: 'Bob de Vries' });
  const cleared = (await (await putForm(`/api/v1/users/${bob.id}`, token, { first_name: 'Rob', last_name: '' })).json()) as Record<string, unknown>;
  assert.is(cleared.first_name, 'Rob');
  assert.is(cleared.last_name, null);
  const unchanged = (await (await putForm(`/api/v1/users/${bob.id}`, token, {})).json()) as Record<string, unknown>;
  assert.equal(unchanged, cleared);
  assert.is((await putForm(`/api/v1/users/${bob.id}`, token, { first_name: 'x'.repeat(101) })).status, 422);
});

test('DELETE removes the managed user for good: 204, then 404, and its delegated tokens die', async () => {
  const owner = await manager(['sharing:read', 'sharing:write', 'activities:read'], { app: true });
  const { body: bob } = await owner.api.post('/api/v1/users/', { first_name: 'Bob', last_name: null });
  const delegated = await delegatedFor(owner.token, bob.id);
  assert.is((await stack.get('/api/v1/activities/', delegated)).status, 200);
  const deleted = await owner.api.del(`/api/v1/users/${bob.id}`);
  assert.is(deleted.status, 204);
  assert.is(await stack.store.users.get(bob.id), null);
  assert.is((await owner.api.get(`/api/v1/users/${bob.id}`)).status, 404);
  assert.is((await owner.api.del(`/api/v1/users/${bob.id}`)).status, 404);
  assert.is((await stack.get('/api/v1/activities/', delegated)).status, 401);
  assert.ok(await stack.store.users.get(owner.userId), 'the manager stays');
});

test.run();
