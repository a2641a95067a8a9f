/** AUTH.md "scope algebra", the delegated part: what a delegated token may carry, as pure functions. */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { delegableScopes, narrowToRequested, NEVER_DELEGATED } from '../../../gateway/auth/delegation.js';
import { SCOPES } from '../../../gateway/auth/scopes.js';

const EVERYTHING = [...SCOPES];
const DATA = ['activities:read', 'activities:write', 'wellness:read', 'wellness:write', 'reproductive_health:read', 'reproductive_health:write', 'workouts:read', 'workouts:write'];

test('a managed account gets the minting token minus email, sharing and offline_access', () => {
  assert.equal(delegableScopes(EVERYTHING, { kind: 'managed' }), [...DATA, 'openid', 'profile']);
});

test('oneself is delegated like a managed account', () => {
  assert.equal(delegableScopes(['activities:read', 'sharing:read', 'email'], { kind: 'self' }), ['activities:read', 'openid', 'profile']);
});

test('a team authorization gets the grant intersected with the minting token', () => {
  const basis = { kind: 'team' as const, teamIds: ['t1'], granted: ['activities:read', 'wellness:read', 'workouts:read'] };
  assert.equal(delegableScopes(['activities:read', 'activities:write', 'wellness:read', 'sharing:read'], basis), ['activities:read', 'wellness:read', 'openid', 'profile']);
});

test('never carries more than the minting token, whatever the subject granted', () => {
  const basis = { kind: 'team' as const, teamIds: ['t1'], granted: EVERYTHING };
  const minting = ['activities:read', 'sharing:read'];
  const carried = delegableScopes(minting, basis).filter((scope) => scope !== 'openid' && scope !== 'profile');
  assert.equal(carried, ['activities:read']);
});

test('never carries email, sharing or offline_access, even when both sides hold them', () => {
  for (const basis of [{ kind: 'managed' as const }, { kind: 'self' as const }, { kind: 'team' as const, teamIds: ['t1'], granted: EVERYTHING }]) {
    const carried = delegableScopes(EVERYTHING, basis);
    for (const scope of NEVER_DELEGATED) assert.not.ok(carried.includes(scope), `${basis.kind} carries ${scope}`);
  }
  assert.equal([...NEVER_DELEGATED].sort(), ['email', 'offline_access', 'sharing:read', 'sharing:write']);
  assert.ok(SCOPES.filter((scope) => scope.startsWith('sharing')).every((scope) => NEVER_DELEGATED.includes(scope)), 'every sharing scope');
});

test('openid and profile ride along even when the minting token lacks them', () => {
  assert.equal(delegableScopes(['sharing:read'], { kind: 'managed' }), ['openid', 'profile']);
  assert.equal(delegableScopes(['sharing:read', 'activities:read'], { kind: 'team', teamIds: ['t1'], granted: ['wellness:read'] }), ['openid', 'profile']);
});

test('drops names that are not scopes on either side', () => {
  assert.equal(delegableScopes(['activities:read', 'data:read'], { kind: 'managed' }), ['activities:read', 'openid', 'profile']);
});

test('orders the result as the scope table, whatever the input order', () => {
  assert.equal(delegableScopes(['workouts:read', 'profile', 'activities:read'], { kind: 'team', teamIds: ['t1'], granted: ['workouts:read', 'activities:read'] }), ['activities:read', 'workouts:read', 'openid', 'profile']);
});

test('narrowing: absent requests take every delegable scope', () => {
  assert.equal(narrowToRequested(['activities:read', 'openid', 'profile'], null), { ok: true, scopes: ['activities:read', 'openid', 'profile'] });
  assert.equal(narrowToRequested(['activities:read', 'openid', 'profile'], undefined), { ok: true, scopes: ['activities:read', 'openid', 'profile'] });
});

test('narrowing: requested scopes narrow, and openid and profile still ride along', () => {
  const delegable = ['activities:read', 'wellness:read', 'openid', 'profile'];
  assert.equal(narrowToRequested(delegable, ['wellness:read']), { ok: true, scopes: ['wellness:read', 'openid', 'profile'] });
  assert.equal(narrowToRequested(delegable, []), { ok: true, scopes: ['openid', 'profile'] });
});

test('narrowing: refuses a requested scope outside the delegable set by name', () => {
  const delegable = ['activities:read', 'openid', 'profile'];
  assert.equal(narrowToRequested(delegable, ['activities:read', 'wellness:read']), { ok: false, refused: 'wellness:read' });
  assert.equal(narrowToRequested(delegable, ['email']), { ok: false, refused: 'email' });
  assert.equal(narrowToRequested(delegable, ['sharing:read']), { ok: false, refused: 'sharing:read' });
});

test.run();
