/** Scope reading, legacy bundles, the set algebra and the consent lines (interface §5 "Scopes", "Consent"). */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import {
  PURPOSE_CATEGORIES, SCOPES, SCOPE_CATEGORIES, categoryOf, consentLines, intersectScopes, isSubset, parseScopeRequest,
  sortScopes, subtractScopes, unionScopes, withIdentity, type Scope,
} from '../../../gateway/auth/scopes.js';

const NEW_APP = { legacyAllowed: false };
const LEGACY_APP = { legacyAllowed: true };

function scopesOf(text: string, options = NEW_APP): Scope[] {
  const result = parseScopeRequest(text, options);
  if ('error' in result) throw new Error(`unexpected ${result.error}: ${result.description}`);
  return result.scopes;
}

function errorOf(text: string, options = NEW_APP): string {
  const result = parseScopeRequest(text, options);
  if (!('error' in result)) throw new Error(`expected invalid_scope for ${text}, got ${result.scopes.join(' ')}`);
  assert.is(result.error, 'invalid_scope');
  return result.description;
}

// ---- Reading a request ----

test('reads scopes separated by spaces, commas or both', () => {
  assert.equal(scopesOf('activities:read workouts:write'), ['activities:read', 'workouts:write']);
  assert.equal(scopesOf('activities:read,workouts:write'), ['activities:read', 'workouts:write']);
  assert.equal(scopesOf(' activities:read , workouts:write,,  email\t'), ['activities:read', 'workouts:write', 'email']);
});

test('drops duplicates and returns the scopes in SCOPES order', () => {
  assert.equal(scopesOf('offline_access email activities:read email activities:read'), ['activities:read', 'email', 'offline_access']);
  assert.equal(scopesOf([...SCOPES].reverse().join(' ')), [...SCOPES]);
});

test('reads profile without a bundle as the name only', () => {
  assert.equal(scopesOf('profile'), ['profile']);
  assert.equal(scopesOf('profile', LEGACY_APP), ['profile']);
  assert.equal(scopesOf('activities:read profile', LEGACY_APP), ['activities:read', 'profile']);
});

test('refuses an unknown scope and names it', () => {
  assert.is(errorOf('activities:read activities:admin'), 'unknown scope activities:admin');
  assert.is(errorOf('Activities:read'), 'unknown scope Activities:read');
  assert.is(errorOf('data'), 'unknown scope data');
  assert.is(errorOf('constructor'), 'unknown scope constructor');
  assert.is(errorOf('<script>'), 'unknown scope <script>', 'the caller escapes');
});

test('shortens a very long unknown scope name in the description', () => {
  const description = errorOf(`x${'a'.repeat(5000)}`);
  assert.ok(description.length < 100, description);
  assert.ok(description.startsWith('unknown scope xaaa'));
});

test('refuses an empty scope request', () => {
  for (const text of ['', ' ', ',', ' , ,\t']) assert.type(errorOf(text), 'string');
});

test('expands legacy bundles for an application registered before the scope release', () => {
  assert.equal(scopesOf('data:read', LEGACY_APP), ['activities:read', 'wellness:read', 'reproductive_health:read', 'workouts:read', 'sharing:read']);
  assert.equal(scopesOf('data:write', LEGACY_APP), ['activities:write', 'wellness:write', 'reproductive_health:write', 'workouts:write', 'sharing:write']);
  // "profile together with a bundle | openid profile email sharing:read sharing:write"
  assert.equal(scopesOf('profile data:write', LEGACY_APP), [
    'activities:write', 'wellness:write', 'reproductive_health:write', 'workouts:write', 'sharing:read', 'sharing:write', 'openid', 'profile', 'email',
  ]);
});

test('reads the official client default data:read data:write profile offline_access as every scope', () => {
  assert.equal(scopesOf('data:read data:write profile offline_access', LEGACY_APP), [...SCOPES]);
  assert.equal(scopesOf('data:read,data:write,profile', LEGACY_APP), SCOPES.filter((scope) => scope !== 'offline_access'));
});

test('refuses a legacy bundle from an application registered after the scope release', () => {
  assert.is(errorOf('data:read'), 'retired scope bundle data:read; request the scopes it stood for');
  assert.is(errorOf('activities:read data:write'), 'retired scope bundle data:write; request the scopes it stood for');
  assert.is(errorOf('profile data:read'), 'retired scope bundle data:read; request the scopes it stood for');
});

test('does not read a bundle name in another case as a bundle', () => {
  assert.is(errorOf('DATA:READ', LEGACY_APP), 'unknown scope DATA:READ');
});

// ---- Set algebra ----

test('adds openid and profile to every grant', () => {
  assert.equal(withIdentity(['activities:read']), ['activities:read', 'openid', 'profile']);
  assert.equal(withIdentity([]), ['openid', 'profile']);
  assert.equal(withIdentity(['offline_access', 'profile', 'openid', 'email']), ['openid', 'profile', 'email', 'offline_access']);
});

test('unions, intersects and subtracts scope lists in SCOPES order without duplicates', () => {
  assert.equal(unionScopes(['email', 'activities:read'], ['activities:read', 'workouts:read']), ['activities:read', 'workouts:read', 'email']);
  assert.equal(intersectScopes(['email', 'activities:read', 'sharing:read'], ['sharing:read', 'activities:read']), ['activities:read', 'sharing:read']);
  assert.equal(subtractScopes(['email', 'activities:read', 'sharing:read', 'offline_access'], ['email', 'sharing:read', 'sharing:write', 'offline_access']), ['activities:read']);
  assert.equal(sortScopes(['profile', 'activities:write', 'profile', 'activities:read']), ['activities:read', 'activities:write', 'profile']);
});

test('tells whether one scope list is contained in another', () => {
  assert.ok(isSubset(['activities:read'], ['activities:read', 'email']));
  assert.ok(isSubset([], []));
  assert.ok(isSubset(['email', 'email'], ['email']));
  assert.not.ok(isSubset(['activities:read', 'activities:write'], ['activities:read']));
  assert.not.ok(isSubset(['reproductive_health:read'], ['wellness:read']), 'wellness neither needs nor implies reproductive health');
});

// ---- Consent ----

test('puts every scope in a consent category', () => {
  assert.equal(SCOPES.map(categoryOf), [
    'activities', 'activities', 'wellness', 'wellness', 'reproductive_health', 'reproductive_health', 'workouts', 'workouts',
    'sharing', 'sharing', 'openid', 'profile', 'email', 'offline_access',
  ]);
  for (const scope of SCOPES) assert.ok((SCOPE_CATEGORIES as readonly string[]).includes(categoryOf(scope)), scope);
});

test('asks for a purpose for every category except openid, profile and offline_access', () => {
  assert.equal([...PURPOSE_CATEGORIES].sort(), ['activities', 'email', 'reproductive_health', 'sharing', 'wellness', 'workouts']);
});

test('shows one consent line per requested category, in a stable order', () => {
  const lines = consentLines([...SCOPES].reverse());
  assert.equal(lines.map((line) => line.category), [...SCOPE_CATEGORIES]);
  assert.equal(consentLines(['activities:read', 'activities:write']).length, 1);
  assert.equal(consentLines([]), []);
  assert.equal(consentLines(['email', 'activities:read']).map((line) => line.category), ['activities', 'email']);
});

test('words a category by what is granted: read, read and write, or write only', () => {
  const detail = (scopes: Scope[]) => consentLines(scopes)[0]!.detail;
  assert.match(detail(['activities:read']), /^Read your activities, tests, traces and the analyses derived from them/);
  assert.not.match(detail(['activities:read']), /delete/);
  assert.match(detail(['activities:read', 'activities:write']), /and add, change or delete them/);
  assert.match(detail(['activities:write']), /^Add, change or delete your activities/);
  assert.not.match(detail(['activities:write']), /^Read/);
  for (const category of ['wellness', 'reproductive_health', 'workouts', 'sharing'] as const) {
    const read = detail([`${category}:read`]);
    const both = detail([`${category}:read`, `${category}:write`]);
    const write = detail([`${category}:write`]);
    assert.ok(new Set([read, both, write]).size === 3, category);
    assert.match(read, /^(Read|See)/, category);
    assert.not.match(write, /^(Read|See)/, category);
  }
});

test('tells the person what activities:read reveals and keeps wellness apart from the cycle day', () => {
  const [activities, wellness, cycle] = consentLines(['activities:read', 'wellness:read', 'reproductive_health:read']);
  assert.match(activities!.detail, /body mass and resting heart rate/);
  assert.match(wellness!.detail, /Not your menstrual cycle/);
  assert.is(cycle!.title, 'Your menstrual cycle day');
});

test('titles the identity lines plainly', () => {
  assert.equal(consentLines(['openid', 'profile', 'email', 'offline_access']).map((line) => line.title), [
    'Your email address', 'Your Threshold account id', 'Your name', 'Stay connected when you are not using the app',
  ]);
  assert.is(consentLines(['sharing:read'])[0]!.title, 'People and teams you share with');
  assert.is(consentLines(['activities:write'])[0]!.title, 'Your activities');
});

test('writes consent lines as plain sentences without markup', () => {
  for (const line of consentLines([...SCOPES])) {
    assert.ok(line.title.length > 0 && line.detail.length > 0, line.category);
    assert.not.match(line.title + line.detail, /[<>&"]/, line.category);
    assert.match(line.detail, /\.$/, line.category);
  }
});

test.run();
