/**
 * The athlete's pages over the real stack (issue 16 item 4): they need a signed-in session (303 /signin, the
 * status endpoint 401), they show what the API shows for the same filters and nothing of another user (404),
 * they escape hostile tags and file names, the upload form needs the session's CSRF token, and only these
 * pages' CSP lets the gateway's own script in. The same pages in Chromium: test/browser/athlete-pages.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, csrfFrom, locationOf, signIn } from '../support/browser-session.js';
import { csvActivity, settled, upload } from '../support/uploads.js';
import { createUser } from '../../gateway/services/accounts.js';
import type { UserRecord } from '../../storage/store.js';

const pages = suite<{ stack: TestStack }>('athlete pages');

pages.before(async (context) => {
  context.stack = await startStack();
});
pages.after(async (context) => {
  await context.stack.close();
});

const PASSWORD = 'athlete pages password';
const HOSTILE = '<script>alert(1)</script>"\'&';
/** A file name keeps no path (multipart.ts cleanFilename), so its markup has no slash. */
const HOSTILE_NAME = '<img src=x onerror=alert(1)>"\'&.csv';
let counter = 0;

async function athlete(stack: TestStack): Promise<{ user: UserRecord; jar: CookieJar; token: string }> {
  counter += 1;
  const email = `athlete-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Ada' });
  const { token } = await stack.userWithToken(['activities:read', 'activities:write', 'wellness:write'], { userId: user.id });
  return { user, jar: await signIn(stack, email, PASSWORD), token };
}

/** Uploads CSV activities through the API and answers their activity ids, in upload order. */
async function activities(stack: TestStack, token: string, rides: { start: string; sport?: string; name?: string }[]): Promise<string[]> {
  const ids: string[] = [];
  for (const ride of rides) {
    const response = await upload(stack, token, [{ name: ride.name ?? `${ride.start}.csv`, bytes: csvActivity({ start: ride.start, sport: ride.sport }) }]);
    const { sources } = (await response.json()) as { sources: { id: string }[] };
    const source = await settled(stack, token, sources[0]!.id);
    assert.is(source.status, 'processed', JSON.stringify(source.error));
    ids.push(source.activity_ids[0]!);
  }
  return ids;
}

function multipart(fields: Record<string, string>, files: { name: string; bytes: string }[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const file of files) form.append('files', new Blob([file.bytes]), file.name);
  return form;
}

pages('sends a browser that is not signed in to the sign-in page, and the status endpoint answers 401', async ({ stack }) => {
  const jar = new CookieJar(stack.baseUrl);
  for (const path of ['/training', '/training/activities/0123456789abcdef', '/training/season', '/training/upload']) {
    const response = await jar.get(path);
    assert.is(response.status, 303, path);
    assert.is(locationOf(response, stack.baseUrl), `/signin?next=${encodeURIComponent(path)}`, path);
  }
  const post = await jar.fetch('/training/upload', { method: 'POST', body: multipart({}, [{ name: 'a.csv', bytes: csvActivity() }]) });
  assert.is(post.status, 303);
  assert.is(locationOf(post, stack.baseUrl), '/signin');
  assert.is((await jar.get('/training/upload/status?id=0123456789abcdef')).status, 401);
});

pages('lists the same activities the API lists for the same filters, newest first, with paging', async ({ stack }) => {
  const { jar, token } = await athlete(stack);
  const ids = await activities(stack, token, [
    { start: '2024-05-01T05:00:00Z' }, { start: '2024-05-03T05:00:00Z', sport: 'running' }, { start: '2024-05-05T05:00:00Z' },
  ]);
  const idsOn = (html: string) => [...html.matchAll(/href="\/training\/activities\/([^"]+)"/g)].map((match) => match[1]);
  const apiIds = async (query: string) => ((await (await stack.get(`/api/v1/activities/?${query}`, token)).json()) as { id: string }[]).map((activity) => activity.id);

  const all = await jar.get('/training');
  assert.is(all.status, 200);
  const html = await all.text();
  assert.equal(idsOn(html), await apiIds(''));
  assert.equal(idsOn(html), [ids[2], ids[1], ids[0]]);
  assert.match(html, 'Road cycling');
  assert.match(html, /class="m dur">2:00</); // the CSV rides' 120 samples at 1 Hz last 120 s

  const filtered = await (await jar.get('/training?sport=cycling&start=2024-05-02&end=2024-05-31')).text();
  assert.equal(idsOn(filtered), await apiIds('sport=cycling&start=2024-05-02&end=2024-05-31'));
  assert.equal(idsOn(filtered), [ids[2]]);

  const bad = await (await jar.get('/training?start=yesterday')).text();
  assert.match(bad, '“yesterday” is not a date');
  assert.equal(idsOn(bad).length, 3);
});

pages('shows an activity with its summary, series and mean-max, and another user\'s activity is a 404', async ({ stack }) => {
  const owner = await athlete(stack);
  const [id] = await activities(stack, owner.token, [{ start: '2024-06-01T05:00:00Z' }]);
  const page = await owner.jar.get(`/training/activities/${id}`);
  assert.is(page.status, 200);
  const html = await page.text();
  assert.match(html, '<h1>Road cycling</h1>');
  assert.match(html, 'Avg power');
  assert.match(html, 'data-metric="power"');
  assert.match(html, 'data-metric="heart_rate"');
  assert.match(html, 'Mean-max power');
  // The CSV ride's power ramps 100 W + i for 120 s: its 5-second best is the mean of 215..219 W.
  assert.match(html, /5 s<\/span><span class="value">217<span class="unit">W/);

  const other = await athlete(stack);
  const refused = await other.jar.get(`/training/activities/${id}`);
  assert.is(refused.status, 404);
  const body = await refused.text();
  assert.not.match(body, 'Road cycling');
  assert.not.match(body, 'data-metric');
  assert.is((await other.jar.get('/training/activities/nope')).status, 404);
  assert.is((await other.jar.get(`/training/activities/${'x'.repeat(100)}`)).status, 404);
});

/** A 10-minute run CSV at a steady 5:00 /km (3.333 m/s), with a 1-minute stop (0 m/s) after 5 minutes. */
function runCsv(start: string): string {
  const lines = ['timestamp,sport,speed,heart_rate,distance'];
  let distance = 0;
  for (let i = 0; i < 600; i++) {
    const speed = i >= 300 && i < 360 ? 0 : 1000 / 300;
    distance += speed;
    lines.push(`${new Date(Date.parse(start) + i * 1000).toISOString().slice(0, 19)}+00:00,running.trail,${speed},${140 + (i % 10)},${distance.toFixed(1)}`);
  }
  return `${lines.join('\n')}\n`;
}

pages('shows a run\'s speed as pace (min:ss per km) in the list, the summary, the chart, the mean-max and the season, and a ride\'s as km/h', async ({ stack }) => {
  const { jar, token } = await athlete(stack);
  const sent = (await (await upload(stack, token, [{ name: 'run.csv', bytes: runCsv('2024-05-10T06:00:00Z') }])).json()) as { sources: { id: string }[] };
  const source = await settled(stack, token, sent.sources[0]!.id);
  assert.is(source.status, 'processed', JSON.stringify(source.error));
  const [ride] = await activities(stack, token, [{ start: '2024-05-11T06:00:00Z' }]);

  const list = await (await jar.get('/training')).text();
  assert.match(list, /class="m spd">\d:\d\d<small>\/km<\/small>/, 'the run lists its pace');
  assert.match(list, /class="m spd"><span class="muted">–<\/span>/, 'the CSV ride has no speed to list');

  const page = await (await jar.get(`/training/activities/${source.activity_ids[0]}`)).text();
  assert.match(page, /Avg pace<\/span><span class="value">\d:\d\d<span class="unit">\/km/);
  assert.match(page, 'fastest 5:00 /km');
  assert.not.match(page, 'km/h');
  assert.match(page, 'data-label="Pace" data-unit="/km" data-values="5:00,');
  assert.match(page, 'Mean-max pace');
  assert.match(page, /1 min<\/span><span class="value">5:00<span class="unit">\/km/);
  assert.match(page, />5:00<\/text>/, 'a pace tick at 5:00');

  const season = await (await jar.get('/training/season?sport=running&metric=speed&start=2024-01-01&end=2024-12-31')).text();
  assert.match(season, '<option value="speed" selected>Pace (min/km)</option>');
  assert.match(season, 'Mean-max curve, /km');
  assert.match(season, /<td>1 min<\/td><td class="num">5:00<\/td>/, 'the key durations in pace');

  const cycling = await (await jar.get(`/training/activities/${ride}`)).text();
  assert.not.match(cycling, 'Avg pace');
  assert.not.match(cycling, '/km');
});

pages('escapes hostile tags and file names on every page', async ({ stack }) => {
  const { user, jar, token } = await athlete(stack);
  const [id] = await activities(stack, token, [{ start: '2024-07-01T05:00:00Z', name: HOSTILE_NAME }]);
  await stack.store.activities.updateOne({ id, user_id: user.id }, { set: { tags: [HOSTILE, 'tempo'] } });
  for (const path of ['/training', `/training/activities/${id}`, `/training?tags=${encodeURIComponent(HOSTILE)}`]) {
    const html = await (await jar.get(path)).text();
    assert.not.match(html, '<script>alert(1)</script>', path);
    assert.match(html, '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;', path);
  }
  const uploads = await (await jar.get('/training/upload')).text();
  assert.not.match(uploads, '<img src=x');
  // (fetch's FormData sends the name's double quote as %22)
  assert.match(uploads, '&lt;img src=x onerror=alert(1)&gt;%22&#39;&amp;.csv');
  const filtered = await (await jar.get(`/training?tags=${encodeURIComponent(HOSTILE)}`)).text();
  assert.match(filtered, `href="/training/activities/${id}"`);
});

pages('accepts an upload only with the session\'s CSRF token, as a form (303) or from the script (202 JSON), and reports its status', async ({ stack }) => {
  const { user, jar } = await athlete(stack);
  const other = await athlete(stack);
  const csrf = csrfFrom(await (await jar.get('/training/upload')).text());
  const file = [{ name: 'ride.csv', bytes: csvActivity({ start: '2024-08-01T05:00:00Z' }) }];

  for (const fields of [{} as Record<string, string>, { csrf: 'x'.repeat(csrf.length) }, { csrf: csrfFrom(await (await other.jar.get('/training/upload')).text()) }]) {
    const refused = await jar.fetch('/training/upload', { method: 'POST', body: multipart(fields, file) });
    assert.is(refused.status, 403);
    assert.match(await refused.text(), 'This form has expired');
  }
  assert.is(await stack.store.sources.count({ user_id: user.id }), 0, 'nothing was accepted without the token');

  const empty = await jar.fetch('/training/upload', { method: 'POST', body: multipart({ csrf }, []) });
  assert.is(empty.status, 422);
  assert.match(await empty.text(), 'Choose at least one file');

  const form = await jar.fetch('/training/upload', { method: 'POST', body: multipart({ csrf }, file) });
  assert.is(form.status, 303);
  assert.is(locationOf(form, stack.baseUrl), '/training/upload?notice=uploaded');
  const after = await (await jar.get('/training/upload?notice=uploaded')).text();
  assert.match(after, 'ride.csv');

  const scripted = await jar.fetch('/training/upload', {
    method: 'POST', headers: { accept: 'application/json' }, body: multipart({ csrf }, [{ name: 'second.csv', bytes: csvActivity({ start: '2024-08-02T05:00:00Z' }) }]),
  });
  assert.is(scripted.status, 202);
  const { sources } = (await scripted.json()) as { sources: { id: string; status: string; filename: string }[] };
  assert.is(sources[0]!.filename, 'second.csv');
  const deadline = Date.now() + 20_000;
  let status: { id: string; status: string; activity_ids: string[] }[] = [];
  for (;;) {
    status = (await (await jar.get(`/training/upload/status?id=${sources[0]!.id}`)).json()) as typeof status;
    if (status[0]!.status !== 'processing' || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.is(status[0]!.status, 'processed');
  assert.is(status[0]!.activity_ids.length, 1);
  assert.equal(await (await other.jar.get(`/training/upload/status?id=${sources[0]!.id}`)).json(), [], 'another user learns nothing of the source');
});

pages('says why the model and the map are missing, in the API\'s words', async ({ stack }) => {
  const { jar, token } = await athlete(stack);
  await activities(stack, token, [{ start: '2024-09-01T05:00:00Z' }]);
  const problem = (await (await stack.get('/api/v1/profile/metabolic-map/power?sport=cycling&date=2024-09-30', token)).json()) as { code: string; detail: string };
  assert.is(problem.code, 'missing_body_mass');
  const html = await (await jar.get('/training/season?sport=cycling&start=2024-01-01&end=2024-09-30&after=5')).text();
  assert.match(html, problem.detail.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;'));
  assert.match(html, 'Not enough data yet');
  assert.match(html, 'after 5 kJ');
  const capped = await (await jar.get('/training/season?sport=cycling&start=2020-01-01&end=2024-09-30&after=5')).text();
  assert.match(capped, 'Fatigue states cover at most one year');
  const speed = await (await jar.get('/training/season?sport=cycling&metric=speed&start=2024-01-01&end=2024-09-30')).text();
  assert.match(speed, 'The speed model and map are offered for running only.');
  assert.match(speed, 'Mean-max curve, km/h');
});

pages('lets only these pages run the gateway\'s own script, served with its integrity', async ({ stack }) => {
  const { jar } = await athlete(stack);
  const training = await jar.get('/training');
  const policy = training.headers.get('content-security-policy')!;
  assert.match(policy, "script-src 'self'");
  assert.match(policy, "frame-ancestors 'none'");
  assert.is(training.headers.get('cache-control'), 'no-store');
  const html = await training.text();
  const [, src, integrity] = /<script src="([^"]+)" integrity="([^"]+)" defer><\/script>/.exec(html)!;
  assert.not.match(html, /<script>/, 'no inline script');
  const script = await jar.get(src!);
  assert.is(script.status, 200);
  assert.match(script.headers.get('content-type')!, 'text/javascript');
  assert.is(`sha384-${createHash('sha384').update(Buffer.from(await script.arrayBuffer())).digest('base64')}`, integrity);
  const account = await jar.get('/account');
  assert.not.match(account.headers.get('content-security-policy')!, 'script-src');
  assert.match(await account.text(), 'href="/training"');
});

pages.run();
