/**
 * intervals.icu end to end on the real stack against its stand-in (test/support/standins/intervals-icu.ts):
 * connecting from the portal and from authorize's `integration`, tokens sealed at rest, the backfill
 * newest first through the upload path (Strava stubs and gone files skipped, 500s and 429s with and
 * without Retry-After survived), account status syncing → ready, pushes (secret, duplicates), wellness as
 * dailies without overwriting a manual value, deauthorization, and disconnect with revoke.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { startIntervalsIcuStandin, type IntervalsIcuStandin, type StandinActivity } from '../support/standins/intervals-icu.js';
import { connectThroughPortal, followProvider, ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { fitActivity } from '../support/fit-writer.js';
import { csrfFrom, locationOf, signIn } from '../support/browser-session.js';
import { pkcePair } from '../support/oauth.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { upsertDaily } from '../../storage/dailies.js';
import type { ApplicationRecord, ConnectionRecord } from '../../storage/store.js';

let stack: TestStack;
let standin: IntervalsIcuStandin;
let app: ApplicationRecord;

const HOUR = 3_600_000;
const BASE = Date.UTC(2025, 5, 1, 6);

function activity(index: number, options: Partial<StandinActivity> = {}): StandinActivity {
  const start = BASE - index * 24 * HOUR;
  return { id: `i${1000 + index}`, start, file: fitActivity({ start, seconds: 120, power: 150 + index }), ...options };
}

test.before(async () => {
  standin = await startIntervalsIcuStandin({
    clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, webhookSecret: ICU_CLIENT.webhookSecret,
    grantedScope: 'ACTIVITY:READ,WELLNESS:READ', // narrower than asked: the user unticked CALENDAR:WRITE
    rateLimit: { requests: 6, windowMs: 1000, retryAfter: true },
  });
  stack = await startStack({ ...intervalsIcuEnv(standin), JOB_POLL_MS: '20', INTEGRATION_PAGE_SIZE: '4', BACKFILL_STATUS_INTERVAL_MS: '20', BACKFILL_STATUS_DURATION_MS: '400' });
  const owner = await createUser(stack.store, { email: 'icu-owner@example.com' });
  app = await createApplication(stack.store, owner.id, { name: 'Pacer', redirect_uris: ['https://pacer.example.com/cb'] });
});
test.after(async () => {
  await stack.close();
  await standin.close();
});

async function connection(userId: string): Promise<ConnectionRecord | null> {
  return stack.store.connections.findOne({ user_id: userId, provider: 'intervals_icu' });
}

async function sourcesOf(userId: string) {
  return stack.store.sources.find({ user_id: userId }, { sort: { created_at: 1 } });
}

test('connecting from the portal stores sealed tokens and backfills newest first, skipping stubs and gone files', async () => {
  standin.activities.push(...Array.from({ length: 9 }, (_, i) => activity(i)));
  standin.activities.push(activity(20, { file: null })); // a Strava stub: no file
  standin.activities.push(activity(21));
  standin.failDownload('i1021', 404);
  standin.failNext(/\/activity\/i1003\/file$/, 500); // one 500, then served
  const user = await stack.userWithToken(['activities:read'], { appId: app.id });
  const before = await (await stack.get('/api/v1/profile/status', user.token)).json() as { capabilities: Record<string, string> };
  assert.is(before.capabilities.activities, 'action_required', 'nothing connected yet');

  const { landing } = await connectThroughPortal(stack.baseUrl, user.token);
  assert.is(landing, '/portal/manage-integrations?notice=connected');
  const stored = (await connection(user.userId))!;
  assert.is(stored.external_user_id, 'i1001');
  assert.not.match(JSON.stringify(stored.credentials), /access_token/, 'tokens are stored sealed only');

  const done = await until('backfill done', async () => ((await connection(user.userId))?.backfill_done ? true : undefined));
  assert.ok(done);
  const sources = await sourcesOf(user.userId);
  assert.equal(sources.map((source) => source.external_id), Array.from({ length: 9 }, (_, i) => `intervals_icu:i${1000 + i}`), 'newest first, each once, stub and 404 skipped');
  assert.ok(sources.every((source) => source.origin === 'intervals_icu'));
  const listings = standin.requests.filter((request) => request.path.endsWith('/activities') && request.status === 200);
  assert.ok(listings.length >= 3 && listings.every((request) => request.query.oldest !== undefined && request.query.limit === '4'), 'paged by moving newest back');
  assert.ok(standin.requests.some((request) => request.status === 429), 'the stand-in throttled and the backfill went on');

  await until('activities ingested', async () => ((await sourcesOf(user.userId)).every((source) => source.status === 'processed') ? true : undefined));
  const after = await (await stack.get('/api/v1/profile/status', user.token)).json() as { capabilities: Record<string, string> };
  assert.is(after.capabilities.activities, 'ready');
  assert.is(after.capabilities.activity_history, 'ready');
});

test('backfill-status streams NDJSON update lines with a naive timestamp and closes by itself', async () => {
  const user = await stack.userWithToken(['activities:read'], { appId: app.id });
  await connectThroughPortal(stack.baseUrl, user.token);
  await until('backfill done', async () => ((await connection(user.userId))?.backfill_done ? true : undefined));
  await stack.store.connections.updateOne({ user_id: user.userId }, { set: { sync_error: { code: 'rate_limited', message: 'waiting', at: Date.now() } } });
  const response = await stack.get('/api/v1/activities/backfill-status', user.token);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', 'application/x-ndjson');
  const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.ok(lines.length >= 2, 'several lines before it closed');
  const updates = lines.filter((line) => 'backfill_loaded_until' in line);
  assert.match(String(updates[0]!.backfill_loaded_until), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  const errors = lines.filter((line) => 'error' in line);
  assert.is(errors.length, 1, 'an error item is written once');
  assert.equal(Object.keys(errors[0]!.error as object).sort(), ['at', 'code', 'message', 'provider']);
  const refused = await stack.get('/api/v1/activities/backfill-status', (await stack.userWithToken(['dailies:read'])).token);
  assert.is(refused.status, 403, 'needs the activities read scope');
});

test('a push with our secret imports the activity once although it arrives twice; a wrong secret is refused', async () => {
  const user = await stack.userWithToken(['activities:read'], { appId: app.id });
  await connectThroughPortal(stack.baseUrl, user.token);
  await until('backfill done', async () => ((await connection(user.userId))?.backfill_done ? true : undefined));
  const fresh = activity(-3);
  standin.activities.push(fresh);
  const url = `${stack.baseUrl}/api/v1/integrations/intervals_icu/push`;
  assert.equal(await standin.push(url, [standin.activityEvent(fresh)], { duplicate: true }), [200, 200]);
  assert.equal(await standin.push(url, [standin.activityEvent(fresh)], { secret: 'guess' }), [403]);
  await until('pushed activity imported', async () => ((await stack.store.sources.count({ user_id: user.userId, external_id: 'intervals_icu:i997' })) === 1 ? true : undefined));
  assert.is(await stack.store.sources.count({ user_id: user.userId, external_id: 'intervals_icu:i997' }), 1);
});

test('wellness arrives as dailies and never overwrites a value the user entered', async () => {
  const user = await stack.userWithToken(['activities:read'], { appId: app.id });
  await connectThroughPortal(stack.baseUrl, user.token);
  await upsertDaily(stack.store, { userId: user.userId, measure: 'body_mass', date: '2025-06-01', value: 70, source: 'manual' });
  const url = `${stack.baseUrl}/api/v1/integrations/intervals_icu/push`;
  await standin.push(url, [{ athlete_id: 'i1001', type: 'WELLNESS_UPDATED', records: [{ id: '2025-06-01', weight: 72.5, restingHR: 48 }] }]);
  await until('resting HR written', async () => ((await stack.store.dailies.findOne({ user_id: user.userId, measure: 'resting_hr' })) ? true : undefined));
  const mass = await stack.store.dailies.findOne({ user_id: user.userId, measure: 'body_mass', date: '2025-06-01' });
  assert.is(mass!.value, 70);
  assert.is(mass!.source, 'manual');
});

test('disconnecting from the portal revokes at intervals.icu; a deauthorization push asks the user to reconnect', async () => {
  const user = await stack.userWithToken(['activities:read'], { appId: app.id });
  const { jar } = await connectThroughPortal(stack.baseUrl, user.token);
  await until('backfill done', async () => ((await connection(user.userId))?.backfill_done ? true : undefined));
  const schedule = `provider_poll:${(await connection(user.userId))!.id}`;
  assert.is(await stack.store.jobs.count({ key: schedule }), 1, 'the connection came with its poll schedule');
  const page = await (await jar.get('/portal/manage-integrations')).text();
  assert.match(page, '/portal/manage-integrations/intervals_icu/disconnect');
  const answer = await jar.post('/portal/manage-integrations/intervals_icu/disconnect', { csrf: csrfFrom(page) });
  assert.is(locationOf(answer, stack.baseUrl), '/portal/manage-integrations?notice=disconnected');
  assert.ok(standin.requests.some((request) => request.method === 'DELETE' && request.path === '/api/v1/disconnect-app'));
  const gone = (await connection(user.userId))!;
  assert.is(gone.status, 'disconnected');
  assert.equal(gone.credentials, {});
  // Removed with the connection (one running at that moment finds it disconnected and ends).
  await until('no poll schedule', async () => ((await stack.store.jobs.count({ key: schedule, status: { $ne: 'done' } })) === 0 ? true : undefined));

  const other = await stack.userWithToken(['activities:read'], { appId: app.id });
  await connectThroughPortal(stack.baseUrl, other.token);
  await until('backfill done', async () => ((await connection(other.userId))?.backfill_done ? true : undefined));
  await standin.push(`${stack.baseUrl}/api/v1/integrations/intervals_icu/push`, [standin.deauthorize()]);
  await until('action required', async () => ((await connection(other.userId))?.status === 'action_required' ? true : undefined));
  const status = await (await stack.get('/api/v1/profile/status', other.token)).json() as { capabilities: Record<string, string> };
  assert.is(status.capabilities.activities, 'action_required');
});

test('authorize with integration: a signed-in user connects the platform, then consents; refusing there refuses the app', async () => {
  const email = `icu-${Date.now()}@example.com`;
  const user = await createUser(stack.store, { email, password: 'correct horse battery' });
  // Their own (private) app: the consent screen shows to its owner.
  const own = await createApplication(stack.store, user.id, { name: 'Own', redirect_uris: ['https://pacer.example.com/cb'] });
  const query = new URLSearchParams({
    client_id: own.id, redirect_uri: 'https://pacer.example.com/cb', response_type: 'code', scope: 'activities:read', state: 's1',
    integration: 'intervals_icu', code_challenge: pkcePair().challenge, code_challenge_method: 'S256',
  });
  // (A signed-out person signs in through the provider instead: test/gateway/provider-sign-in.test.ts.)
  const jar = await signIn(stack, email, 'correct horse battery');
  let next = await jar.get(`/oauth/authorize?${query}`);
  assert.match(locationOf(next, stack.baseUrl) ?? '', /^\/integrations\/intervals_icu\/connect\?interaction=/, 'connects the platform first');
  next = await jar.get(locationOf(next, stack.baseUrl)!);
  const back = await followProvider(jar, next);
  assert.match(back ?? '', /^\/oauth\/interaction\//, 'then returns to the authorize flow');
  const consent = await jar.get(back!);
  assert.is(consent.status, 200);
  assert.match(await consent.text(), 'name="decision"');
  assert.is((await connection(user.id))?.status, 'connected');

  const someone = await createUser(stack.store, { email: `icu-no-${Date.now()}@example.com`, password: 'correct horse battery' });
  query.set('client_id', (await createApplication(stack.store, someone.id, { name: 'Theirs', redirect_uris: ['https://pacer.example.com/cb'] })).id);
  const refusing = await signIn(stack, someone.email!, 'correct horse battery');
  const toConnect = await refusing.get(`/oauth/authorize?${query}`);
  standin.denyNext();
  const refused = await followProvider(refusing, await refusing.get(locationOf(toConnect, stack.baseUrl)!));
  assert.match(refused ?? '', /^https:\/\/pacer\.example\.com\/cb\?error=access_denied/);
  assert.match(refused ?? '', /state=s1/);
});

test.run();
