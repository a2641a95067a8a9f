/**
 * GET /api/v1/profile/status on the real stack (interface §2 "Account status"; gaps.md): what an app
 * token, a personal token and a delegated token each get, from what the user connected (connections are
 * written straight into the store until the integrations land), uploaded and entered, what the token
 * carries and what the application declares. The rules themselves are tabled in
 * test/domain/account-status.test.ts; this file proves the facts reach them.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sendJson } from '../support/json-api.js';
import { csvActivity, upload } from '../support/uploads.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { newId } from '../../storage/ids.js';
import type { ApplicationRecord, ConnectionRecord } from '../../storage/store.js';

let stack: TestStack;
let app: ApplicationRecord;

test.before(async () => {
  stack = await startStack();
  const owner = await createUser(stack.store, { email: 'status-owner@example.com' });
  app = await createApplication(stack.store, owner.id, { name: 'Status app' });
});
test.after(async () => {
  await stack.close();
});

async function status(token: string): Promise<any> {
  const response = await sendJson(stack, 'GET', '/api/v1/profile/status', token);
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body;
}

async function connect(userId: string, over: Partial<ConnectionRecord> = {}): Promise<void> {
  const now = Date.now();
  await stack.store.connections.insert({
    id: newId(), user_id: userId, provider: 'garmin_connect', external_user_id: null, credentials: {}, status: 'connected',
    backfill_loaded_until: null, backfill_done: true, created_at: now, updated_at: now, ...over,
  });
}

test('an app token of a new user: every capability key, and no_source_connected pointing at the portal', async () => {
  // No provider is configured on this server: dailies and workouts have no possible source.
  const { token } = await stack.userWithToken(['activities:read', 'wellness:read', 'workouts:write'], { appId: app.id });
  const body = await status(token);
  assert.equal(Object.keys(body).sort(), ['capabilities', 'issue']);
  assert.equal(body.capabilities, { activities: 'action_required', activity_history: 'action_required', dailies: 'unavailable', workouts: 'unavailable' });
  assert.equal(body.issue.code, 'no_source_connected');
  assert.is(body.issue.status, 'action_required');
  assert.is(body.issue.destination, 'manage-integrations');
  assert.type(body.issue.message, 'string');
});

test('an uploaded file is a source: the default declaration then has nothing to tell', async () => {
  const { userId, token } = await stack.userWithToken(['activities:read', 'activities:write'], { appId: app.id });
  const response = await upload(stack, token, [{ name: 'ride.csv', bytes: csvActivity() }]);
  assert.is(response.status, 202);
  const body = await status(token);
  assert.is(body.issue, null);
  assert.is(body.capabilities.activities, 'ready');
  assert.is(body.capabilities.activity_history, 'ready');
  assert.ok(await stack.store.sources.findOne({ user_id: userId }));
});

test('a connection still loading its history: activity_history syncing, sync_pending', async () => {
  const { userId, token } = await stack.userWithToken(['activities:read'], { appId: app.id });
  await connect(userId, { backfill_done: false });
  const body = await status(token);
  assert.is(body.capabilities.activities, 'ready');
  assert.is(body.capabilities.activity_history, 'syncing');
  assert.equal(body.issue, { code: 'sync_pending', status: 'syncing', message: body.issue.message, destination: 'manage-integrations' });
});

test('a connection that needs the user upstream: activities_blocked_upstream', async () => {
  const { userId, token } = await stack.userWithToken(['activities:read'], { appId: app.id });
  await connect(userId, { status: 'action_required' });
  assert.is((await status(token)).issue.code, 'activities_blocked_upstream');
});

test('a token without activities:read: activities_not_granted, with no destination (only the app can ask again)', async () => {
  const { userId, token } = await stack.userWithToken(['wellness:read'], { appId: app.id });
  await connect(userId);
  const body = await status(token);
  assert.equal(body.issue, { code: 'activities_not_granted', status: 'action_required', message: body.issue.message, destination: null });
  assert.is(body.capabilities.dailies, 'ready');
});

test('issues follow the application\'s declared capabilities', async () => {
  const owner = await createUser(stack.store, { email: `${newId()}@example.com` });
  const declaring = await createApplication(stack.store, owner.id, { name: 'Dailies app' });
  await stack.store.applications.updateOne({ id: declaring.id }, { set: { capabilities: ['dailies'] } });
  const { userId, token } = await stack.userWithToken(['activities:read'], { appId: declaring.id });
  // No source of activities at all, yet the app declared only dailies: the issue is about dailies.
  assert.is((await status(token)).issue.code, 'dailies_not_granted');
  const granted = await stack.userWithToken(['activities:read', 'wellness:read'], { appId: declaring.id, userId });
  assert.is((await status(granted.token)).issue, null, 'dailies unavailable on a server without providers: nothing to do');
  await sendJson(stack, 'POST', '/api/v1/dailies/body_mass', (await stack.userWithToken(['wellness:write'], { userId })).token, { date: '2024-05-01', value: 70 });
  assert.is((await status(granted.token)).capabilities.dailies, 'ready', 'a value entered through the API is a source');
});

test('a personal token gets the default declaration and no destination (it cannot open a portal session)', async () => {
  const { token } = await stack.userWithToken(['activities:read']);
  const body = await status(token);
  assert.is(body.issue.code, 'no_source_connected');
  assert.is(body.issue.destination, null);
});

test('a delegated token gets the status of the user it acts for, never a destination', async () => {
  const coach = await stack.userWithToken(['activities:read', 'sharing:read'], { appId: app.id });
  const athlete = await createUser(stack.store, { email: null, first_name: 'Managed', managed_by: coach.userId });
  await connect(athlete.id, { backfill_done: false });
  const minted = await sendJson(stack, 'POST', '/api/v1/oauth/delegated-token', coach.token, { sub: athlete.id, team_id: null, scopes: null });
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  const body = await status(minted.body.access_token);
  assert.is(body.capabilities.activity_history, 'syncing', 'the athlete\'s connection, not the coach\'s');
  assert.equal([body.issue.code, body.issue.destination], ['sync_pending', null]);
  assert.is((await status(coach.token)).issue.code, 'no_source_connected', 'the coach has nothing connected');
});

test('needs a token (401) but no scope', async () => {
  const response = await stack.get('/api/v1/profile/status');
  assert.is(response.status, 401);
  const { token } = await stack.userWithToken([], { appId: app.id });
  const body = await status(token);
  assert.is(body.issue.code, 'activities_not_granted');
});

test.run();
