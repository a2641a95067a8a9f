/**
 * auth/issuances.ts on a real store: a replay racing the first exchange leaves no refresh token in
 * either interleaving, concurrent revocations on one grant all land, and old entries are dropped.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { openStore } from '../../../storage/open-store.js';
import type { Store } from '../../../storage/store.js';
import { issueCode, redeemCode } from '../../../gateway/auth/authorization-codes.js';
import { issueRefreshToken } from '../../../gateway/auth/refresh-tokens.js';
import { isRevokedIssuance, issuanceStillLive, REVOKED_ISSUANCE_KEPT_MS, revokeIssuance } from '../../../gateway/auth/issuances.js';
import { createUser, unionGrant } from '../../../gateway/services/accounts.js';

async function withStore(run: (store: Store) => Promise<void>): Promise<void> {
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  try {
    await run(store);
  } finally {
    await store.close();
  }
}

/** A redeemed code, as the winning exchange holds it right after its conditional write. */
async function redeemed(store: Store): Promise<{ grantId: string; issuanceId: string; userId: string }> {
  const user = await createUser(store, { email: `${Math.random().toString(36).slice(2)}@example.com` });
  const grant = await unionGrant(store, user.id, 'app-1', ['activities:read']);
  const code = await issueCode(store, {
    userId: user.id, applicationId: 'app-1', grantId: grant.id, redirectUri: 'https://app.example.com/cb', scopes: ['activities:read'],
    codeChallenge: null, nonce: null, authTime: Date.now(),
  });
  const won = await redeemCode(store, code);
  assert.type(won?.issuance_id, 'string', 'the winning write gives the code its issuance');
  return { grantId: grant.id, issuanceId: won!.issuance_id!, userId: user.id };
}

function refreshTokenOf(store: Store, issued: { grantId: string; issuanceId: string; userId: string }): Promise<string> {
  return issueRefreshToken(store, {
    userId: issued.userId, applicationId: 'app-1', grantId: issued.grantId, clientSecretId: 'secret-1', scopes: ['activities:read'],
    authTime: Date.now(), issuanceId: issued.issuanceId,
  });
}

test('a replay that lands before the winner stores its refresh token: the winner sees it and deletes its own', () => withStore(async (store) => {
  const issued = await redeemed(store);
  await revokeIssuance(store, issued.grantId, issued.issuanceId);
  await refreshTokenOf(store, issued);
  assert.is(await issuanceStillLive(store, issued.grantId, issued.issuanceId), false);
  assert.is(await store.refresh_tokens.count({ grant_id: issued.grantId }), 0);
}));

test('a replay that lands after the winner stored its refresh token deletes it', () => withStore(async (store) => {
  const issued = await redeemed(store);
  await refreshTokenOf(store, issued);
  assert.is(await issuanceStillLive(store, issued.grantId, issued.issuanceId), true);
  await revokeIssuance(store, issued.grantId, issued.issuanceId);
  assert.is(await store.refresh_tokens.count({ grant_id: issued.grantId }), 0);
  assert.ok(isRevokedIssuance((await store.grants.get(issued.grantId))!, issued.issuanceId));
}));

test('revokes only the replayed issuance: other refresh tokens of the grant stay', () => withStore(async (store) => {
  const issued = await redeemed(store);
  await refreshTokenOf(store, issued);
  const sibling = { ...issued, issuanceId: 'another-issuance' };
  await refreshTokenOf(store, sibling);
  await revokeIssuance(store, issued.grantId, issued.issuanceId);
  assert.equal((await store.refresh_tokens.find({ grant_id: issued.grantId })).map((token) => token.issuance_id), ['another-issuance']);
  assert.not.ok(isRevokedIssuance((await store.grants.get(issued.grantId))!, 'another-issuance'));
}));

test('concurrent revocations on one grant all land (conditional writes, retried), and repeating one changes nothing', () => withStore(async (store) => {
  const issued = await redeemed(store);
  const ids = Array.from({ length: 8 }, (_, index) => `issuance-${index}`);
  await Promise.all([...ids, ...ids].map((id) => revokeIssuance(store, issued.grantId, id)));
  const grant = (await store.grants.get(issued.grantId))!;
  assert.equal(grant.revoked_issuances!.map((entry) => entry.id).sort(), ids);
  assert.is(grant.revocations, ids.length);
  assert.equal(grant.scopes, ['activities:read'], 'the grant itself is untouched');
}));

test('drops a revoked issuance once every access token carrying it has expired', () => withStore(async (store) => {
  const issued = await redeemed(store);
  const then = Date.now() - REVOKED_ISSUANCE_KEPT_MS - 1;
  await revokeIssuance(store, issued.grantId, 'old-issuance', then);
  await revokeIssuance(store, issued.grantId, issued.issuanceId);
  const grant = (await store.grants.get(issued.grantId))!;
  assert.equal(grant.revoked_issuances!.map((entry) => entry.id), [issued.issuanceId]);
}));

test('revoking on a grant that is gone deletes the refresh tokens and nothing else', () => withStore(async (store) => {
  const issued = await redeemed(store);
  await refreshTokenOf(store, issued);
  await store.grants.deleteMany({ id: issued.grantId });
  await revokeIssuance(store, issued.grantId, issued.issuanceId);
  assert.is(await store.refresh_tokens.count({ grant_id: issued.grantId }), 0);
}));

test.run();
