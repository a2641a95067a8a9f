/**
 * The teams API on the real stack (interface §4 "Teams", gaps.md "Team", "Team users"): listings for the
 * owner, a member and a stranger, with personal, app and delegated tokens; a managed user authorizing and
 * revoking a team through a delegated token; and every delegated token minted through a revoked
 * authorization dying at once. Teams and memberships are written straight into the store here; creating
 * them through the service, the CLI and the pages is tested in test/cli/teams.test.ts and team-pages.test.ts.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, sendJson, validationIssueAt, type JsonClient } from '../support/json-api.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { newId } from '../../storage/ids.js';

let stack: TestStack;
let appId: string;

test.before(async () => {
  stack = await startStack();
  appId = (await createApplication(stack.store, (await stack.userWithToken([])).userId, { name: 'Team app' })).id;
});
test.after(async () => {
  await stack.close();
});

const COACH = ['sharing:read', 'sharing:write', 'activities:read', 'wellness:read', 'reproductive_health:read', 'workouts:read'];
const TEAM_KEYS = ['description', 'id', 'image', 'name', 'privacy_statement', 'role', 'url'];

interface Person { userId: string; token: string; api: JsonClient }

async function person(scopes = COACH, options: { app?: boolean } = {}): Promise<Person> {
  const { userId, token } = await stack.userWithToken(scopes, options.app ? { appId } : {});
  return { userId, token, api: jsonClient(stack, token) };
}

async function team(owner: string, members: string[] = [], name = `Team ${newId()}`): Promise<string> {
  const id = newId();
  const now = Date.now();
  await stack.store.teams.insert({ id, user_id: owner, name, description: 'Coached together', url: 'https://team.example', image: 'https://team.example/logo.png', privacy_statement: 'https://team.example/privacy', created_at: now });
  for (const userId of [owner, ...members]) {
    await stack.store.team_members.insert({ id: newId(), team_id: id, user_id: userId, role: userId === owner ? 'owner' : 'member', created_at: now });
  }
  return id;
}

async function delegated(minting: Person, sub: string, teamId: string | null = null): Promise<JsonClient & { token: string }> {
  const response = await sendJson(stack, 'POST', '/api/v1/oauth/delegated-token', minting.token, { sub, team_id: teamId, scopes: null });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return { ...jsonClient(stack, response.body.access_token), token: response.body.access_token };
}

/** A coach with a managed user and a delegated token for it. */
async function managedSetup(scopes = COACH): Promise<{ coach: Person; managedId: string; junior: JsonClient & { token: string } }> {
  const coach = await person(scopes);
  const managed = await createUser(stack.store, { email: null, first_name: 'Junior', last_name: 'Rider', managed_by: coach.userId });
  return { coach, managedId: managed.id, junior: await delegated(coach, managed.id) };
}

// --- GET /api/v1/teams/ ------------------------------------------------------------------------------

test('lists the teams the caller owns or belongs to, each with its role and every field non-null', async () => {
  const owner = await person();
  const member = await person([], { app: false });
  const memberApp = await person(['sharing:read'], { app: true });
  const stranger = await person();
  const first = await team(owner.userId, [member.userId, memberApp.userId], 'B team');
  const second = await team(member.userId, [], 'A team');
  const owned = (await owner.api.get('/api/v1/teams/')).body as Record<string, unknown>[];
  assert.equal(owned.map((row) => [row.id, row.role]), [[first, 'owner']]);
  assert.equal(Object.keys(owned[0]!).sort(), TEAM_KEYS);
  assert.equal(owned[0], {
    id: first, name: 'B team', description: 'Coached together', url: 'https://team.example', image: 'https://team.example/logo.png', privacy_statement: 'https://team.example/privacy', role: 'owner',
  });
  const memberApi = jsonClient(stack, (await stack.userWithToken(['sharing:read'], { userId: member.userId })).token);
  assert.equal(((await memberApi.get('/api/v1/teams/')).body as Record<string, unknown>[]).map((row) => [row.id, row.role]), [[second, 'owner'], [first, 'member']]);
  assert.equal(((await memberApp.api.get('/api/v1/teams/')).body as Record<string, unknown>[]).map((row) => row.id), [first], 'an app token');
  assert.equal((await stranger.api.get('/api/v1/teams/')).body, []);
});

test('a team stored without description, url, image or privacy statement shows an empty description and the service\'s own addresses, never "" or null', async () => {
  const owner = await person();
  const id = newId();
  await stack.store.teams.insert({ id, user_id: owner.userId, name: 'Bare', description: '', url: '', image: '', privacy_statement: '', created_at: Date.now() });
  const [row] = (await owner.api.get('/api/v1/teams/')).body as Record<string, unknown>[];
  assert.equal(row, {
    id, name: 'Bare', description: '', url: `${stack.baseUrl}/teams/${id}`, image: `${stack.baseUrl}/teams/${id}/image.svg`, privacy_statement: `${stack.baseUrl}/legal/privacy`, role: 'owner',
  });
});

test('the teams listing needs sharing:read, which a delegated token never carries (403 naming it)', async () => {
  const bare = await person(['activities:read']);
  const refused = await bare.api.get('/api/v1/teams/');
  assert.is(refused.status, 403);
  assert.match(refused.headers.get('www-authenticate') ?? '', 'scope="sharing:read"');
  const { junior } = await managedSetup();
  assert.is((await junior.get('/api/v1/teams/')).status, 403);
});

// --- GET /api/v1/teams/{team_id}/users ---------------------------------------------------------------

test('members see who authorized the team with the scopes granted, filtered by name; strangers and unknown ids get the same 404', async () => {
  const owner = await person();
  const member = await person();
  const stranger = await person();
  const teamId = await team(owner.userId, [member.userId]);
  const ann = await createUser(stack.store, { email: `${newId()}@example.com`, first_name: 'Ann', last_name: 'Berg' });
  const bo = await createUser(stack.store, { email: `${newId()}@example.com`, first_name: 'Bo', last_name: null });
  const now = Date.now();
  await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: bo.id, scopes: ['activities:read'], created_at: now, updated_at: now });
  await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: ann.id, scopes: ['wellness:read', 'activities:read'], created_at: now, updated_at: now });
  const listed = (await member.api.get(`/api/v1/teams/${teamId}/users`)).body as Record<string, unknown>[];
  assert.equal(listed, [
    { id: ann.id, first_name: 'Ann', last_name: 'Berg', scopes: ['activities:read', 'wellness:read'], display_name: 'Ann Berg', is_managed: false },
    { id: bo.id, first_name: 'Bo', last_name: null, scopes: ['activities:read'], display_name: 'Bo', is_managed: false },
  ]);
  assert.equal(((await owner.api.get(`/api/v1/teams/${teamId}/users?name=BER`)).body as { id: string }[]).map((row) => row.id), [ann.id]);
  const refused = await stranger.api.get(`/api/v1/teams/${teamId}/users`);
  const unknown = await stranger.api.get(`/api/v1/teams/${newId()}/users`);
  assert.is(refused.status, 404);
  assert.is(unknown.status, 404);
  assert.is(refused.body.detail.replace(teamId, '<id>'), unknown.body.detail.replace(/team \S+$/, 'team <id>'));
  const noScope = await (await person(['activities:read'])).api.get(`/api/v1/teams/${teamId}/users`);
  assert.is(noScope.status, 403);
});

// --- POST/DELETE /api/v1/teams/{team_id}/authorize ---------------------------------------------------

test('a managed user authorizes a team through a delegated token: the answer, the roster and the authorized listing show it', async () => {
  const { managedId, junior } = await managedSetup();
  const teamOwner = await person();
  const teamId = await team(teamOwner.userId);
  const authorized = await junior.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['activities:read', 'profile'] });
  assert.is(authorized.status, 200, JSON.stringify(authorized.body));
  assert.equal(authorized.body, { team_id: teamId, user_id: managedId, scopes: ['activities:read'] });
  const roster = (await teamOwner.api.get(`/api/v1/teams/${teamId}/users`)).body as Record<string, unknown>[];
  assert.equal(roster.map((row) => [row.id, row.is_managed, row.scopes]), [[managedId, true, ['activities:read']]]);
  const listed = (await junior.get('/api/v1/teams/authorized')).body as Record<string, unknown>[];
  assert.equal(listed.map((row) => [row.id, row.scopes]), [[teamId, ['activities:read']]]);
  assert.equal(Object.keys(listed[0]!).sort(), ['description', 'id', 'image', 'name', 'privacy_statement', 'scopes', 'url']);
  // Authorizing again sets the scopes anew.
  const again = await junior.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['data:read'] });
  assert.equal(again.body.scopes, ['activities:read', 'wellness:read', 'reproductive_health:read', 'workouts:read'], 'a retired bundle reads as its data scopes');
  assert.is(await stack.store.team_authorizations.count({ team_id: teamId }), 1);
});

test('authorize refuses a token that is not delegated, a delegated token for someone not managed, and a minting token without sharing:write', async () => {
  const teamId = await team((await person()).userId);
  const ordinary = await person();
  const refused = await ordinary.api.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['activities:read'] });
  assert.is(refused.status, 403);
  assert.match(refused.body.detail, /delegated token/);
  assert.is((await ordinary.api.del(`/api/v1/teams/${teamId}/authorize`)).status, 403);

  // A team member's token for a user who shared with their team, not a managed user.
  const member = await person();
  const sharedTeam = await team(member.userId);
  const sharer = await createUser(stack.store, { email: `${newId()}@example.com` });
  const now = Date.now();
  await stack.store.team_authorizations.insert({ id: newId(), team_id: sharedTeam, user_id: sharer.id, scopes: ['activities:read'], created_at: now, updated_at: now });
  const forSharer = await delegated(member, sharer.id, sharedTeam);
  assert.is((await forSharer.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['activities:read'] })).status, 403);
  assert.is((await forSharer.get('/api/v1/teams/authorized')).status, 403);

  const { junior } = await managedSetup(['sharing:read', 'activities:read']);
  const noWrite = await junior.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['activities:read'] });
  assert.is(noWrite.status, 403);
  assert.match(noWrite.body.detail, 'sharing:write');
  assert.is(await stack.store.team_authorizations.count({ team_id: teamId }), 0);
});

test('authorize refuses an unknown team (404), unknown or never-delegated scopes (422) and scopes beyond the token (403)', async () => {
  const { junior } = await managedSetup(['sharing:read', 'sharing:write', 'activities:read']);
  const teamId = await team((await person()).userId);
  assert.is((await junior.post(`/api/v1/teams/${newId()}/authorize`, { scopes: ['activities:read'] })).status, 404);
  assert.is((await junior.del(`/api/v1/teams/${newId()}/authorize`)).status, 404);
  validationIssueAt(await junior.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['activities:read', 'everything'] }), ['body', 'scopes', 1]);
  validationIssueAt(await junior.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['email'] }), ['body', 'scopes', 0]);
  validationIssueAt(await junior.post(`/api/v1/teams/${teamId}/authorize`, {}), ['body', 'scopes']);
  const beyond = await junior.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['wellness:read'] });
  assert.is(beyond.status, 403);
  assert.match(beyond.body.detail, 'wellness:read');
  assert.is(await stack.store.team_authorizations.count({ team_id: teamId }), 0);
});

test('the authorized listing answers a person their own authorizations with sharing:read', async () => {
  const me = await person();
  const teamId = await team((await person()).userId, [], 'Club');
  const now = Date.now();
  await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: me.userId, scopes: ['workouts:read'], created_at: now, updated_at: now });
  assert.equal(((await me.api.get('/api/v1/teams/authorized')).body as Record<string, unknown>[]).map((row) => [row.name, row.scopes]), [['Club', ['workouts:read']]]);
  const noScope = await (await person(['activities:read'])).api.get('/api/v1/teams/authorized');
  assert.is(noScope.status, 403);
  assert.match(noScope.body.detail, 'sharing:read');
});

test('revoking a team authorization ends every delegated token minted through it at once', async () => {
  const { managedId, junior } = await managedSetup();
  const member = await person(['sharing:read', 'activities:read'], { app: true });
  const teamId = await team(member.userId);
  assert.is((await junior.post(`/api/v1/teams/${teamId}/authorize`, { scopes: ['activities:read'] })).status, 200);
  const throughTeam = await delegated(member, managedId, teamId);
  const unionOfTeams = await delegated(member, managedId);
  assert.is((await throughTeam.get('/api/v1/activities/')).status, 200);
  assert.is((await unionOfTeams.get('/api/v1/activities/')).status, 200);

  const revoked = await junior.del(`/api/v1/teams/${teamId}/authorize`);
  assert.is(revoked.status, 204);
  assert.is((await throughTeam.get('/api/v1/activities/')).status, 401, 'the team token');
  assert.is((await unionOfTeams.get('/api/v1/activities/')).status, 401, 'the token without org, standing on the same authorization');
  assert.equal((await member.api.get(`/api/v1/teams/${teamId}/users`)).body, []);
  assert.equal((await junior.get('/api/v1/teams/authorized')).body, []);
  assert.is((await sendJson(stack, 'POST', '/api/v1/oauth/delegated-token', member.token, { sub: managedId, team_id: teamId, scopes: null })).status, 403, 'no new one either');
  assert.is((await junior.del(`/api/v1/teams/${teamId}/authorize`)).status, 204, 'revoking again changes nothing');
});

test.run();
