/**
 * The connection lifecycle in engine/integrations/connections.ts with a scripted adapter (the protocols are
 * the stand-in tests' business): the state is single use and bound to the browser that started it, tokens
 * are stored sealed, a token about to expire is refreshed and the new pair stored before it is handed out
 * (Wahoo revokes the old pair once the new one is used; Garmin rotates the refresh token), and disconnect
 * revokes at the provider, drops the tokens and marks the connection disconnected. A sign-in through the
 * provider picks the linked account or creates one with its connection, and never merges an email.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { openStore } from '../../../storage/open-store.js';
import type { Store } from '../../../storage/store.js';
import { createUser } from '../../../gateway/services/accounts.js';
import { beginConnection, completeConnection, ConnectionError, disconnect, tokensFor, type ConnectionDeps } from '../../../engine/integrations/connections.js';
import { openCredentials, sealCredentials, type ProviderTokens } from '../../../engine/integrations/credentials.js';
import type { ProviderAdapter, ProviderProfile } from '../../../engine/integrations/provider.js';

let store: Store;
const calls: string[] = [];
let issued = 0;

const wahooLike: ProviderAdapter = {
  provider: 'wahoo',
  authorizationUrl: ({ state }) => ({ url: `https://provider.example/authorize?state=${state}`, codeVerifier: 'verifier-kept' }),
  async exchangeCode({ code, codeVerifier }) {
    calls.push(`exchange ${code} ${codeVerifier}`);
    return { ...pair(Date.now() + 2 * 3_600_000), externalUserId: 'w-42' };
  },
  async refresh(tokens) {
    calls.push(`refresh ${tokens.refresh_token}`);
    return pair(Date.now() + 2 * 3_600_000);
  },
  identity: async () => 'w-42',
  listHistory: async () => ({ activities: [], next: null }),
  download: async () => null,
  parsePush: () => [],
  async revoke(tokens) {
    calls.push(`revoke ${tokens.access_token}`);
  },
};

function pair(expiresAt: number): ProviderTokens {
  issued += 1;
  return { access_token: `access-${issued}`, refresh_token: `refresh-${issued}`, expires_at: expiresAt, refresh_expires_at: null, scope: 'workouts_read' };
}

const key = new Uint8Array(randomBytes(32));
const deps = (): ConnectionDeps => ({ store, adapters: { wahoo: wahooLike }, key });

test.before(async () => {
  store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
});
test.after(async () => {
  await store.close();
});

/** The ConnectionError code `work` fails with (and fails the test when it succeeds). */
async function refusal(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ConnectionError) return error.code;
    throw error;
  }
  throw new Error('expected a ConnectionError');
}

async function started(userId: string, binding: string): Promise<string> {
  const { url } = await beginConnection(deps(), { userId, provider: 'wahoo', redirectUri: 'https://us/cb', binding, returnTo: 'portal' });
  return new URL(url).searchParams.get('state')!;
}

test('a state completes once, in the browser that started it, with its PKCE verifier; tokens are stored sealed', async () => {
  const user = await createUser(store, { email: 'conn@example.com' });
  const state = await started(user.id, 'browser-a');
  assert.is(await refusal(() => completeConnection(deps(), { provider: 'wahoo', state, binding: 'browser-b', code: 'c1', error: null, redirectUri: 'https://us/cb' })), 'state_unknown', 'another browser');
  const done = await completeConnection(deps(), { provider: 'wahoo', state, binding: 'browser-a', code: 'c1', error: null, redirectUri: 'https://us/cb' });
  assert.equal(done, { userId: user.id, returnTo: 'portal', connected: true, signIn: null });
  assert.ok(calls.includes('exchange c1 verifier-kept'));
  assert.is(await refusal(() => completeConnection(deps(), { provider: 'wahoo', state, binding: 'browser-a', code: 'c1', error: null, redirectUri: 'https://us/cb' })), 'state_unknown', 'used once');
  const connection = (await store.connections.findOne({ user_id: user.id }))!;
  assert.is(connection.external_user_id, 'w-42');
  assert.not.match(JSON.stringify(connection), /access-|refresh-/);
  assert.is(await store.jobs.count({ key: `provider_backfill:${connection.id}` }), 1, 'the backfill is queued with the connection');
});

test('a token expiring within the margin is refreshed and the new pair stored before it is used', async () => {
  const user = await createUser(store, { email: 'refresh@example.com' });
  await completeConnection(deps(), { provider: 'wahoo', state: await started(user.id, 'b'), binding: 'b', code: 'c2', error: null, redirectUri: 'https://us/cb' });
  const connection = (await store.connections.findOne({ user_id: user.id }))!;
  const fresh = await tokensFor(deps(), connection);
  assert.is(fresh.access_token, openCredentials(key, connection.credentials).access_token, 'two hours left: no refresh');
  await store.connections.updateOne({ id: connection.id }, { set: { credentials: sealCredentials(key, pair(Date.now() + 60_000)) } });
  const soon = (await store.connections.get(connection.id))!;
  const old = openCredentials(key, soon.credentials);
  const refreshed = await tokensFor(deps(), soon);
  assert.ok(calls.includes(`refresh ${old.refresh_token}`));
  assert.is.not(refreshed.access_token, old.access_token);
  assert.is(openCredentials(key, (await store.connections.get(connection.id))!.credentials).access_token, refreshed.access_token, 'stored before handed out');
});

test('disconnect revokes at the provider, drops the tokens and marks the connection disconnected', async () => {
  const user = await createUser(store, { email: 'bye@example.com' });
  await completeConnection(deps(), { provider: 'wahoo', state: await started(user.id, 'b'), binding: 'b', code: 'c3', error: null, redirectUri: 'https://us/cb' });
  const token = openCredentials(key, (await store.connections.findOne({ user_id: user.id }))!.credentials).access_token;
  assert.is(await disconnect(deps(), user.id, 'wahoo'), true);
  assert.ok(calls.includes(`revoke ${token}`));
  const gone = (await store.connections.findOne({ user_id: user.id }))!;
  assert.is(gone.status, 'disconnected');
  assert.equal(gone.credentials, {});
  assert.is(await disconnect(deps(), user.id, 'wahoo'), false, 'nothing left to disconnect');
});

test('a sign-in creates an account with its connection, then signs it in; an email of another account or a provider account held twice stores nothing', async () => {
  let identity: { externalUserId: string; profile: ProviderProfile } = { externalUserId: 'athlete-1', profile: { email: ' New.Rider@Example.com ', firstName: 'New', lastName: 'Rider' } };
  const signing: ProviderAdapter = {
    ...wahooLike,
    provider: 'intervals_icu',
    authorizationUrl: ({ state, signIn }) => ({ url: `https://provider.example/authorize?state=${state}&sign_in=${signIn}`, codeVerifier: null }),
    exchangeCode: async () => ({ ...pair(Date.now() + 3_600_000), ...identity }),
  };
  const signInDeps: ConnectionDeps = { store, adapters: { intervals_icu: signing }, key };
  const signIn = async (error: string | null = null) => {
    const { url } = await beginConnection(signInDeps, { userId: null, provider: 'intervals_icu', redirectUri: 'https://us/cb', binding: 'browser-s', returnTo: 'interaction:i-1' });
    assert.is(new URL(url).searchParams.get('sign_in'), 'true', 'the adapter is told it is a sign-in');
    const state = new URL(url).searchParams.get('state')!;
    return completeConnection(signInDeps, { provider: 'intervals_icu', state, binding: 'browser-s', code: error ? null : 'c-s', error, redirectUri: 'https://us/cb' });
  };

  const created = await signIn();
  assert.is(created.signIn, 'created');
  assert.is(created.returnTo, 'interaction:i-1');
  const user = (await store.users.get(created.userId))!;
  assert.equal([user.email, user.first_name, user.last_name, user.password_hash], ['new.rider@example.com', 'New', 'Rider', null]);
  const connection = (await store.connections.findOne({ user_id: user.id, provider: 'intervals_icu' }))!;
  assert.is(connection.external_user_id, 'athlete-1');
  assert.is(await store.jobs.count({ key: `provider_backfill:${connection.id}` }), 1);

  await store.connections.updateOne({ id: connection.id }, { set: { backfill_done: true, backfill_cursor: 'page-9' } });
  const again = await signIn();
  assert.equal([again.signIn, again.userId], ['signed_in', user.id]);
  const renewed = (await store.connections.get(connection.id))!;
  assert.not.equal(renewed.credentials, connection.credentials, 'the new tokens are stored');
  assert.equal([renewed.backfill_done, renewed.backfill_cursor], [true, 'page-9'], 'a live connection keeps its backfill');

  const usersBefore = await store.users.count({});
  identity = { externalUserId: 'athlete-2', profile: { email: 'CONN@example.com', firstName: null, lastName: null } };
  const taken = await signIn();
  assert.equal([taken.signIn, taken.userId], ['email_taken', '']);
  assert.is(await store.connections.count({ external_user_id: 'athlete-2' }), 0);
  assert.is(await store.users.count({}), usersBefore);

  const holder = await createUser(store, { email: 'second-holder@example.com' });
  await store.connections.insert({ ...connection, id: `${connection.id}-copy`, user_id: holder.id });
  identity = { ...identity, externalUserId: 'athlete-1' };
  const ambiguous = await signIn();
  assert.equal([ambiguous.signIn, ambiguous.userId], ['ambiguous', '']);

  const refused = await signIn('access_denied');
  assert.equal([refused.signIn, refused.connected], ['refused', false]);
});

test.run();
