/**
 * Corrections of an activity at /api/v1/ext/activities/{activity_id} on the real stack (issue 28 item 5):
 * sport, tags and notes, each as the interface's objects and selections then show it (the sport's analysis
 * cache recomputed, list entries and longitudinal selections following); hostile input as a 422 naming the
 * field; unknown and other users' ids as 404; scopes and the applications' rule as 403; the events; and a
 * deletion that leaves nothing of the activity in the store, keeping a source another activity still uses.
 */
import { skipUnless, suite } from '../support/uvu.js';
import { mongoServerMissing, openFreshMongoStore, startMongoServer, type MongoServer } from '../support/mongo-server.js';
import * as assert from 'uvu/assert';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, sendJson, validationIssueAt, type JsonClient } from '../support/json-api.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { newId } from '../../storage/ids.js';
import { csvActivity, settled, upload, uploadProcessed } from '../support/uploads.js';
import { analysisKeyPrefix } from '../../storage/activity-corrections.js';
import type { ActivityRecord, Store } from '../../storage/store.js';

interface Context {
  stack: TestStack;
  token: string;
  userId: string;
}

const corrections = suite<Context>('activity corrections');
const SCOPES = ['activities:read', 'activities:write'];
let day = 0;

corrections.before(async (context) => {
  context.stack = await startStack();
  const personal = await context.stack.userWithToken(SCOPES);
  context.token = personal.token;
  context.userId = personal.userId;
});
corrections.after(async ({ stack }) => stack.close());

/** A fresh two-minute ride uploaded by `token` (a day apart from every other, so no two share bytes). */
async function ride(stack: TestStack, token: string, sport = 'cycling.road'): Promise<{ id: string; sourceId: string }> {
  day += 1;
  const start = new Date(Date.UTC(2024, 4, 1 + day, 5)).toISOString();
  const source = await uploadProcessed(stack, token, `ride-${day}.csv`, csvActivity({ start, sport }));
  return { id: source.activity_ids[0]!, sourceId: source.id };
}

function patch(stack: TestStack, token: string, id: string, body: unknown) {
  return sendJson(stack, 'PATCH', `/api/v1/ext/activities/${id}`, token, body);
}

async function record(stack: TestStack, userId: string, id: string): Promise<ActivityRecord | null> {
  return stack.store.activities.findOne({ id, user_id: userId });
}

async function longitudinalIds(stack: TestStack, token: string, sport: string): Promise<string[]> {
  const response = await stack.get(`/api/v1/activities/longitudinal-mean-max?sport=${sport}&metric=power&start=2024-01-01&end=2024-12-31&durations=5,60`, token);
  assert.is(response.status, 200);
  const file = await response.arrayBuffer();
  const rows = (await parquetReadObjects({ file, metadata: parquetMetadata(file) })) as { activity_id: string }[];
  return [...new Set(rows.map((row) => row.activity_id))];
}

/** Polls the event feed until `resource` has an event of `type`; fails after 15 s. */
async function eventSeen(client: JsonClient, type: string, resource: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await client.get('/api/v1/events?limit=1000');
    if (response.body.events.some((event: { event_type: string; resource_id: string }) => event.event_type === type && event.resource_id === resource)) return;
    if (Date.now() > deadline) throw new Error(`no ${type} event for ${resource} after 15 s: ${JSON.stringify(response.body.events)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

corrections('changes the sport: the interface objects, the list, selections by sport and the analysis cache follow', async ({ stack }) => {
  const { token, userId } = await stack.userWithToken(SCOPES);
  const client = jsonClient(stack, token);
  const { id } = await ride(stack, token);
  const before = (await client.get(`/api/v1/activities/${id}`)).body;
  await client.get('/api/v1/activities/?limit=100'); // the list stores its entry for the activity
  assert.equal(await longitudinalIds(stack, token, 'cycling'), [id]);
  const oldKey = (await record(stack, userId, id))!.analysis_key!;
  assert.ok(oldKey.startsWith(analysisKeyPrefix(id)));

  const changed = await patch(stack, token, id, { sport: 'running.trail', tags: null, notes: null });
  assert.is(changed.status, 200, JSON.stringify(changed.body));
  assert.equal(changed.body, { activity_id: id, sport: 'running.trail', tags: [], notes: null });
  const stored = (await record(stack, userId, id))!;
  assert.is(stored.analysis_key, undefined, 'the cache computed for the old sport is no longer named');
  assert.is(stored.listing, undefined, 'nor the stored list entry');
  assert.is(await stack.store.blobs.size(oldKey), null, 'and its blob is gone');

  const after = (await client.get(`/api/v1/activities/${id}`)).body;
  assert.equal(Object.keys(after), Object.keys(before), 'the activity keeps its exact shape');
  assert.equal({ ...after, sport: before.sport }, before, 'only the sport changed');
  assert.is(after.sport, 'running.trail');
  const listed = (await client.get('/api/v1/activities/?sport=running')).body;
  assert.equal(listed.map((item: { id: string; sport: string }) => [item.id, item.sport]), [[id, 'running.trail']]);
  assert.equal((await client.get('/api/v1/activities/?sport=cycling')).body, []);
  const relisted = (await client.get('/api/v1/activities/?limit=100')).body;
  assert.equal(relisted.map((item: { id: string; sport: string }) => [item.id, item.sport]), [[id, 'running.trail']], 'a page kept from before the correction is not served again');
  assert.equal(await longitudinalIds(stack, token, 'running'), [id], 'selected by its new sport, the cache computed again');
  assert.equal(await longitudinalIds(stack, token, 'cycling'), []);
  const recomputed = (await record(stack, userId, id))!;
  assert.ok(recomputed.analysis_key && recomputed.analysis_key !== oldKey, 'a new cache for the new sport');
  assert.equal((await client.get('/api/v1/profile/sports/')).body, ['running.trail']);
  await eventSeen(client, 'activity_updated', id);
});

corrections('a corrected sport, its tags and notes survive the source being processed again', async ({ stack, token, userId }) => {
  const { id, sourceId } = await ride(stack, token);
  assert.is((await patch(stack, token, id, { sport: 'running.trail', tags: ['kept'], notes: 'kept too' })).status, 200);
  const before = (await record(stack, userId, id))!;
  await stack.store.jobs.updateOne({ key: `ingest:${sourceId}` }, { set: { status: 'queued', run_after: Date.now(), attempts: 0, lease_owner: null, lease_until: null } });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const again = (await record(stack, userId, id))!;
    if (again.updated_at !== before.updated_at && (await stack.store.jobs.findOne({ key: `ingest:${sourceId}` }))?.status === 'done') break;
    if (Date.now() > deadline) throw new Error('the source was not processed again within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const after = (await record(stack, userId, id))!;
  assert.equal([after.sport, after.tags, after.notes, after.sport_corrected_at], ['running.trail', ['kept'], 'kept too', before.sport_corrected_at]);
  assert.is(after.analysis_key, undefined, "the file's sport's analysis is not kept for the corrected sport");
  assert.equal(await longitudinalIds(stack, token, 'running'), [id], 'computed again for the corrected sport when read');
});

corrections('maps a legacy sport name and answers 422 naming the field and the allowed form', async ({ stack, token }) => {
  const { id } = await ride(stack, token);
  assert.is((await patch(stack, token, id, { sport: 'cycling.trainer' })).body.sport, 'cycling+stationary');
  for (const sport of ['Running', 'running..trail', 'running trail', '', 'a'.repeat(129), 42, ['running']]) {
    const message = validationIssueAt(await patch(stack, token, id, { sport }), ['body', 'sport']);
    if (typeof sport === 'string' && sport.length <= 128) assert.match(message, /Open Sport Taxonomy sport: lowercase words/, message);
  }
});

corrections('replaces the tags: trimmed, repeats dropped, shown in tags, filters and the profile, [] removes them', async ({ stack, token }) => {
  const client = jsonClient(stack, token);
  const { id } = await ride(stack, token);
  const changed = await patch(stack, token, id, { tags: [' race ', 'A-race', 'race', 'zone 2 🚴‍♀️'] });
  assert.is(changed.status, 200, JSON.stringify(changed.body));
  assert.equal(changed.body.tags, ['race', 'A-race', 'zone 2 🚴‍♀️']);
  assert.equal((await client.get(`/api/v1/activities/${id}`)).body.tags, ['race', 'A-race', 'zone 2 🚴‍♀️']);
  assert.equal((await client.get('/api/v1/activities/?tags=A-race&tags=race')).body.map((item: { id: string }) => item.id), [id]);
  const profileTags = (await client.get('/api/v1/profile/tags/')).body as string[];
  for (const tag of ['race', 'A-race', 'zone 2 🚴‍♀️']) assert.ok(profileTags.includes(tag), tag);
  assert.equal((await patch(stack, token, id, { tags: [] })).body.tags, []);
  assert.equal((await client.get(`/api/v1/activities/${id}`)).body.tags, []);
  assert.equal((await client.get('/api/v1/activities/?tags=race')).body, []);
});

corrections('refuses hostile tags with 422 at the tag', async ({ stack, token }) => {
  const { id } = await ride(stack, token);
  const cases: [unknown, (string | number)[]][] = [
    ['race', ['body', 'tags']],
    [[1], ['body', 'tags', 0]],
    [['ok', '   '], ['body', 'tags', 1]],
    [['a\u202Eb'], ['body', 'tags', 0]],
    [['tab\there'], ['body', 'tags', 0]],
    [['x'.repeat(201)], ['body', 'tags', 0]],
    [Array.from({ length: 101 }, (_, i) => `t${i}`), ['body', 'tags']],
  ];
  for (const [tags, loc] of cases) validationIssueAt(await patch(stack, token, id, { tags }), loc);
  assert.match(validationIssueAt(await patch(stack, token, id, { tags: ['a\u202Eb'] }), ['body', 'tags', 0]), /U\+202E at character 2/);
});

corrections('keeps notes only at the extension path: multi-line, CRLF as LF, capped, control characters refused, "" clears', async ({ stack, token }) => {
  const client = jsonClient(stack, token);
  const { id } = await ride(stack, token);
  const before = (await client.get(`/api/v1/activities/${id}`)).body;
  const notes = 'Felt strong.\r\nHeadwind on the way back;\tlegs fine.';
  const changed = await patch(stack, token, id, { notes });
  assert.is(changed.status, 200, JSON.stringify(changed.body));
  assert.is(changed.body.notes, 'Felt strong.\nHeadwind on the way back;\tlegs fine.');
  assert.equal((await client.get(`/api/v1/ext/activities/${id}`)).body, changed.body);
  assert.equal((await client.get(`/api/v1/activities/${id}`)).body, before, 'the interface object does not change for notes');
  assert.ok(!JSON.stringify((await client.get('/api/v1/activities/?limit=100')).body).includes('Headwind'), 'nor does the list');
  assert.is((await patch(stack, token, id, { notes: 'x'.repeat(2000) })).status, 200);
  validationIssueAt(await patch(stack, token, id, { notes: 'x'.repeat(2001) }), ['body', 'notes']);
  assert.match(validationIssueAt(await patch(stack, token, id, { notes: 'bell\u0007' }), ['body', 'notes']), /U\+0007/);
  validationIssueAt(await patch(stack, token, id, { notes: 'bidi \u2066x' }), ['body', 'notes']);
  validationIssueAt(await patch(stack, token, id, { notes: { text: 'x' } }), ['body', 'notes']);
  assert.is((await patch(stack, token, id, { notes: '' })).body.notes, null);
  assert.is((await client.get(`/api/v1/ext/activities/${id}`)).body.notes, null);
});

corrections('refuses an unknown key, a body that changes nothing and a body that is not an object', async ({ stack, token }) => {
  const { id } = await ride(stack, token);
  assert.match(validationIssueAt(await patch(stack, token, id, { sprot: 'running' }), ['body', 'sprot']), /Extra inputs/);
  assert.match(validationIssueAt(await patch(stack, token, id, {}), ['body']), /at least one of sport, tags, notes/);
  validationIssueAt(await patch(stack, token, id, { sport: null, tags: null, notes: null }), ['body']);
  validationIssueAt(await patch(stack, token, id, [1, 2]), ['body']);
  const unchanged = await patch(stack, token, id, { sport: 'cycling.road' });
  assert.is(unchanged.status, 200, 'the same sport again is no change, and no error');
  validationIssueAt(await sendJson(stack, 'PATCH', `/api/v1/ext/activities/${'x'.repeat(65)}`, token, { tags: [] }), ['path', 'activity_id']);
});

corrections('answers 404 for an unknown activity and for another user\'s, on every method', async ({ stack, token }) => {
  const { id } = await ride(stack, token);
  for (const [method, body] of [['GET', undefined], ['PATCH', { tags: ['x'] }], ['DELETE', undefined]] as const) {
    assert.is((await sendJson(stack, method, '/api/v1/ext/activities/nope', token, body)).status, 404, `${method} unknown`);
    const theirs = await sendJson(stack, method, `/api/v1/ext/activities/${id}`, (await stack.userWithToken(SCOPES)).token, body);
    assert.is(theirs.status, 404, `${method} another user's`);
  }
  assert.equal((await jsonClient(stack, token).get(`/api/v1/activities/${id}`)).body.tags, [], 'and nothing changed');
});

corrections('needs activities:write to change or delete and activities:read to read, naming the scope', async ({ stack, token, userId }) => {
  const { id } = await ride(stack, token);
  const reader = await stack.userWithToken(['activities:read'], { userId });
  for (const [method, body] of [['PATCH', { tags: ['x'] }], ['DELETE', undefined]] as const) {
    const refused = await sendJson(stack, method, `/api/v1/ext/activities/${id}`, reader.token, body);
    assert.is(refused.status, 403, method);
    assert.match(refused.body.detail, /activities:write/);
  }
  assert.is((await jsonClient(stack, reader.token).get(`/api/v1/ext/activities/${id}`)).status, 200);
  const wellness = await stack.userWithToken(['wellness:read', 'activities:write'], { userId });
  assert.is((await jsonClient(stack, wellness.token).get(`/api/v1/ext/activities/${id}`)).status, 403);
  assert.ok(await record(stack, userId, id), 'still there');
});

corrections('an application changes and deletes only what it uploaded; a personal token everything', async ({ stack }) => {
  const owner = await stack.userWithToken([]);
  const [a, b] = await Promise.all([createApplication(stack.store, owner.userId, { name: 'App A' }), createApplication(stack.store, owner.userId, { name: 'App B' })]);
  const person = await stack.userWithToken(SCOPES);
  const appA = (await stack.userWithToken(SCOPES, { appId: a.id, userId: person.userId })).token;
  const appB = (await stack.userWithToken(SCOPES, { appId: b.id, userId: person.userId })).token;
  const byA = (await ride(stack, appA)).id;
  const byPerson = (await ride(stack, person.token)).id;
  assert.is((await patch(stack, appA, byA, { tags: ['from A'] })).status, 200);
  const refused = await patch(stack, appB, byA, { tags: ['from B'] });
  assert.is(refused.status, 403);
  assert.match(refused.body.detail, /only the activities of files it uploaded/);
  assert.is((await patch(stack, appA, byPerson, { tags: ['from A'] })).status, 403);
  assert.is((await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${byA}`, appB)).status, 403);
  assert.equal((await jsonClient(stack, person.token).get(`/api/v1/ext/activities/${byA}`)).body.tags, ['from A']);
  assert.is((await patch(stack, person.token, byA, { notes: 'mine to edit' })).status, 200);
  assert.is((await jsonClient(stack, appB).get(`/api/v1/ext/activities/${byA}`)).status, 200, 'every app still reads it');
  await stack.store.applications.updateOne({ id: b.id }, { set: { first_party: true } });
  assert.is((await patch(stack, appB, byA, { tags: ['first party'] })).status, 200, 'a first-party application acts for the person');
  assert.is((await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${byA}`, appA)).status, 204);
  assert.is((await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${byPerson}`, person.token)).status, 204);
});

corrections('delegated tokens and team grants write only with activities:write granted, as every write', async ({ stack }) => {
  const mint = async (token: string, sub: string, teamId: string | null): Promise<string> => {
    const minted = await sendJson(stack, 'POST', '/api/v1/oauth/delegated-token', token, { sub, team_id: teamId, scopes: null });
    assert.is(minted.status, 200, JSON.stringify(minted.body));
    return minted.body.access_token;
  };
  // A manager acting for a managed user: the delegated token carries the manager's token's scopes.
  const manager = await stack.userWithToken([...SCOPES, 'sharing:read']);
  const managed = await createUser(stack.store, { email: null, first_name: 'Kid', managed_by: manager.userId });
  const forManaged = await mint(manager.token, managed.id, null);
  const managedRide = (await ride(stack, forManaged)).id;
  assert.is((await patch(stack, forManaged, managedRide, { tags: ['by manager'] })).status, 200);
  const readOnly = await stack.userWithToken(['activities:read', 'sharing:read'], { userId: manager.userId });
  const refused = await patch(stack, await mint(readOnly.token, managed.id, null), managedRide, { tags: ['nope'] });
  assert.is(refused.status, 403);
  assert.match(refused.body.detail, /activities:write/);
  // A coach acting through a team: only what the athlete granted the team.
  const coach = await stack.userWithToken([...SCOPES, 'sharing:read']);
  const athlete = await stack.userWithToken(SCOPES);
  const teamId = newId();
  const now = Date.now();
  await stack.store.teams.insert({ id: teamId, user_id: coach.userId, name: 'Club', description: '', url: '', image: '', privacy_statement: '', created_at: now });
  await stack.store.team_members.insert({ id: newId(), team_id: teamId, user_id: coach.userId, role: 'owner', created_at: now });
  await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: athlete.userId, scopes: ['activities:read'], created_at: now, updated_at: now });
  const athleteRide = (await ride(stack, athlete.token)).id;
  const readingTeam = await mint(coach.token, athlete.userId, teamId);
  assert.is((await jsonClient(stack, readingTeam).get(`/api/v1/ext/activities/${athleteRide}`)).status, 200);
  assert.is((await patch(stack, readingTeam, athleteRide, { tags: ['coach'] })).status, 403);
  assert.is((await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${athleteRide}`, readingTeam)).status, 403);
  await stack.store.team_authorizations.updateMany({ team_id: teamId, user_id: athlete.userId }, { set: { scopes: SCOPES } });
  const writingTeam = await mint(coach.token, athlete.userId, teamId);
  assert.equal((await patch(stack, writingTeam, athleteRide, { tags: ['coach'] })).body.tags, ['coach']);
});

corrections('deletes the activity with its series, analyses, source, original bytes and ingest job: nothing left', async ({ stack, token, userId }) => {
  const client = jsonClient(stack, token);
  const { id, sourceId } = await ride(stack, token);
  const stored = (await record(stack, userId, id))!;
  const source = (await stack.store.sources.findOne({ id: sourceId, user_id: userId }))!;
  assert.ok(await stack.store.blobs.size(stored.series_key) !== null && await stack.store.blobs.size(stored.analysis_key!) !== null);
  assert.ok(await stack.store.jobs.findOne({ key: `ingest:${sourceId}` }));

  const deleted = await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${id}`, token);
  assert.is(deleted.status, 204);
  assert.is(deleted.body, null);
  assert.is((await client.get(`/api/v1/activities/${id}`)).status, 404);
  assert.is((await client.get(`/api/v1/ext/activities/${id}`)).status, 404);
  assert.is((await client.get(`/api/v1/profile/sources/${sourceId}`)).status, 404);
  assert.is(await stack.store.activities.count({ user_id: userId, id }), 0);
  assert.is(await stack.store.activities.count({ user_id: userId, source_id: sourceId }), 0);
  assert.is(await stack.store.sources.count({ user_id: userId, id: sourceId }), 0);
  assert.is(await stack.store.jobs.count({ key: `ingest:${sourceId}` }), 0);
  for (const key of [stored.series_key, stored.analysis_key!, source.bytes_key]) assert.is(await stack.store.blobs.size(key), null, key);
  assert.is(await stack.store.blobs.deletePrefix(analysisKeyPrefix(id)), 0, 'no analysis blob of it anywhere');
  assert.is((await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${id}`, token)).status, 404, 'a second deletion finds nothing');
  await eventSeen(client, 'activity_deleted', id);
  // The same file uploaded again is a new source (its hash is free again), and its activity comes back.
  const again = await upload(stack, token, [{ name: 'again.csv', bytes: csvActivity({ start: new Date(stored.start).toISOString() }) }]);
  const settledAgain = await settled(stack, token, ((await again.json()) as { sources: { id: string }[] }).sources[0]!.id);
  assert.is(settledAgain.status, 'processed');
  assert.is.not(settledAgain.id, sourceId);
});

corrections('keeps a source another activity still comes from, until that one goes too', async ({ stack, token, userId }) => {
  const { id, sourceId } = await ride(stack, token);
  // A second session of the same file, as a multisport FIT yields: the same source, its own series.
  const first = (await record(stack, userId, id))!;
  const secondId = `${id.slice(0, 12)}beef`;
  const series = (await stack.store.blobs.get(first.series_key))!;
  await stack.store.blobs.put(`series:${secondId}`, series, { userId });
  const second: ActivityRecord = { ...first, id: secondId, source_index: 1, start: first.start + 3_600_000, end: first.end + 3_600_000, series_key: `series:${secondId}` };
  delete second.analysis_key;
  delete second.analysis_version;
  delete second.listing;
  delete second.listing_version;
  await stack.store.activities.insert(second);
  await stack.store.sources.updateOne({ id: sourceId, user_id: userId }, { set: { activity_ids: [id, secondId] } });
  const bytesKey = (await stack.store.sources.findOne({ id: sourceId, user_id: userId }))!.bytes_key;

  assert.is((await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${id}`, token)).status, 204);
  const kept = await jsonClient(stack, token).get(`/api/v1/profile/sources/${sourceId}`);
  assert.is(kept.status, 200);
  assert.equal(kept.body.activity_ids, [secondId], 'the source stays, no longer listing the deleted activity');
  assert.ok(await stack.store.blobs.size(bytesKey) !== null, 'with its bytes');
  assert.is(await stack.store.blobs.size(first.series_key), null, "the deleted activity's series is gone");
  assert.ok(await stack.store.blobs.size(`series:${secondId}`) !== null);

  assert.is((await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${secondId}`, token)).status, 204);
  assert.is((await jsonClient(stack, token).get(`/api/v1/profile/sources/${sourceId}`)).status, 404, 'the last one takes the source along');
  assert.is(await stack.store.blobs.size(bytesKey), null);
});

corrections('/openapi.json marks the three operations as extensions', async ({ stack }) => {
  const document = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  const operations = document.paths['/api/v1/ext/activities/{activity_id}']!;
  assert.equal(Object.keys(operations).sort(), ['delete', 'get', 'patch']);
  for (const operation of Object.values(operations)) assert.is(operation['x-threshold-extension'], true);
});

corrections.run();

const onMongo = suite<{ server: MongoServer; store: Store; stack: TestStack }>('activity corrections on MongoDB');
skipUnless(mongoServerMissing(), onMongo);

onMongo.before(async (context) => {
  context.server = await startMongoServer();
  context.store = await openFreshMongoStore(context.server.uri);
  context.stack = await startStack({ JOB_POLL_MS: '20', LOG_LEVEL: 'warn' }, { store: context.store });
});
onMongo.after(async (context) => {
  await context.stack?.close();
  await context.store?.close();
  await context.server?.stop();
});

onMongo('corrects and deletes an activity on a MongoDB store, leaving nothing of it', async ({ stack }) => {
  assert.is(stack.store.backend, 'mongo');
  const { token, userId } = await stack.userWithToken(SCOPES);
  const { id, sourceId } = await ride(stack, token);
  const client = jsonClient(stack, token);
  // jongodb may show a committed batch one collection after another: wait for the activity itself.
  const deadline = Date.now() + 10_000;
  while ((await client.get(`/api/v1/activities/${id}`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`activity ${id} not readable after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const changed = await patch(stack, token, id, { sport: 'running', tags: ['mongo'], notes: 'on a replica set' });
  assert.equal(changed.body, { activity_id: id, sport: 'running', tags: ['mongo'], notes: 'on a replica set' });
  assert.equal(await longitudinalIds(stack, token, 'running'), [id]);
  const stored = (await record(stack, userId, id))!;
  const source = (await stack.store.sources.findOne({ id: sourceId, user_id: userId }))!;
  assert.is((await sendJson(stack, 'DELETE', `/api/v1/ext/activities/${id}`, token)).status, 204);
  assert.is(await stack.store.activities.count({ user_id: userId }), 0);
  assert.is(await stack.store.sources.count({ user_id: userId }), 0);
  assert.is(await stack.store.jobs.count({ key: `ingest:${sourceId}` }), 0);
  for (const key of [stored.series_key, stored.analysis_key!, source.bytes_key]) assert.is(await stack.store.blobs.size(key), null, key);
  await eventSeen(client, 'activity_deleted', id);
});

onMongo.run();
