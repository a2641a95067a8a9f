/** Uploading files and reading what they became: sources, activities, summaries, app metadata. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { csvActivity, settled, upload, type SourceBody } from '../support/uploads.js';
import { createApplication } from '../../gateway/services/accounts.js';
import { FIXTURES } from '../support/paths.js';
import { multipartBody } from '../support/page-deploys.js';
import { until } from '../support/integrations.js';

const uploads = suite<{ stack: TestStack; token: string; userId: string }>('uploads');

uploads.before(async (context) => {
  context.stack = await startStack({ MAX_UPLOAD_BYTES: String(256 * 1024), JOB_POLL_MS: '20' });
  const { token, userId } = await context.stack.userWithToken(['activities:read', 'activities:write']);
  context.token = token;
  context.userId = userId;
});
uploads.after(async (context) => {
  await context.stack.close();
});

async function sources(response: Response): Promise<SourceBody[]> {
  return ((await response.json()) as { sources: SourceBody[] }).sources;
}

uploads('answers 202 with one processing source per file, then processes each into an activity', async ({ stack, token }) => {
  const response = await upload(stack, token, [
    { name: 'ride.csv', bytes: csvActivity({ start: '2024-05-01T05:00:00Z' }) },
    { name: 'run.csv', bytes: csvActivity({ start: '2024-05-02T05:00:00Z', sport: 'running', offset: '-05:30' }) },
  ]);
  assert.is(response.status, 202);
  const accepted = await sources(response);
  assert.equal(accepted.map((source) => [source.filename, source.type, source.status]), [['ride.csv', 'csv', 'processing'], ['run.csv', 'csv', 'processing']]);
  const done = await settled(stack, token, accepted[0]!.id);
  assert.is(done.status, 'processed', JSON.stringify(done.error));
  assert.is(done.activity_ids.length, 1);

  const activity = (await (await stack.get(`/api/v1/activities/${done.activity_ids[0]}`, token)).json()) as Record<string, any>;
  assert.is(activity.sport, 'cycling.road');
  assert.is(activity.start, '2024-05-01T05:00:00Z');
  assert.is(activity.start_local, '2024-05-01T07:00:00');
  // 120 samples at 1 Hz: the last (05:01:59) holds one second, so the ride lasts two minutes.
  assert.is(activity.end, '2024-05-01T05:02:00Z');
  assert.is(activity.duration, 'PT2M');
  assert.is(activity.source_id, accepted[0]!.id);
  assert.equal(activity.metrics, ['duration', 'power', 'heart_rate', 'distance']);
  assert.is(activity.summary.power.max, 219);
  assert.is(activity.summary.power.mean, 159.5);
  assert.is(activity.summary.heart_rate.start, 120);
  assert.is(activity.summary.distance.sum, 952);
  assert.is(activity.distance, 952);
  assert.is(activity.laps, null);
  assert.equal(activity.devices, []);

  const run = await settled(stack, token, accepted[1]!.id);
  const runActivity = (await (await stack.get(`/api/v1/activities/${run.activity_ids[0]}`, token)).json()) as Record<string, any>;
  assert.is(runActivity.start_local, '2024-05-01T23:30:00', 'the half-hour negative offset round-trips');
});

uploads('keeps a UTF-8 file name as sent, quoted (as browsers send it) or in filename*= form [issue 26 item 8]', async ({ stack, token }) => {
  const quoted = await upload(stack, token, [{ name: 'é-run.csv', bytes: csvActivity({ start: '2024-05-20T05:00:00Z' }) }]);
  assert.is(quoted.status, 202);
  const [fromBrowser] = await sources(quoted);
  assert.is(fromBrowser!.filename, 'é-run.csv', 'not é read as latin1 (Ã©-run.csv)');
  const { body, contentType } = multipartBody([{ path: '', disposition: "filename*=UTF-8''%C3%A9t%C3%A9-ride.csv", content: csvActivity({ start: '2024-05-21T05:00:00Z' }) }]);
  const extended = await fetch(`${stack.baseUrl}/api/v1/activities/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
  assert.is(extended.status, 202);
  const [fromClient] = await sources(extended);
  assert.is(fromClient!.filename, 'été-ride.csv');
  for (const source of [fromBrowser!, fromClient!]) {
    const done = await settled(stack, token, source.id);
    assert.is(done.status, 'processed', JSON.stringify(done.error));
    assert.is(done.filename, source.filename, 'the stored source reads back the same name');
  }
});

uploads('recognises the same file uploaded twice and answers with the existing source', async ({ stack, token }) => {
  const bytes = csvActivity({ start: '2024-06-01T06:00:00Z' });
  const [first] = await sources(await upload(stack, token, [{ name: 'a.csv', bytes }]));
  const [second] = await sources(await upload(stack, token, [{ name: 'renamed.csv', bytes }]));
  assert.is(second!.id, first!.id);
  const done = await settled(stack, token, first!.id);
  const list = (await (await stack.get('/api/v1/activities/?start=2024-06-01&end=2024-06-01', token)).json()) as unknown[];
  assert.is(list.length, 1, 'one activity, not two');
  assert.is(done.activity_ids.length, 1);
});

uploads('fails a CSV with naive timestamps with its error code and message', async ({ stack, token }) => {
  const csv = 'timestamp,sport,power\n2024-05-01T07:00:00,cycling,200\n';
  const [accepted] = await sources(await upload(stack, token, [{ name: 'naive.csv', bytes: csv }]));
  const done = await settled(stack, token, accepted!.id);
  assert.is(done.status, 'failed');
  assert.is(done.error!.code, 'csv_naive_timestamp');
  assert.match(done.error!.message ?? '', 'has no UTC offset');
  assert.equal(done.activity_ids, []);
});

uploads('fails a large CSV with a bad header at once: a decode error is permanent, never retried', async ({ stack, token }) => {
  // Larger than the decoder's 64 KiB chunks, so the parser is still reading ahead when the header is refused.
  const rows = csvActivity({ rows: 4000 }).split('\n').slice(1).join('\n');
  const [accepted] = await sources(await upload(stack, token, [{ name: 'no-sport.csv', bytes: `timestamp,activity,power,heart_rate,distance\n${rows}` }]));
  const done = await settled(stack, token, accepted!.id);
  assert.is(done.status, 'failed');
  assert.is(done.error!.code, 'csv_missing_column');
  // The job records itself done in a write of its own after the source's (background writes are grouped).
  const job = await until('the ingest job to finish', async () => {
    const found = await stack.store.jobs.findOne({ key: `ingest:${accepted!.id}` });
    return found?.status === 'done' ? found : undefined;
  });
  assert.is(job.attempts, 1, 'decoded once');
});

uploads('fails a file that is neither FIT nor CSV', async ({ stack, token }) => {
  const [accepted] = await sources(await upload(stack, token, [{ name: 'photo.png', bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) }]));
  assert.is(accepted!.type, null);
  const done = await settled(stack, token, accepted!.id);
  assert.is(done.error!.code, 'source_type_unknown');
});

uploads('refuses a file over the size limit with 413 and stores nothing', async ({ stack, token }) => {
  const before = (await (await stack.get('/api/v1/profile/sources/', token)).json()) as unknown[];
  const response = await upload(stack, token, [{ name: 'huge.csv', bytes: new Uint8Array(300 * 1024).fill(0x41) }]);
  assert.is(response.status, 413);
  assert.match(((await response.json()) as { detail: string }).detail, 'huge.csv');
  const after = (await (await stack.get('/api/v1/profile/sources/', token)).json()) as unknown[];
  assert.is(after.length, before.length);
});

uploads('answers 422 for a request without files, with eleven files, or with a JSON body', async ({ stack, token }) => {
  const empty = await fetch(`${stack.baseUrl}/api/v1/activities/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new FormData() });
  assert.is(empty.status, 422);
  assert.equal(((await empty.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc, ['body', 'files']);
  const eleven = await upload(stack, token, Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.csv`, bytes: `x${i}` })));
  assert.is(eleven.status, 422);
  const json = await fetch(`${stack.baseUrl}/api/v1/activities/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  assert.is(json.status, 422);
});

uploads('requires activities:write to upload and hides other users\' sources and activities', async ({ stack, token }) => {
  const reader = await stack.userWithToken(['activities:read']);
  assert.is((await upload(stack, reader.token, [{ name: 'a.csv', bytes: 'x' }])).status, 403);
  const [accepted] = await sources(await upload(stack, token, [{ name: 'mine.csv', bytes: csvActivity({ start: '2024-07-01T06:00:00Z' }) }]));
  const done = await settled(stack, token, accepted!.id);
  assert.is((await stack.get(`/api/v1/profile/sources/${accepted!.id}`, reader.token)).status, 404);
  assert.is((await stack.get(`/api/v1/activities/${done.activity_ids[0]}`, reader.token)).status, 404);
  assert.equal(await (await stack.get('/api/v1/activities/', reader.token)).json(), []);
});

uploads('filters the list by local date, sport containment, legacy names and tags, newest first', async ({ stack, token, userId }) => {
  const files = [
    { name: 'road.csv', bytes: csvActivity({ start: '2024-08-01T22:30:00Z', offset: '+02:00', sport: 'cycling.road' }) },
    { name: 'trainer.csv', bytes: csvActivity({ start: '2024-08-02T10:00:00Z', offset: '+00:00', sport: 'cycling.trainer' }) },
    { name: 'run.csv', bytes: csvActivity({ start: '2024-08-03T10:00:00Z', offset: '+00:00', sport: 'running' }) },
  ];
  for (const source of await sources(await upload(stack, token, files))) await settled(stack, token, source.id);
  const list = async (query: string) =>
    ((await (await stack.get(`/api/v1/activities/?${query}`, token)).json()) as { sport: string; start_local: string }[]).map((activity) => activity.sport);
  // 22:30 UTC at +02:00 is 00:30 local on 2 August: the activity's own local date counts.
  assert.equal(await list('start=2024-08-02&end=2024-08-03'), ['running', 'cycling+stationary', 'cycling.road']);
  assert.equal(await list('start=2024-08-02&end=2024-08-03&sport=cycling'), ['cycling+stationary', 'cycling.road']);
  assert.equal(await list('start=2024-08-02&end=2024-08-03&sport=cycling.trainer'), ['cycling+stationary']);
  assert.equal(await list('start=2024-08-02&end=2024-08-03&sports=running,cycling.road'), ['running', 'cycling.road']);
  assert.equal(await list('start=2024-08-02&end=2024-08-03&limit=1&offset=1'), ['cycling+stationary']);
  const [road] = await stack.store.activities.find({ user_id: userId, sport: 'cycling.road', local_date: '2024-08-02' });
  await stack.store.activities.updateOne({ id: road!.id, user_id: userId }, { set: { tags: ['race', 'a'] } });
  assert.equal(await list('start=2024-08-02&end=2024-08-03&tags=race&tags=a'), ['cycling.road']);
  assert.equal(await list('start=2024-08-02&end=2024-08-03&tags=race&tags=b'), []);
  assert.ok(((await (await stack.get('/api/v1/profile/tags/', token)).json()) as string[]).includes('race'));
  const sports = (await (await stack.get('/api/v1/profile/sports/', token)).json()) as string[];
  assert.ok(sports.includes('cycling+stationary') && sports.includes('running'));
  const roots = (await (await stack.get('/api/v1/profile/sports/?only_root=true', token)).json()) as string[];
  assert.ok(roots.includes('cycling') && !roots.includes('cycling.road'));
});

uploads('answers the latest activity, with a sport filter, and null when there is none', async ({ stack }) => {
  const fresh = await stack.userWithToken(['activities:read', 'activities:write']);
  const none = await stack.get('/api/v1/activities/latest', fresh.token);
  assert.is(none.status, 200);
  assert.is(await none.text(), 'null');
  for (const source of await sources(await upload(stack, fresh.token, [
    { name: 'old.csv', bytes: csvActivity({ start: '2024-01-01T06:00:00Z', sport: 'cycling.road' }) },
    { name: 'new.csv', bytes: csvActivity({ start: '2024-02-01T06:00:00Z', sport: 'running' }) },
  ]))) await settled(stack, fresh.token, source.id);
  assert.is(((await (await stack.get('/api/v1/activities/latest', fresh.token)).json()) as { sport: string }).sport, 'running');
  assert.is(((await (await stack.get('/api/v1/activities/latest?sport=cycling', fresh.token)).json()) as { sport: string }).sport, 'cycling.road');
});

uploads('keeps app metadata per app, for app tokens only, within 1 KB and 32 levels', async ({ stack }) => {
  const owner = await stack.userWithToken([]);
  const app = await createApplication(stack.store, owner.userId, { name: 'Meta app' });
  const other = await createApplication(stack.store, owner.userId, { name: 'Other app' });
  const personal = await stack.userWithToken(['activities:read', 'activities:write']);
  const appToken = (await stack.userWithToken(['activities:read', 'activities:write'], { appId: app.id, userId: personal.userId })).token;
  const otherToken = (await stack.userWithToken(['activities:read', 'activities:write'], { appId: other.id, userId: personal.userId })).token;
  const [accepted] = await sources(await upload(stack, personal.token, [{ name: 'm.csv', bytes: csvActivity({ start: '2024-09-01T06:00:00Z' }) }]));
  const id = (await settled(stack, personal.token, accepted!.id)).activity_ids[0];
  const put = (token: string, body: string) => fetch(`${stack.baseUrl}/api/v1/activities/${id}/app-metadata`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });

  assert.is((await put(personal.token, '{"a":1}')).status, 403, 'personal tokens may not write app metadata');
  assert.is((await put(appToken, '{"plan":"z2"}')).status, 200);
  assert.is((await put(otherToken, '{"mine":true}')).status, 200);
  const seen = (await (await stack.get(`/api/v1/activities/${id}`, appToken)).json()) as { app_metadata: unknown };
  assert.equal(seen.app_metadata, { plan: 'z2' }, 'an app sees only its own metadata');
  assert.is(((await (await stack.get(`/api/v1/activities/${id}`, personal.token)).json()) as { app_metadata: unknown }).app_metadata, null);
  assert.is((await put(appToken, JSON.stringify({ text: 'x'.repeat(1100) }))).status, 413);
  const deep = '{"a":'.repeat(33) + '1' + '}'.repeat(33);
  assert.is((await put(appToken, deep)).status, 422);
  const shallowEnough = '{"a":'.repeat(32) + '1' + '}'.repeat(32);
  assert.is((await put(appToken, shallowEnough)).status, 200);
  assert.is((await put(appToken, '[1,2]')).status, 422);
  assert.is((await put(appToken, '{bad json')).status, 422);
  const removed = await fetch(`${stack.baseUrl}/api/v1/activities/${id}/app-metadata`, { method: 'DELETE', headers: { authorization: `Bearer ${appToken}` } });
  assert.is(removed.status, 204);
  assert.is(((await (await stack.get(`/api/v1/activities/${id}`, appToken)).json()) as { app_metadata: unknown }).app_metadata, null);
  assert.equal(((await (await stack.get(`/api/v1/activities/${id}`, otherToken)).json()) as { app_metadata: unknown }).app_metadata, { mine: true });
  assert.is((await fetch(`${stack.baseUrl}/api/v1/activities/unknown-id/app-metadata`, { method: 'DELETE', headers: { authorization: `Bearer ${appToken}` } })).status, 404);
});

uploads('keeps each uploaded file byte for byte, stored compressed, sized as uploaded', async ({ stack, token, userId }) => {
  const fit = readFileSync(path.join(FIXTURES, 'fit', 'python-fitparse', '20170518-191602-1740899583.fit'));
  const csv = Buffer.from(csvActivity({ start: '2024-07-01T06:00:00Z', rows: 3600 }));
  const accepted = await sources(await upload(stack, token, [{ name: 'ride.fit', bytes: fit }, { name: 'hour.csv', bytes: csv }]));
  for (const [source, bytes] of [[accepted[0]!, fit], [accepted[1]!, csv]] as const) {
    assert.is((await settled(stack, token, source.id)).status, 'processed');
    const record = (await stack.store.sources.findOne({ id: source.id, user_id: userId }))!;
    assert.is(record.user_id, userId);
    assert.is(record.size, bytes.byteLength);
    const original = await stack.store.blobs.get(record.bytes_key);
    assert.ok(original && Buffer.from(original).equals(bytes), `${source.filename}: the stored original is the upload`);
    assert.is(await stack.store.blobs.size(record.bytes_key), bytes.byteLength);
    const raw = new Database(path.join(stack.dataDir, 'threshold.sqlite'), { readonly: true });
    const stored = raw.prepare('SELECT encoding, length(bytes) AS bytes FROM blobs WHERE key = ?').get(record.bytes_key) as { encoding: string; bytes: number };
    raw.close();
    assert.is(stored.encoding, 'br', `${source.filename}: stored compressed`);
    assert.ok(stored.bytes < bytes.byteLength * 0.75, `${source.filename}: ${stored.bytes} bytes stored for ${bytes.byteLength}`);
  }
});

uploads.run();
