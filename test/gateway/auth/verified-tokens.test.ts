/**
 * auth/verified-tokens.ts: a token verified once skips its signature check on the next request, never the
 * checks of what it stands on — a revoked grant or a deleted user ends a cached token at once — and an
 * entry ends with the token's `exp`, and with the signing key that verified it.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { generateKeyPair } from 'jose';
import { openStore } from '../../../storage/open-store.js';
import type { Store } from '../../../storage/store.js';
import { InvalidTokenError, mintAccessToken, verifyAccessToken, type Principal } from '../../../gateway/auth/access-tokens.js';
import { SigningKeys } from '../../../gateway/auth/signing-keys.js';
import { VerifiedTokens } from '../../../gateway/auth/verified-tokens.js';
import { createApplication, createUser, unionGrant } from '../../../gateway/services/accounts.js';
import { startStack } from '../../support/stack.js';

const ISSUER = 'https://threshold.example';

async function withStore(run: (store: Store, keys: SigningKeys) => Promise<void>): Promise<void> {
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  try {
    await run(store, await SigningKeys.open(store));
  } finally {
    await store.close();
  }
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, InvalidTokenError);
    return (error as Error).message;
  }
  assert.unreachable('the token was accepted');
  return '';
}

test('keeps a verified token, and refuses it at once when its grant is revoked although it is kept', async () => {
  await withStore(async (store, keys) => {
    const owner = await createUser(store, { email: 'owner@example.com' });
    const app = await createApplication(store, owner.id, { name: 'App' });
    const user = await createUser(store, { email: 'athlete@example.com' });
    const grant = await unionGrant(store, user.id, app.id, ['activities:read']);
    const { access_token: token } = await mintAccessToken(keys, { issuer: ISSUER, userId: user.id, applicationId: app.id, grantId: grant.id, scopes: ['activities:read'] });
    const verified = new VerifiedTokens<Principal>();
    const context = { keys, issuer: ISSUER, store, verified };
    const first = await verifyAccessToken(token, context);
    assert.is(verified.size, 1, 'kept after its first verification');
    const second = await verifyAccessToken(token, context);
    assert.equal(second, first, 'the same principal from the kept verification');
    assert.is.not(second, first, 'each request gets its own principal object');
    await store.grants.deleteMany({ id: grant.id, user_id: user.id });
    assert.ok(verified.get(token, Date.now()), 'still kept');
    assert.is(await refusal(verifyAccessToken(token, context)), 'Access token revoked');
  });
});

test('refuses a kept personal token at once when its user is deleted', async () => {
  await withStore(async (store, keys) => {
    const user = await createUser(store, { email: 'athlete@example.com' });
    const { access_token: token } = await mintAccessToken(keys, { issuer: ISSUER, userId: user.id, scopes: ['activities:read'] });
    const context = { keys, issuer: ISSUER, store, verified: new VerifiedTokens<Principal>() };
    assert.is((await verifyAccessToken(token, context)).userId, user.id);
    await store.deleteUser(user.id);
    assert.is(await refusal(verifyAccessToken(token, context)), 'Access token revoked');
  });
});

test('verifies a kept token again once the key that verified it is no longer the one its kid names', async () => {
  await withStore(async (store, keys) => {
    const user = await createUser(store, { email: 'athlete@example.com' });
    const { access_token: token } = await mintAccessToken(keys, { issuer: ISSUER, userId: user.id, scopes: ['activities:read'] });
    const verified = new VerifiedTokens<Principal>();
    const { kid } = keys.current();
    const context = { keys, issuer: ISSUER, store, verified };
    await verifyAccessToken(token, context);
    // Kept under another key (a key ring reloaded since): the token is checked again in full, and kept anew.
    const entry = verified.get(token, Date.now())!;
    const stranger = { ...entry, key: (await generateKeyPair('RS256')).publicKey };
    verified.set(token, stranger);
    assert.is((await verifyAccessToken(token, context)).userId, user.id);
    assert.is(verified.get(token, Date.now())!.kid, kid);
    assert.is.not(verified.get(token, Date.now())!.key, stranger.key);
  });
});

test('drops an entry when its token expires, and the least recently used one past its capacity', () => {
  const principal = (expiresAt: number) => ({ expiresAt } as Principal);
  const verified = new VerifiedTokens<Principal>(2);
  const entry = (expiresAt: number) => ({ principal: principal(expiresAt), kid: 'k', key: {} as never });
  verified.set('a', entry(10_000));
  assert.ok(verified.get('a', 9_999));
  assert.is(verified.get('a', 10_000), undefined, 'not at exp: jose refuses a token from its exp on');
  assert.is(verified.size, 0);
  verified.set('a', entry(10_000));
  verified.set('b', entry(10_000));
  assert.ok(verified.get('a', 0), 'a used last');
  verified.set('c', entry(10_000));
  assert.is(verified.size, 2);
  assert.is(verified.get('b', 0), undefined, 'b was the least recently used');
  assert.ok(verified.get('a', 0));
  assert.ok(verified.get('c', 0));
});

test('refuses a token once it expires although the gateway verified it before (HTTP)', async () => {
  const stack = await startStack();
  try {
    const user = await createUser(stack.store, { email: 'athlete@example.com' });
    const keys = await SigningKeys.open(stack.store);
    const { access_token: token } = await mintAccessToken(keys, { issuer: stack.baseUrl, userId: user.id, scopes: ['activities:read'], lifetimeS: 2 });
    const expiresAt = (Math.floor(Date.now() / 1000) + 2) * 1000;
    assert.is((await stack.get('/api/v1/activities/', token)).status, 200);
    assert.is((await stack.get('/api/v1/activities/', token)).status, 200, 'kept');
    // Poll past its exp (a deadline, not a sleep): refused from then on, with the reason.
    const deadline = expiresAt + 5_000;
    let response = await stack.get('/api/v1/activities/', token);
    while (response.status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      response = await stack.get('/api/v1/activities/', token);
    }
    assert.ok(Date.now() >= expiresAt, 'accepted until its exp');
    assert.is(response.status, 401);
    assert.is(((await response.json()) as { detail: string }).detail, 'Access token expired');
  } finally {
    await stack.close();
  }
});

test.run();
