/**
 * The activity list is assembled from stored listings (gateway/services/listing-page.ts); these tests hold it
 * to what it answered before: byte for byte the JSON of presentActivitySummary over the records `find`
 * returns, for personal and app tokens, on every path (first page, stored listings, filters, pages, after
 * writes, pages kept in memory: services/listing-page-cache.ts). The presenter's own JSON is pinned for one record, so a format change cannot slip past the
 * listing version.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { activity, T0 } from '../storage/records.js';
import { createApplication } from '../../gateway/services/accounts.js';
import { ACTIVITY_LISTING_TAIL, ACTIVITY_LISTING_VERSION, listingSpan, presentActivitySummary } from '../../gateway/presenters/activity.js';
import { listingOf } from '../../gateway/presenters/listing.js';
import { jsonWriter } from '../../gateway/presenters/json-writer.js';
import { ActivitySummary } from '../../gateway/schemas/resources.js';
import type { Principal } from '../../gateway/auth/access-tokens.js';
import type { ActivityRecord, Filter } from '../../storage/store.js';
import { z } from 'zod';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIT_FIXTURES } from '../support/fit-corpus.js';
import { csvActivity, uploadProcessed } from '../support/uploads.js';
import { activityListJson } from '../../gateway/services/activity-listing.js';
import type { GatewayDeps } from '../../gateway/deps.js';
import { beginUserDeletion } from '../../storage/user-deletion.js';

interface Context {
  stack: TestStack;
  userId: string;
  personal: string;
  appToken: string;
  appId: string;
}

const list = suite<Context>('activity list');
const HOUR = 3_600_000;

/** Records with every kind of value a summary carries: nested blocks, laps, nulls, offsets, unicode, tied starts. */
function records(userId: string, appId: string): ActivityRecord[] {
  return [
    activity('a1', userId, { start: T0, end: T0 + HOUR, offset: -330, tags: ['race', 'Ünïcode "q" \\ </script>'], app_metadata: { [appId]: { plan: 'z2', n: [1.5, null] }, other: { x: 1 } } }),
    activity('a2', userId, { sport: 'cycling+stationary', start: T0 + 2 * HOUR, end: T0 + 3 * HOUR, summary: null, laps: null, tags: [], app_metadata: {} }),
    activity('a3', userId, { sport: 'running', start: T0 + 2 * HOUR, end: T0 + 2.5 * HOUR, offset: 0, summary: { speed: { mean: 0.1 + 0.2, start: 1e21, end: 5e-7, gain: -0 } } }),
    activity('a4', userId, { sport: 'cycling.road', start: T0 + 5 * HOUR, end: T0 + 9 * HOUR + 1, offset: 840, metrics: [], app_metadata: { other: { y: 2 } } }),
    activity('a5', userId, { sport: 'cycling.mountain', start: T0 - 48 * HOUR, end: T0 - 47 * HOUR, local_date: '2023-12-30', tags: ['a', 'b'] }),
  ];
}

list.before(async (context) => {
  context.stack = await startStack();
  const owner = await context.stack.userWithToken([]);
  const app = await createApplication(context.stack.store, owner.userId, { name: 'List app' });
  const personal = await context.stack.userWithToken(['activities:read', 'activities:write']);
  context.userId = personal.userId;
  context.personal = personal.token;
  context.appId = app.id;
  context.appToken = (await context.stack.userWithToken(['activities:read', 'activities:write'], { appId: app.id, userId: personal.userId })).token;
  for (const record of records(personal.userId, app.id)) await context.stack.store.activities.insert(record);
});
list.after(async (context) => {
  await context.stack.close();
});

/** What the list answered before listings: the presenter over `find`'s records, serialised as the API's JSON writer does. */
async function presented(context: Context, filter: Filter<ActivityRecord>, applicationId: string | null, page: { limit?: number; offset?: number } = {}): Promise<string> {
  const found = await context.stack.store.activities.find({ user_id: context.userId, ...filter }, { sort: { start: -1 }, ...page });
  return jsonWriter(z.array(ActivitySummary))(found.map((record) => presentActivitySummary(record, { applicationId } as Principal, [])));
}

async function listed(context: Context, query: string, token: string): Promise<string> {
  const response = await context.stack.get(`/api/v1/activities/${query}`, token);
  assert.is(response.status, 200);
  assert.is(response.headers.get('content-type'), 'application/json; charset=utf-8');
  return response.text();
}

list('pins the JSON of one activity summary: a change to it needs a new ACTIVITY_LISTING_VERSION and this golden', () => {
  const record = activity('act-golden', 'u1', {
    offset: -330, tags: ['race', 'Ünïcode "q"'],
    summary: { power: { mean: 231.123456789, max: 812, min: 0, sum: null }, speed: { mean: 0.1 + 0.2, start: 1e21, end: 5e-7 } },
  });
  const golden = '{"id":"act-golden","sport":"cycling.road","start":"2024-01-01T00:00:00Z","end":"2024-01-01T01:00:00Z",'
    + '"start_local":"2023-12-31T18:30:00","end_local":"2023-12-31T19:30:00","duration":"PT1H","metrics":["power","heart_rate"],'
    + '"source_id":"src-act-golden","tags":["race","Ünïcode \\"q\\""],"summary":{"power":{"mean":231.123456789,"min":0.0,"max":812.0,"sum":null},'
    + '"speed":{"mean":0.30000000000000004,"start":1e+21,"end":5e-7}},"laps":[{"start":"2024-01-01T00:00:00Z","end":"2024-01-01T00:10:00Z",'
    + '"start_local":"2024-01-01T01:00:00","end_local":"2024-01-01T01:10:00","duration":"PT10M","heart_rate":{"mean":151.0,"max":null}}],'
    + '"traces":null,"app_metadata":{"note":"hello","nested":{"list":[1,"two",null,true]}}}';
  const write = jsonWriter(ActivitySummary);
  assert.is(write(presentActivitySummary(record, { applicationId: 'app1' } as Principal)), golden);
  assert.is(ACTIVITY_LISTING_VERSION, 3);
  const listing = listingOf({ ...presentActivitySummary(record, { applicationId: null } as Principal), app_metadata: null }, ACTIVITY_LISTING_TAIL, write);
  assert.ok(golden.startsWith(listing) && listing.endsWith('}}],'), 'the listing stops before traces and app_metadata');
  assert.equal(listingSpan(listing), { start: record.start, end: record.end }, "the span read from the listing's text");
});

list('answers byte for byte what the presenter gives, for personal and app tokens, before and after listings are stored', async (context) => {
  const { stack, userId, appId } = context;
  for (const [token, applicationId] of [[context.personal, null], [context.appToken, appId]] as const) {
    const expected = await presented(context, {}, applicationId);
    assert.is(await listed(context, '', token), expected, 'first page (listings derived)');
    assert.is(await listed(context, '', token), expected, 'stored listings');
  }
  const stored = await stack.store.activities.find({ user_id: userId });
  assert.ok(stored.every((record) => record.listing_version === ACTIVITY_LISTING_VERSION && record.listing?.startsWith(`{"id":"${record.id}"`)));
  assert.ok(stored.every((record) => !record.listing!.includes('"plan"')), 'a listing holds no app metadata');
});

list('answers pages, date, tag and sport filters (with modifier containment) as the presenter does', async (context) => {
  const queries: [string, Filter<ActivityRecord>, { limit?: number; offset?: number }][] = [
    ['?limit=2&offset=1', {}, { limit: 2, offset: 1 }],
    ['?limit=1000&offset=4', {}, { offset: 4 }],
    ['?tags=a&tags=b', { tags: { $all: ['a', 'b'] } }, {}],
    ['?start=2024-01-01&end=2024-01-01', { local_date: '2024-01-01' }, {}],
  ];
  for (const [query, filter, page] of queries) {
    for (const [token, applicationId] of [[context.personal, null], [context.appToken, context.appId]] as const) {
      assert.is(await listed(context, query, token), await presented(context, filter, applicationId, page), query);
    }
  }
  const cycling = { id: { $in: ['a1', 'a2', 'a4', 'a5'] } };
  assert.is(await listed(context, '?sport=cycling', context.appToken), await presented(context, cycling, context.appId));
  assert.is(await listed(context, '?sport=cycling&limit=2&offset=1', context.personal), await presented(context, cycling, null, { limit: 2, offset: 1 }));
  assert.is(await listed(context, '?sport=cycling.trainer', context.personal), await presented(context, { id: 'a2' }, null));
  assert.is(await listed(context, '?sport=running&sport=cycling.road&offset=5', context.personal), '[]');
});

list('shows every write in the next page: app metadata, an edit without a new updated_at, an outdated listing', async (context) => {
  const { stack, appId } = context;
  const put = await fetch(`${stack.baseUrl}/api/v1/activities/a3/app-metadata`, {
    method: 'PUT', headers: { authorization: `Bearer ${context.appToken}`, 'content-type': 'application/json' }, body: '{"note":"é\\u2028"}',
  });
  assert.is(put.status, 200);
  assert.is(await listed(context, '', context.appToken), await presented(context, {}, appId));
  await stack.store.activities.updateOne({ id: 'a4', user_id: context.userId }, { set: { tags: ['edited'] } });
  assert.is(await listed(context, '', context.personal), await presented(context, {}, null));
  assert.ok((await listed(context, '', context.personal)).includes('"tags":["edited"]'));
  await stack.store.activities.updateOne({ id: 'a1', user_id: context.userId }, { set: { listing: '{"id":"stale","app_metadata":', listing_version: ACTIVITY_LISTING_VERSION - 1 } });
  assert.is(await listed(context, '', context.appToken), await presented(context, {}, appId));
  assert.is((await stack.store.activities.findOne({ id: 'a1', user_id: context.userId }))?.listing_version, ACTIVITY_LISTING_VERSION, 'the outdated listing is replaced');
});

list('answers a page of real FIT rides with 99 laps an item byte for byte: past 128 KB, one buffer, its Content-Length', async (context) => {
  const { stack } = context;
  const rider = await stack.userWithToken(['activities:read', 'activities:write']);
  const bytes = readFileSync(path.join(FIT_FIXTURES, 'python-fitparse/event_timestamp.fit'));
  const source = await uploadProcessed(stack, rider.token, 'event_timestamp.fit', bytes);
  const ride = (await stack.store.activities.findOne({ id: source.activity_ids[0]!, user_id: rider.userId }))!;
  assert.is(ride.laps?.length, 99, 'the fixture holds 99 laps');
  for (let k = 1; k < 8; k++) {
    const start = ride.start + k * 86_400_000;
    await stack.store.activities.insert({ ...ride, id: `copy-${k}`, source_id: `copy-${k}`, start, end: start + ride.end - ride.start, laps: ride.laps!.map((lap) => ({ ...lap, start: lap.start + k * 86_400_000, end: lap.end + k * 86_400_000 })) });
  }
  const found = await stack.store.activities.find({ user_id: rider.userId }, { sort: { start: -1 } });
  const expected = jsonWriter(z.array(ActivitySummary))(found.map((record) => presentActivitySummary(record, { applicationId: null } as Principal, [])))!;
  assert.ok(Buffer.byteLength(expected) > 128 * 1024, `the page is ${Buffer.byteLength(expected)} bytes`);
  for (const pass of ['listings derived', 'listings stored']) {
    const response = await stack.get('/api/v1/activities/?limit=50', rider.token);
    assert.is(response.headers.get('content-length'), String(Buffer.byteLength(expected)), pass);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(expected)), pass);
  }
  const principal = { userId: rider.userId, applicationId: null } as Principal;
  const page = await activityListJson({ store: stack.store } as GatewayDeps, principal, { limit: 50, offset: 0, sports: [] });
  assert.ok(Buffer.isBuffer(page) && page.equals(Buffer.from(expected)), 'the page is written as one buffer, never one string');
});

list('answers a kept page byte for byte, and never after a write: laps, a deletion, a new activity, the user gone', async (context) => {
  const { stack, userId, appId } = context;
  const same = async (step: string) => {
    for (const [token, applicationId] of [[context.personal, null], [context.appToken, appId]] as const) {
      const expected = await presented(context, {}, applicationId);
      for (const pass of ['built', 'kept']) assert.is(await listed(context, '', token), expected, `${step}, ${pass} (${applicationId ? 'app' : 'personal'} token)`);
    }
  };
  await same('before any write');
  await stack.store.activities.updateOne({ id: 'a5', user_id: userId }, { set: { laps: [{ start: T0 - 48 * HOUR, end: T0 - 47 * HOUR, offset: 60, blocks: { power: { mean: 200, max: 400 } } }] } });
  await same('after a laps edit');
  await stack.store.activities.deleteMany({ id: 'a3', user_id: userId });
  await same('after a deletion');
  await stack.store.activities.insert(activity('a6', userId, { start: T0 + 20 * HOUR, end: T0 + 21 * HOUR }));
  await same('after a new activity');
  await beginUserDeletion(stack.store, userId);
  assert.is((await stack.get('/api/v1/activities/', context.personal)).status, 401, "no page of a deleted user, kept or not");
});

list('never keeps a page past an upload the engine stores in the background (its grouped writes renew the stamp too)', async (context) => {
  const { stack } = context;
  const rider = await stack.userWithToken(['activities:read', 'activities:write']);
  const ids = async () => (JSON.parse(await listed(context, '', rider.token)) as { id: string }[]).map((item) => item.id);
  await uploadProcessed(stack, rider.token, 'first.csv', csvActivity({ start: '2024-05-01T05:00:00Z' }));
  const first = await ids();
  assert.is(first.length, 1);
  assert.equal(await ids(), first, 'the page is kept');
  await uploadProcessed(stack, rider.token, 'second.csv', csvActivity({ start: '2024-05-02T05:00:00Z' }));
  assert.is((await ids()).length, 2, 'the next page shows the activity the engine stored');
});

list.run();
