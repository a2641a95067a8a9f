/**
 * The athlete's markers and settings page over the real stack (issue 28 items 4 and 7): the form declares
 * CP or FTP, heart rates, threshold pace and body mass as the API's own markers and dailies (read back
 * through /api/v1/profile/markers, /dailies and /profile/zones), refuses hostile values with an error beside
 * each field and writes nothing then, refuses a post without the session's CSRF token, keeps each person to
 * their own values, and after a change answers at once with a "recomputing" section that resolves through
 * /training/settings/derived. The same page in Chromium: test/browser/athlete-settings.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, csrfFrom, locationOf, signIn } from '../support/browser-session.js';
import { createUser } from '../../gateway/services/accounts.js';
import { addDays, todayLocal } from '../../domain/time.js';
import { csvActivity, uploadProcessed } from '../support/uploads.js';

const settings = suite<{ stack: TestStack }>('athlete settings page');

settings.before(async (context) => {
  context.stack = await startStack();
});
settings.after(async (context) => {
  await context.stack.close();
});

const PASSWORD = 'athlete settings password';
/** How long the derived section may take to resolve. */
const DERIVED_MS = 30_000;
let counter = 0;

async function athlete(stack: TestStack): Promise<{ userId: string; jar: CookieJar; token: string; csrf: string }> {
  counter += 1;
  const email = `settings-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Ada' });
  const { token } = await stack.userWithToken(['activities:read', 'activities:write', 'wellness:read', 'wellness:write'], { userId: user.id });
  const jar = await signIn(stack, email, PASSWORD);
  return { userId: user.id, jar, token, csrf: csrfFrom(await (await jar.get('/training/settings')).text()) };
}

interface MarkerRow { sport: string; marker: string; metric: string; value: number; date: string; provenance: string }

async function markers(stack: TestStack, token: string): Promise<MarkerRow[]> {
  const response = await stack.get('/api/v1/profile/markers', token);
  assert.is(response.status, 200);
  return (await response.json()) as MarkerRow[];
}

async function daily(stack: TestStack, token: string, measure: string, date: string): Promise<number | null> {
  const response = await stack.get(`/api/v1/dailies/${measure}?start=${date}&end=${date}&interpolate=false`, token);
  assert.is(response.status, 200);
  return ((await response.json()) as { value: number | null }[])[0]!.value;
}

/** Polls the derived section until it is rendered (200), with a deadline. */
async function derived(jar: CookieJar): Promise<string> {
  const deadline = Date.now() + DERIVED_MS;
  for (;;) {
    const response = await jar.get('/training/settings/derived');
    if (response.status === 200) return response.text();
    assert.is(response.status, 202, 'the derived section is either ready or recomputing');
    assert.equal(await response.json(), { state: 'recomputing' });
    if (Date.now() > deadline) throw new Error('the derived section did not resolve in time');
  }
}

const FULL = { power: '280', power_kind: 'critical_power', heart_rate_max: '188', resting_hr: '47', threshold_pace: '4:10', body_mass: '71,5', date: '' };

settings('sends a browser that is not signed in to sign in; the derived section answers 401', async ({ stack }) => {
  const jar = new CookieJar(stack.baseUrl);
  const page = await jar.get('/training/settings');
  assert.is(page.status, 303);
  assert.is(locationOf(page, stack.baseUrl), `/signin?next=${encodeURIComponent('/training/settings')}`);
  const post = await jar.post('/training/settings', { ...FULL, csrf: 'x' });
  assert.is(post.status, 303);
  assert.is(locationOf(post, stack.baseUrl), '/signin');
  assert.is((await jar.get('/training/settings/derived')).status, 401);
});

settings('declares CP, heart rates, threshold pace and body mass as the API\'s markers and dailies, and shows them with provenance', async ({ stack }) => {
  const { jar, token, csrf } = await athlete(stack);
  const today = todayLocal();
  const empty = await (await jar.get('/training/settings')).text();
  assert.match(empty, /<a href="\/training\/settings" aria-current="page">Settings<\/a>/);
  assert.match(empty, /Body mass: record it above/);
  assert.match(empty, /Threshold power: rides with power get no training load/);

  const saved = await jar.post('/training/settings', { ...FULL, csrf });
  assert.is(saved.status, 303);
  assert.is(locationOf(saved, stack.baseUrl), '/training/settings?saved=1');
  const after = await (await jar.get('/training/settings?saved=1')).text();
  assert.match(after, /data-state="recomputing"/);
  assert.match(after, /Recomputing your metabolic maps, zones and training load/);

  const rows = await markers(stack, token);
  const summary = rows.map((row) => `${row.sport} ${row.marker} ${row.metric} ${row.value} ${row.provenance} ${row.date}`).sort();
  assert.equal(summary, [
    `cycling critical_power power 280 declared ${today}`,
    `cycling heart_rate_max heart_rate 188 declared ${today}`,
    `running heart_rate_max heart_rate 188 declared ${today}`,
    // 4:10 per km = 250 s per 1000 m: 4 m/s, the interface's unit.
    `running second_threshold speed 4 declared ${today}`,
  ]);
  assert.is(await daily(stack, token, 'resting_hr', today), 47);
  assert.is(await daily(stack, token, 'body_mass', today), 71.5);

  const section = await derived(jar);
  assert.match(section, /<div id="derived" data-state="ready"/);
  assert.match(section, /<dt>Critical power<\/dt><dd><span class="v">280 W<\/span><span class="p">declared on \d{4}-\d\d-\d\d<\/span>/);
  assert.match(section, new RegExp(`<dt>Maximum heart rate</dt><dd><span class="v">188 bpm</span><span class="p">declared on ${today}</span>`));
  assert.match(section, new RegExp(`<dt>Resting heart rate</dt><dd><span class="v">47 bpm</span><span class="p">declared on ${today}</span>`));
  assert.match(section, new RegExp(`<dt>Threshold pace</dt><dd><span class="v">4:10 /km</span><span class="p">declared on ${today}</span>`));
  assert.match(section, new RegExp(`<dt>Body mass</dt><dd><span class="v">71.5 kg</span><span class="p">declared on ${today}</span>`));
  // No FTP and no ride to model one from: said in words, with what to do.
  assert.match(section, /Threshold power: rides with power get no training load and no power zones until there is one. Declare your FTP above/);

  // FTP next: the power zones appear, bound for bound as /profile/zones answers them.
  assert.is((await jar.post('/training/settings', { power: '265', power_kind: 'ftp', csrf })).status, 303);
  const ftp = (await markers(stack, token)).filter((row) => row.sport === 'cycling' && row.marker === 'second_threshold');
  assert.equal(ftp.map((row) => [row.metric, row.value, row.provenance]), [['power', 265, 'declared']]);
  const page = await derived(jar);
  for (const [quantity, system, unit] of [['power', 'seven_zone', 'W'], ['heart_rate', 'olt_i_scale', 'bpm']] as const) {
    const answer = await stack.get(`/api/v1/profile/zones?sport=cycling&quantity=${quantity}&zone_system=${system}`, token);
    assert.is(answer.status, 200, `${quantity} zones`);
    const { zones } = (await answer.json()) as { zones: { name: string; lower: number; upper: number | null }[] };
    assert.ok(zones.length >= 5);
    for (const zone of zones) {
      const range = zone.upper === null ? `from ${Math.round(zone.lower)} ${unit}` : `${Math.round(zone.lower)}–${Math.round(zone.upper)} ${unit}`;
      assert.ok(page.includes(`<td>${zone.name}</td>`) && page.includes(`<td class="num">${range}</td>`), `${quantity} zone ${zone.name} ${range}`);
    }
  }
  assert.match(page, /<td>Second threshold<\/td><td class="num">265 W<\/td><td>declared on /);
  assert.not.match(page, /Threshold power: rides with power/);
});

settings('refuses hostile values with an error beside each field, keeps what was typed escaped, and writes nothing', async ({ stack }) => {
  const { jar, token, csrf } = await athlete(stack);
  const hostile = {
    csrf, power: '"><script>1</script>', power_kind: 'ftp', heart_rate_max: '1e3', resting_hr: '-5', threshold_pace: '4:75', body_mass: '9999', date: '2024-13-01',
  };
  const response = await jar.post('/training/settings', hostile);
  assert.is(response.status, 422);
  const page = await response.text();
  assert.not.ok(page.includes('<script>1'), 'the typed value is escaped');
  assert.ok(page.includes('value="&quot;&gt;&lt;script&gt;1&lt;/script&gt;"'), 'the typed value is shown back');
  for (const field of ['power', 'heart_rate_max', 'resting_hr', 'threshold_pace', 'body_mass', 'date']) {
    assert.match(page, new RegExp(`id="${field}"[^>]*aria-invalid="true" aria-describedby="${field}-error"`), field);
    assert.match(page, new RegExp(`<p class="field-error" id="${field}-error" role="alert">`), field);
  }
  assert.match(page, /Enter a number of W from 50 to 800, e\.g\. 265\./);
  assert.match(page, /Enter minutes:seconds per km from 1:30 to 20:00, e\.g\. 4:30\./);

  const cases: [Record<string, string | string[]>, RegExp][] = [
    [{ heart_rate_max: '110', resting_hr: '115' }, /Your resting heart rate must be below your maximum \(110 bpm\)\./],
    [{ body_mass: '70', date: '2999-01-01' }, /The date cannot be after today/],
    [{ power: '250', power_kind: 'watts' }, /Choose CP or FTP\./],
    [{ power: '2'.repeat(5000) }, /At most 20 characters\./],
    [{}, /Nothing was saved: fill in at least one value\./],
    // A repeated field is no value at all (forms.ts), so nothing is filled in.
    [{ power: ['250', '260'] }, /Nothing was saved: fill in at least one value\./],
  ];
  for (const [fields, message] of cases) {
    const answer = await jar.post('/training/settings', { csrf, ...fields });
    assert.is(answer.status, 422, JSON.stringify(fields).slice(0, 80));
    assert.match(await answer.text(), message);
  }
  assert.equal(await markers(stack, token), []);
  assert.is(await daily(stack, token, 'body_mass', todayLocal()), null);
});

settings('refuses a post without the session\'s CSRF token, and keeps each person to their own values', async ({ stack }) => {
  const ada = await athlete(stack);
  const bea = await athlete(stack);
  for (const csrf of [undefined, 'x'.repeat(ada.csrf.length), bea.csrf]) {
    const fields: Record<string, string> = { power: '300', power_kind: 'critical_power' };
    if (csrf !== undefined) fields.csrf = csrf;
    const answer = await ada.jar.post('/training/settings', fields);
    assert.is(answer.status, 403, `csrf ${csrf?.slice(0, 6)}`);
  }
  assert.equal(await markers(stack, ada.token), []);

  assert.is((await ada.jar.post('/training/settings', { csrf: ada.csrf, power: '300', power_kind: 'critical_power', body_mass: '64' })).status, 303);
  assert.is((await bea.jar.post('/training/settings', { csrf: bea.csrf, heart_rate_max: '201' })).status, 303);
  assert.equal((await markers(stack, ada.token)).map((row) => [row.marker, row.value]), [['critical_power', 300]]);
  assert.equal((await markers(stack, bea.token)).map((row) => [row.marker, row.value]), [['heart_rate_max', 201], ['heart_rate_max', 201]]);
  const beaPage = await derived(bea.jar);
  assert.not.match(beaPage, /300 W|64\.0 kg/, 'Bea sees none of Ada\'s values');
  assert.match(beaPage, /<dt>Critical power<\/dt><dd><span class="none">None\./);
  const adaPage = await derived(ada.jar);
  assert.not.match(adaPage, /201 bpm/, 'Ada sees none of Bea\'s values');
  assert.match(adaPage, /300 W/);
});

settings('says a value is modeled from the rides of the last 90 days when nothing is declared, and measured by which test', async ({ stack }) => {
  const { userId, jar, token, csrf } = await athlete(stack);
  const day = addDays(todayLocal(), -3);
  // A 20-minute ride (power climbing 1 W a second) three days ago, and a body mass: enough for a model.
  const source = await uploadProcessed(stack, token, 'ride.csv', csvActivity({ start: `${day}T06:00:00Z`, rows: 1200 }));
  assert.is(source.status, 'processed', JSON.stringify(source.error));
  assert.is((await jar.post('/training/settings', { csrf, body_mass: '72' })).status, 303);
  const page = await derived(jar);
  const map = await stack.get('/api/v1/profile/metabolic-map/power?sport=cycling', token);
  assert.is(map.status, 200);
  const { markers: winners } = (await map.json()) as { markers: Record<string, { value: number; provenance: string } | null> };
  const modeled = Object.entries(winners).filter(([, winner]) => winner?.provenance === 'modeled');
  assert.ok(modeled.length > 0, 'the ride gives a model');
  for (const [name, winner] of modeled) {
    const shown = name === 'w_prime' ? `${winner!.value.toFixed(1)} kJ` : `${Math.round(winner!.value)} W`;
    assert.ok(page.includes(`<td class="num">${shown}</td><td>modeled from 1 ride in the 90 days to ${todayLocal()}</td>`), `${name} ${shown}`);
  }
  assert.match(page, /1 of your 1 activity in the 90 days to [\d-]+ has a training load\./);

  // A test's result beats the model, and the page names the test.
  const start = Date.parse(`${addDays(todayLocal(), -1)}T07:00:00Z`);
  await stack.store.tests.insert({
    id: 'ramp-test-1', user_id: userId, sport: 'cycling', start, start_offset: 0, local_date: addDays(todayLocal(), -1), end: start + 1_800_000, end_offset: 0,
    title: 'Ramp test <b>', results: { critical_power: 301 }, tags: [], created_by: 'user', app_metadata: {}, created_at: start, updated_at: start,
  });
  const measured = await derived(jar);
  assert.ok(measured.includes(`<dt>Critical power</dt><dd><span class="v">301 W</span><span class="p">measured by test “Ramp test &lt;b&gt;” on ${addDays(todayLocal(), -1)}</span>`), 'measured, with the test named');
});

settings.run();
