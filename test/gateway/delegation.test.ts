/**
 * AUTH.md "Delegation", item by item, on the real stack: who may mint a delegated token, what it carries,
 * how long and on what it lives, what userinfo and the users listing make of it, and the way back through
 * the principal token. Managed users, teams, members and authorizations are written straight into the
 * store; the scope algebra itself is unit-tested in auth/delegation-scopes.test.ts.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { startStack, type TestStack } from '../support/stack.js';
import { activity } from '../storage/records.js';
import { addClientSecret, createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';
import { revokeGrant } from '../../gateway/services/grants.js';
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { SCOPES } from '../../gateway/auth/scopes.js';
import { newId } from '../../storage/ids.js';
import type { ApplicationRecord, UserRecord } from '../../storage/store.js';

interface TokenBody {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string | null;
  scope: string;
}
interface Summary { id: string; first_name: string | null; last_name: string | null; scopes: string[]; display_name: string; is_managed: boolean }

const EVERYTHING = [...SCOPES];
const NEVER = ['email', 'sharing:read', 'sharing:write', 'offline_access'];

let stack: TestStack;
let app: ApplicationRecord;
let keys: SigningKeys;

test.before(async () => {
  stack = await startStack();
  const owner = await createUser(stack.store, { email: 'owner@example.com' });
  app = await createApplication(stack.store, owner.id, { name: 'Coaching app' });
  keys = await SigningKeys.open(stack.store);
});
test.after(async () => {
  await stack.close();
});

/** A coach with an app token carrying `scopes` (their grant holds them too). */
async function coach(scopes: string[]): Promise<{ userId: string; token: string }> {
  return stack.userWithToken(scopes, { appId: app.id });
}

/** The id of the user's grant to the app, which app tokens minted here name. */
async function grantOf(userId: string): Promise<string> {
  return (await stack.store.grants.findOne({ user_id: userId, application_id: app.id }))!.id;
}

async function athlete(names: { first_name?: string; last_name?: string; managed_by?: string } = {}): Promise<UserRecord> {
  const managed = names.managed_by !== undefined;
  return createUser(stack.store, { email: managed ? null : `${newId()}@example.com`, first_name: names.first_name ?? 'Ath', last_name: names.last_name ?? 'Lete', managed_by: names.managed_by ?? null });
}

async function team(members: string[]): Promise<string> {
  const id = newId();
  const now = Date.now();
  await stack.store.teams.insert({ id, user_id: members[0]!, name: `Team ${id}`, description: '', url: '', image: '', privacy_statement: '', created_at: now });
  for (const userId of members) await stack.store.team_members.insert({ id: newId(), team_id: id, user_id: userId, role: userId === members[0] ? 'owner' : 'member', created_at: now });
  return id;
}

async function authorize(teamId: string, userId: string, scopes: string[]): Promise<void> {
  const now = Date.now();
  await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: userId, scopes, created_at: now, updated_at: now });
}

function mint(token: string, body: { sub: string; team_id?: string | null; scopes?: string[] | null }): Promise<Response> {
  return fetch(`${stack.baseUrl}/api/v1/oauth/delegated-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    // Clients send every key, null included.
    body: JSON.stringify({ team_id: null, scopes: null, ...body }),
  });
}

async function minted(token: string, body: Parameters<typeof mint>[1]): Promise<TokenBody> {
  const response = await mint(token, body);
  assert.is(response.status, 200, await response.clone().text());
  return (await response.json()) as TokenBody;
}

async function detail(response: Response): Promise<string> {
  return ((await response.json()) as { detail: string }).detail;
}

async function activityIds(token: string): Promise<number | string[]> {
  const response = await stack.get('/api/v1/activities/', token);
  if (response.status !== 200) return response.status;
  return ((await response.json()) as { id: string }[]).map((row) => row.id);
}

async function withActivity(userId: string): Promise<string> {
  const id = newId();
  await stack.store.activities.insert(activity(id, userId, { app_metadata: {} }));
  return id;
}

// --- who may mint -------------------------------------------------------------------------------------

test('refuses minting without sharing:read, naming the scope', async () => {
  const { userId, token } = await coach(['activities:read']);
  const managed = await athlete({ managed_by: userId });
  const response = await mint(token, { sub: managed.id });
  assert.is(response.status, 403);
  assert.match(response.headers.get('www-authenticate') ?? '', 'scope="sharing:read"');
  assert.match(await detail(response), 'sharing:read');
});

test('refuses a user neither managed nor sharing exactly as it refuses an unknown user', async () => {
  const { token } = await coach(['activities:read', 'sharing:read']);
  const stranger = await athlete();
  const unknown = newId();
  const refused = await mint(token, { sub: stranger.id });
  const missing = await mint(token, { sub: unknown });
  assert.is(refused.status, 403);
  assert.is(missing.status, 403);
  assert.is((await detail(refused)).replace(stranger.id, '<sub>'), (await detail(missing)).replace(unknown, '<sub>'));
});

test('refuses a user managed by someone else', async () => {
  const other = await coach(['sharing:read']);
  const { token } = await coach(['activities:read', 'sharing:read']);
  const managed = await athlete({ managed_by: other.userId });
  assert.is((await mint(token, { sub: managed.id })).status, 403);
});

test('refuses teams the subject never authorized, teams the caller is not in, and unknown teams', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const subject = await athlete();
  const authorized = await team([userId]);
  const notAuthorized = await team([userId]);
  await authorize(authorized, subject.id, ['activities:read']);
  assert.is((await mint(token, { sub: subject.id, team_id: notAuthorized })).status, 403, 'a team the subject never authorized');
  assert.is((await mint(token, { sub: subject.id, team_id: newId() })).status, 403, 'an unknown team');
  const outsider = await coach(['activities:read', 'sharing:read']);
  assert.is((await mint(outsider.token, { sub: subject.id, team_id: authorized })).status, 403, 'a caller outside the team');
  assert.is((await mint(outsider.token, { sub: subject.id })).status, 403, 'a caller outside the team, no team named');
  // A managed user reached through a team still needs that team's authorization.
  const managed = await athlete({ managed_by: userId });
  assert.is((await mint(token, { sub: managed.id, team_id: authorized })).status, 403, 'managed, but never authorized that team');
  assert.is((await mint(token, { sub: subject.id, team_id: authorized })).status, 200);
});

test('refuses chained minting: a delegated token never mints again, even one that carried sharing:read', async () => {
  const { userId, token } = await coach(EVERYTHING);
  const first = await athlete({ managed_by: userId });
  const second = await athlete({ managed_by: userId });
  const delegated = await minted(token, { sub: first.id });
  const response = await mint(delegated.access_token, { sub: second.id });
  assert.is(response.status, 403);
  assert.match(await detail(response), /delegated token/i, 'refused as delegated, before the scope check');
  // A delegated token holding sharing:read (we never issue one) is not even live.
  const forged = await mintAccessToken(keys, {
    issuer: stack.baseUrl, userId: first.id, applicationId: app.id, grantId: await grantOf(userId), scopes: ['sharing:read', 'activities:read'], actorId: userId, mintingScopes: EVERYTHING,
  });
  assert.is((await mint(forged.access_token, { sub: second.id })).status, 401);
});

// --- what it carries ----------------------------------------------------------------------------------

test('a managed user gets the minting token minus email, sharing and offline_access, for 900 s, without org', async () => {
  const { userId, token } = await coach(EVERYTHING);
  const managed = await athlete({ managed_by: userId });
  const body = await minted(token, { sub: managed.id });
  assert.is(body.token_type, 'Bearer');
  assert.is(body.expires_in, 900);
  assert.ok('refresh_token' in body);
  assert.is(body.refresh_token, null);
  const carried = body.scope.split(' ');
  assert.equal(carried, EVERYTHING.filter((scope) => !NEVER.includes(scope)));
  const claims = decodeJwt(body.access_token);
  assert.is(claims.sub, managed.id);
  assert.equal(claims.act, { sub: userId });
  assert.is(claims.exp! - claims.iat!, 900);
  assert.is(claims.aud, app.id);
  assert.is(claims.client_id, app.id);
  assert.is(claims.scope, body.scope);
  assert.is(claims.org, undefined);
});

test('a managed user never gets more than the minting token (openid and profile ride along)', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const managed = await athlete({ managed_by: userId });
  assert.is((await minted(token, { sub: managed.id })).scope, 'activities:read openid profile');
});

test('through a team: the authorization intersected with the minting token, with org = the team id', async () => {
  const { userId, token } = await coach(['activities:read', 'activities:write', 'wellness:read', 'sharing:read', 'email', 'offline_access', 'profile']);
  const subject = await athlete();
  const teamId = await team([userId]);
  await authorize(teamId, subject.id, ['activities:read', 'wellness:read', 'workouts:read', 'email', 'sharing:read', 'offline_access']);
  const body = await minted(token, { sub: subject.id, team_id: teamId });
  assert.is(body.scope, 'activities:read wellness:read openid profile');
  const claims = decodeJwt(body.access_token);
  assert.is(claims.org, teamId);
  assert.equal(claims.act, { sub: userId });
  assert.is(claims.exp! - claims.iat!, 900);
});

test('without team_id a shared user gets the union of their authorizations to the caller\'s teams, and no org', async () => {
  const { userId, token } = await coach(['activities:read', 'wellness:read', 'workouts:read', 'sharing:read']);
  const subject = await athlete();
  const one = await team([userId]);
  const two = await team([userId]);
  const foreign = await team([(await athlete()).id]);
  await authorize(one, subject.id, ['activities:read']);
  await authorize(two, subject.id, ['wellness:read']);
  await authorize(foreign, subject.id, ['workouts:read']);
  const body = await minted(token, { sub: subject.id });
  assert.is(body.scope, 'activities:read wellness:read openid profile');
  assert.is(decodeJwt(body.access_token).org, undefined);
});

test('requested scopes narrow the token; an undelegable one is refused by name, an unknown one is a 422', async () => {
  const { userId, token } = await coach(['activities:read', 'wellness:read', 'sharing:read', 'email']);
  const managed = await athlete({ managed_by: userId });
  assert.is((await minted(token, { sub: managed.id, scopes: ['wellness:read'] })).scope, 'wellness:read openid profile');
  for (const scope of ['email', 'sharing:read', 'workouts:read']) {
    const response = await mint(token, { sub: managed.id, scopes: ['activities:read', scope] });
    assert.is(response.status, 403, scope);
    assert.match(await detail(response), scope);
  }
  const unknown = await mint(token, { sub: managed.id, scopes: ['activities:everything'] });
  assert.is(unknown.status, 422);
  const issues = ((await unknown.json()) as { detail: { loc: (string | number)[] }[] }).detail;
  assert.equal(issues[0]!.loc, ['body', 'scopes', 0]);
});

test('minting for oneself gives a delegated token without email, sharing or offline_access', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read', 'offline_access']);
  const body = await minted(token, { sub: userId });
  assert.is(body.scope, 'activities:read openid profile');
  const claims = decodeJwt(body.access_token);
  assert.is(claims.sub, userId);
  assert.equal(claims.act, { sub: userId });
});

test('a request body without sub is a 422', async () => {
  const { token } = await coach(['sharing:read']);
  const response = await fetch(`${stack.baseUrl}/api/v1/oauth/delegated-token`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ team_id: null, scopes: null }),
  });
  assert.is(response.status, 422);
});

// --- what it reaches and how long it lives ------------------------------------------------------------

test('a managed user\'s token reads their activities, and dies when the managed relation ends', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const managed = await athlete({ managed_by: userId });
  const own = await withActivity(userId);
  const theirs = await withActivity(managed.id);
  const { access_token: delegated } = await minted(token, { sub: managed.id });
  assert.equal(await activityIds(delegated), [theirs]);
  assert.equal(await activityIds(token), [own]);
  await stack.store.users.updateOne({ id: managed.id }, { set: { managed_by: (await athlete()).id } });
  assert.is(await activityIds(delegated), 401);
});

test('a team token reads the subject\'s activities, and dies when the team authorization is deleted', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const subject = await athlete();
  const teamId = await team([userId]);
  await authorize(teamId, subject.id, ['activities:read']);
  const theirs = await withActivity(subject.id);
  const { access_token: withTeam } = await minted(token, { sub: subject.id, team_id: teamId });
  const { access_token: withoutTeam } = await minted(token, { sub: subject.id });
  assert.equal(await activityIds(withTeam), [theirs]);
  assert.equal(await activityIds(withoutTeam), [theirs]);
  await stack.store.team_authorizations.deleteMany({ team_id: teamId, user_id: subject.id });
  assert.is(await activityIds(withTeam), 401);
  assert.is(await activityIds(withoutTeam), 401);
});

test('a team token dies when the caller leaves the team', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const subject = await athlete();
  const teamId = await team([userId]);
  await authorize(teamId, subject.id, ['activities:read']);
  const { access_token: delegated } = await minted(token, { sub: subject.id, team_id: teamId });
  assert.is((await stack.get('/api/v1/activities/', delegated)).status, 200);
  await stack.store.team_members.deleteMany({ team_id: teamId, user_id: userId });
  assert.is((await stack.get('/api/v1/activities/', delegated)).status, 401);
});

test('a team token dies when the subject narrows the authorization below what it carries', async () => {
  const { userId, token } = await coach(['activities:read', 'wellness:read', 'sharing:read']);
  const subject = await athlete();
  const teamId = await team([userId]);
  await authorize(teamId, subject.id, ['activities:read', 'wellness:read']);
  const { access_token: delegated } = await minted(token, { sub: subject.id, team_id: teamId });
  assert.is((await stack.get('/api/v1/activities/', delegated)).status, 200);
  await stack.store.team_authorizations.updateMany({ team_id: teamId, user_id: subject.id }, { set: { scopes: ['activities:read'] } });
  assert.is((await stack.get('/api/v1/activities/', delegated)).status, 401);
});

test('a delegated token dies with the actor\'s grant to the application', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const managed = await athlete({ managed_by: userId });
  const { access_token: delegated } = await minted(token, { sub: managed.id });
  await stack.store.grants.deleteMany({ user_id: userId, application_id: app.id });
  assert.is((await stack.get('/api/v1/activities/', delegated)).status, 401);
});

test('a delegated token minted through a revoked grant stays dead after the actor consents to the application again', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const managed = await athlete({ managed_by: userId });
  const { access_token: delegated } = await minted(token, { sub: managed.id });
  assert.ok(await revokeGrant(stack.store, userId, app.id));
  const { token: renewed } = await stack.userWithToken(['activities:read', 'sharing:read'], { appId: app.id, userId });
  const { access_token: fresh } = await minted(renewed, { sub: managed.id });
  assert.is((await stack.get('/api/v1/activities/', fresh)).status, 200, 'delegated through the new grant');
  assert.is((await stack.get('/api/v1/activities/', delegated)).status, 401, 'delegated through the revoked grant');
  assert.is((await stack.get('/api/v1/oauth/principal-token', delegated)).status, 401, 'nor does it lead back to the actor');
});

test('a delegated token reaches only what it carries (403 naming the scope)', async () => {
  const { userId, token } = await coach(['wellness:read', 'sharing:read']);
  const managed = await athlete({ managed_by: userId });
  const { access_token: delegated } = await minted(token, { sub: managed.id });
  const response = await stack.get('/api/v1/activities/', delegated);
  assert.is(response.status, 403);
  assert.match(await detail(response), 'activities:read');
});

// --- userinfo and the users listing -------------------------------------------------------------------

test('userinfo on a delegated token returns the athlete\'s id and name, never the email', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read', 'openid', 'profile', 'email']);
  const subject = await athlete({ first_name: 'Carla', last_name: 'Climber' });
  const teamId = await team([userId]);
  await authorize(teamId, subject.id, ['activities:read', 'email', 'profile', 'openid']);
  const { access_token: delegated } = await minted(token, { sub: subject.id, team_id: teamId });
  const response = await stack.get('/api/v1/oauth/userinfo', delegated);
  assert.is(response.status, 200, 'GET /api/v1/oauth/userinfo answers a delegated token');
  const body = (await response.json()) as Record<string, unknown>;
  assert.is(body.sub, subject.id);
  assert.is(body.name, 'Carla Climber');
  assert.not.ok('email' in body, 'no email claim');
  assert.not.match(JSON.stringify(body), subject.email!);
});

test('"openid and profile ride with every grant": a delegated token minted without asking for them, from a token without them, gets sub and names on userinfo', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const managed = await athlete({ managed_by: userId, first_name: 'Junior', last_name: 'Rider' });
  const { access_token: delegated, scope } = await minted(token, { sub: managed.id, scopes: ['activities:read'] });
  assert.equal(scope.split(' ').sort(), ['activities:read', 'openid', 'profile']);
  const response = await stack.get('/api/v1/oauth/userinfo', delegated);
  assert.is(response.status, 200);
  assert.equal(await response.json(), {
    sub: managed.id, name: 'Junior Rider', given_name: 'Junior', family_name: 'Rider', registered_at: new Date(managed.registered_at).toISOString(),
  });
  assert.is((await stack.get('/api/v1/oauth/userinfo', token)).status, 403, 'the minting token itself holds no openid');
});

test('userinfo on a delegated token for an athlete without a name shows no part of the email', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read', 'openid', 'profile', 'email']);
  const subject = await createUser(stack.store, { email: 'carla.private.handle@example.com' });
  const teamId = await team([userId]);
  await authorize(teamId, subject.id, ['activities:read', 'email', 'profile', 'openid']);
  const { access_token: delegated } = await minted(token, { sub: subject.id, team_id: teamId });
  const response = await stack.get('/api/v1/oauth/userinfo', delegated);
  assert.is(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  assert.is(body.sub, subject.id);
  assert.type(body.name, 'string');
  assert.not.match(JSON.stringify(body), 'carla.private.handle');
});

test('the users listing refuses a delegated token', async () => {
  const { userId, token } = await coach(EVERYTHING);
  const managed = await athlete({ managed_by: userId });
  const { access_token: delegated } = await minted(token, { sub: managed.id });
  const response = await stack.get('/api/v1/users/', delegated);
  assert.is(response.status, 403);
  assert.match(await detail(response), /delegated token/i, 'refused as delegated, before the scope check');
  // A delegated token holding sharing:read (we never issue one) is not even live.
  const forged = await mintAccessToken(keys, {
    issuer: stack.baseUrl, userId: managed.id, applicationId: app.id, grantId: await grantOf(userId), scopes: ['sharing:read'], actorId: userId, mintingScopes: EVERYTHING,
  });
  assert.is((await stack.get('/api/v1/users/', forged.access_token)).status, 401);
});

test('the users listing needs sharing:read', async () => {
  const { token } = await coach(['activities:read']);
  const response = await stack.get('/api/v1/users/', token);
  assert.is(response.status, 403);
  assert.match(await detail(response), 'sharing:read');
});

test('the users listing shows the caller, managed users and shared users with the scopes they granted', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  await stack.store.users.updateOne({ id: userId }, { set: { first_name: 'Coach', last_name: 'Kim' } });
  const mia = await athlete({ managed_by: userId, first_name: 'Mia', last_name: 'Managed' });
  const sam = await athlete({ first_name: 'Sam', last_name: 'Shared' });
  const stranger = await athlete({ first_name: 'Stan', last_name: 'Stranger' });
  const otherManaged = await athlete({ managed_by: stranger.id, first_name: 'Olga', last_name: 'Other' });
  const one = await team([userId]);
  const two = await team([userId]);
  const foreign = await team([stranger.id]);
  await authorize(one, sam.id, ['activities:read', 'wellness:read']);
  await authorize(two, sam.id, ['workouts:read', 'activities:read']);
  await authorize(foreign, otherManaged.id, ['activities:read']);
  await authorize(one, mia.id, ['activities:read']); // managed: listed once, as managed
  await authorize(one, userId, ['activities:read']); // the caller: listed once, as themself

  const list = async (query = '') => {
    const response = await stack.get(`/api/v1/users/${query}`, token);
    assert.is(response.status, 200);
    return (await response.json()) as Summary[];
  };
  const all = await list();
  assert.equal(all.map((row) => row.id), [userId, mia.id, sam.id]);
  const defaults = ['activities:read', 'activities:write', 'wellness:read', 'wellness:write', 'reproductive_health:read', 'reproductive_health:write', 'workouts:read', 'workouts:write'];
  assert.equal(all[0], { id: userId, first_name: 'Coach', last_name: 'Kim', scopes: defaults, display_name: 'Coach Kim', is_managed: false });
  assert.equal(all[1], { id: mia.id, first_name: 'Mia', last_name: 'Managed', scopes: defaults, display_name: 'Mia Managed', is_managed: true });
  assert.equal(all[2], { id: sam.id, first_name: 'Sam', last_name: 'Shared', scopes: ['activities:read', 'wellness:read', 'workouts:read'], display_name: 'Sam Shared', is_managed: false });

  assert.equal((await list('?include_managed=false')).map((row) => row.id), [userId, sam.id]);
  assert.equal((await list('?include_shared=false')).map((row) => row.id), [userId, mia.id]);
  assert.equal((await list('?include_managed=false&include_shared=0')).map((row) => row.id), [userId]);
  assert.equal((await list('?name=SHAR')).map((row) => row.id), [sam.id]);
  assert.equal((await list('?name=m')).map((row) => row.id), [userId, mia.id, sam.id]);
  assert.is((await stack.get('/api/v1/users/?include_managed=maybe', token)).status, 422);
});

test('the users listing names an unnamed caller by the email local part only under the email scope, and nobody else by theirs', async () => {
  const caller = await createUser(stack.store, { email: 'quiet.rider@example.com' });
  const { token } = await stack.userWithToken(['sharing:read', 'email'], { appId: app.id, userId: caller.id });
  const unnamed = await createUser(stack.store, { email: 'secret.handle@example.com' });
  await authorize(await team([caller.id]), unnamed.id, ['activities:read']);
  const rows = (await (await stack.get('/api/v1/users/', token)).json()) as Summary[];
  assert.equal(rows.map((row) => row.display_name), ['quiet.rider', 'Athlete']);
  assert.not.match(JSON.stringify(rows), 'secret.handle');
  const { token: withoutEmail } = await stack.userWithToken(['sharing:read'], { appId: app.id, userId: caller.id });
  const hidden = (await (await stack.get('/api/v1/users/', withoutEmail)).json()) as Summary[];
  assert.equal(hidden.map((row) => row.display_name), ['Athlete', 'Athlete']);
});

// --- the way back ---------------------------------------------------------------------------------------

test('principal-token from a delegated token returns the actor with at most the minting token\'s scopes', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  await unionGrant(stack.store, userId, app.id, ['wellness:read', 'email', 'offline_access']); // the grant is wider than the token
  const managed = await athlete({ managed_by: userId });
  const { access_token: delegated } = await minted(token, { sub: managed.id });
  const response = await stack.get('/api/v1/oauth/principal-token', delegated);
  assert.is(response.status, 200);
  const body = (await response.json()) as TokenBody;
  assert.ok('refresh_token' in body);
  assert.is(body.refresh_token, null);
  assert.is(body.token_type, 'Bearer');
  assert.is(body.expires_in, 900);
  assert.is(body.scope, 'activities:read sharing:read');
  const claims = decodeJwt(body.access_token);
  assert.is(claims.sub, userId);
  assert.is(claims.act, undefined);
  assert.is(claims.org, undefined);
  assert.is(claims.aud, app.id);
  assert.is(claims.scope, 'activities:read sharing:read');
  assert.is((await stack.get('/api/v1/users/', body.access_token)).status, 200, 'the principal token is a normal token again');
});

test('principal-token from a team-delegated token drops the org and returns the actor', async () => {
  const { userId, token } = await coach(['activities:read', 'sharing:read']);
  const subject = await athlete();
  const teamId = await team([userId]);
  await authorize(teamId, subject.id, ['activities:read']);
  const { access_token: delegated } = await minted(token, { sub: subject.id, team_id: teamId });
  const body = (await (await stack.get('/api/v1/oauth/principal-token', delegated)).json()) as TokenBody;
  const claims = decodeJwt(body.access_token);
  assert.is(claims.sub, userId);
  assert.is(claims.org, undefined);
  assert.is(body.scope, 'activities:read sharing:read');
});

test('principal-token from a normal token keeps the scopes, the application and the client-secret binding', async () => {
  const { userId } = await coach(['activities:read', 'sharing:read']);
  const { record: secret } = await addClientSecret(stack.store, app, 'server');
  const original = await mintAccessToken(keys, {
    issuer: stack.baseUrl, userId, applicationId: app.id, grantId: await grantOf(userId), clientSecretId: secret.id, scopes: ['activities:read', 'sharing:read'],
  });
  const response = await stack.get('/api/v1/oauth/principal-token', original.access_token);
  assert.is(response.status, 200);
  const body = (await response.json()) as TokenBody;
  assert.is(body.refresh_token, null);
  assert.is(body.scope, 'activities:read sharing:read');
  const claims = decodeJwt(body.access_token);
  assert.is(claims.sub, userId);
  assert.is(claims.aud, app.id);
  assert.is(claims.cs, secret.id);
  assert.is(claims.exp! - claims.iat!, 900);
  // The binding is real: the delegated token and the principal token both end with the secret.
  const managed = await athlete({ managed_by: userId });
  const delegated = await minted(original.access_token, { sub: managed.id });
  assert.is(decodeJwt(delegated.access_token).cs, secret.id);
  await stack.store.client_secrets.deleteMany({ id: secret.id });
  assert.is((await stack.get('/api/v1/activities/', body.access_token)).status, 401);
  assert.is((await stack.get('/api/v1/activities/', delegated.access_token)).status, 401);
});

test('principal-token needs a valid token and no scope', async () => {
  const { token } = await coach([]);
  const response = await stack.get('/api/v1/oauth/principal-token', token);
  assert.is(response.status, 200);
  assert.is(((await response.json()) as TokenBody).scope, '');
  assert.is((await stack.get('/api/v1/oauth/principal-token')).status, 401);
});

test('principal-token refuses a delegated token that does not record its minting token', async () => {
  const { userId } = await coach(['activities:read', 'sharing:read']);
  const managed = await athlete({ managed_by: userId });
  const bare = await mintAccessToken(keys, { issuer: stack.baseUrl, userId: managed.id, applicationId: app.id, grantId: await grantOf(userId), scopes: ['activities:read'], actorId: userId });
  assert.is((await stack.get('/api/v1/oauth/principal-token', bare.access_token)).status, 403);
});

test.run();
