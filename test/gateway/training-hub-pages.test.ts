/**
 * The training hub's pages over HTTP on the real stack (issue 28 items 1, 2 and 6): a season of generated
 * rides uploaded through the API; /training/load and /training/calendar answer with the numbers of
 * `GET /api/v1/ext/training-load` and `…/activities/{id}/numbers` (data attributes read back from the HTML),
 * the empty states say what to do next (no activities: upload; no threshold: declare one), hostile query
 * values are named on the page (never a 500), and a coach reads a member's pages only through the member's
 * authorization of the team: a non-member and a user who never authorized it get the 404 page, an
 * authorization without activities:read shows "not shared". The same pages in Chromium:
 * test/browser/training-hub.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sessionFor } from '../support/sessions.js';
import { declareThresholds, seasonRides, uploadSeason } from '../support/training-season.js';
import { createUser } from '../../gateway/services/accounts.js';
import { createTeam } from '../../gateway/services/teams.js';
import { authorizeTeam } from '../../gateway/services/team-access.js';

interface Context {
  stack: TestStack;
  athlete: { id: string; token: string; cookie: string };
  ids: string[];
}

const hub = suite<Context>('training hub pages');

const DAYS = 20;
const today = new Date().toISOString().slice(0, 10);

async function page(context: Context, path: string, cookie = context.athlete.cookie): Promise<{ status: number; body: string; location: string | null }> {
  const response = await fetch(`${context.stack.baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' });
  return { status: response.status, body: await response.text(), location: response.headers.get('location') };
}

/** Every `attr="…"` of the elements matching `tag … marker`. */
function attributes(body: string, marker: string, attr: string): number[] {
  return [...body.matchAll(new RegExp(`<[^>]*${marker}[^>]*>`, 'g'))].map((match) => Number(new RegExp(` ${attr}="([^"]*)"`).exec(match[0])![1]));
}

hub.before(async (context) => {
  context.stack = await startStack();
  const user = await createUser(context.stack.store, { email: 'ada@example.com', first_name: 'Ada', last_name: 'Rider' });
  const { token } = await context.stack.userWithToken(['activities:read', 'activities:write', 'wellness:write', 'workouts:read', 'workouts:write'], { userId: user.id });
  context.athlete = { id: user.id, token, cookie: (await sessionFor(context.stack.store, user.id)).cookie };
});
hub.after(async (context) => {
  await context.stack.close();
});

hub('signed out, the pages send to sign-in; with no activity, the load page says to upload', async (context) => {
  for (const path of ['/training/load', '/training/calendar']) {
    const response = await page(context, path, '');
    assert.is(response.status, 303, path);
    assert.match(response.location ?? '', /\/signin/);
  }
  const empty = await page(context, '/training/load');
  assert.is(empty.status, 200);
  assert.match(empty.body, /No activities yet\./);
  assert.match(empty.body, /href="\/training\/upload"/);
  assert.match(empty.body, /<nav class="athlete"[^]*href="\/training\/calendar"[^]*href="\/training\/load" aria-current="page">Load</);
});

hub('with rides and no threshold, the load page says to declare one at /training/settings; then states the API\'s numbers', async (context) => {
  context.ids = await uploadSeason(context.stack, context.athlete.token, seasonRides(DAYS, today));
  const before = await page(context, '/training/load');
  assert.match(before.body, /No load without a threshold\./);
  assert.match(before.body, /href="\/training\/settings"/);

  await declareThresholds(context.stack, context.athlete.token, '2000-01-01');
  const start = new Date(Date.now() - 41 * 86_400_000).toISOString().slice(0, 10);
  const rows = (await (await context.stack.get(`/api/v1/ext/training-load?start=${start}&end=${today}&format=json`, context.athlete.token)).json()) as { date: string; load: number; fitness: number; fatigue: number; form: number }[];
  const shown = await page(context, '/training/load');
  assert.is(shown.status, 200);
  const last = rows.at(-1)!;
  const words = /<p class="words" id="current" data-date="([^"]+)" data-fitness="([^"]+)" data-fatigue="([^"]+)" data-form="([^"]+)">/.exec(shown.body)!;
  assert.equal([words[1], Number(words[2]), Number(words[3]), Number(words[4])], [last.date, last.fitness, last.fatigue, last.form]);
  const fitnessText = new RegExp(`fitness <span data-value="fitness">${Math.round(last.fitness) < 0 ? '−' : ''}${Math.abs(Math.round(last.fitness))}</span>`);
  assert.match(shown.body, fitnessText);
  // The wide chart's bars, day by day, are the API's loads.
  const bars = attributes(shown.body.split('class="chart chart-narrow"')[0]!, 'class="day"', 'data-load');
  assert.equal(bars, rows.map((row) => row.load));
  assert.ok(rows.some((row) => row.load > 0), 'some load');
});

hub('the calendar: every activity with its load from /numbers, week totals the sums of their activities, fitness and form on Sunday', async (context) => {
  const shown = await page(context, '/training/calendar');
  assert.is(shown.status, 200);
  assert.match(shown.body, /class="current"/, 'opens on the current week');
  const rows = shown.body.split('<tr id="week-').slice(1);
  assert.is(rows.length, 5);
  let seen = 0;
  for (const row of rows) {
    const loads = attributes(row, 'data-activity=', 'data-load');
    const seconds = attributes(row, 'data-activity=', 'data-seconds');
    const total = /data-week-total data-seconds="([^"]+)" data-metres="([^"]+)" data-load="([^"]+)"/.exec(row)!;
    assert.ok(Math.abs(Number(total[1]) - seconds.reduce((a, b) => a + b, 0)) < 1e-6);
    assert.ok(Math.abs(Number(total[3]) - loads.reduce((a, b) => a + b, 0)) < 1e-6);
    seen += loads.length;
  }
  const inRange = seasonRides(DAYS, today).filter((ride) => ride.start.slice(0, 10) >= /week-(\d{4}-\d\d-\d\d)/.exec(shown.body)![1]!).length;
  assert.is(seen, inRange);
  const id = /data-activity="([^"]+)" data-seconds="[^"]+" data-metres="[^"]+" data-load="([^"]+)"/.exec(shown.body)!;
  const numbers = (await (await context.stack.get(`/api/v1/ext/activities/${id[1]}/numbers`, context.athlete.token)).json()) as { load: number };
  assert.is(Number(id[2]), numbers.load);
  assert.match(shown.body, new RegExp(`href="/training/activities/${id[1]}"`));
});

hub('the calendar shows a scheduled workout on its day, with its title', async (context) => {
  const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const created = await fetch(`${context.stack.baseUrl}/api/v1/workouts/schedule`, {
    method: 'POST', headers: { authorization: `Bearer ${context.athlete.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ start: `${day}T07:00:00Z`, swf: { title: 'Tempo <b>intervals</b>', sport: 'running', content: [{ type: 'step', effort: 'work', volume: { quantity: 'duration', value: 1200 }, intensity: { quantity: 'speed', value: 3.6 } }] } }),
  });
  assert.is(created.status, 200, await created.clone().text());
  const shown = await page(context, '/training/calendar');
  const cell = new RegExp(`<td[^>]* data-date="${day}">[^]*?</td>`).exec(shown.body)![0];
  assert.match(cell, /<div class="cal-plan" data-workout><strong>Tempo &lt;b&gt;intervals&lt;\/b&gt;<\/strong><span>Planned running<\/span>/);
});

hub('hostile query values are named on the page, never a 500', async (context) => {
  for (const [path, problem] of [
    ['/training/load?range=forever', /“forever” is not a range/],
    ['/training/load?range=custom&start=2024-13-45&end=2024-01-01', /“2024-13-45” is not a date/],
    ['/training/load?range=custom&start=2024-05-01&end=2024-01-01', /starts \(2024-05-01\) after it ends/],
    ['/training/load?range=custom&start=1900-01-01&end=2024-01-01', /at most 731 days/],
    ['/training/calendar?week=%3Cscript%3E', /“&lt;script&gt;” is not a date/],
    ['/training/calendar?week=9999-12-31', /“9999-12-31” is not a date \(YYYY-MM-DD\) from 1900-01-01 to \d{4}-/],
    ['/training/calendar?week=1900-01-01', /Weeks 11 Dec to 14 Jan/],
    ['/training/calendar?week=2999-12-31', /is not a date/],
    [`/training/calendar?week=${new Date(Date.now() + 9 * 365 * 86_400_000).toISOString().slice(0, 10)}`, /<h1>Calendar<\/h1>/],
    ['/training/load?range=custom&start=0001-01-01&end=0001-02-01', /“0001-01-01” is not a date/],
    ['/training/load?range=custom&start=1900-01-01&end=1900-02-01', /1900-01-01 to 1900-02-01/],
    ['/training/load?range=custom&start=2999-12-01&end=2999-12-31', /“2999-12-01” is not a date/],
    ['/training/load?range=custom&range=3m&start=x', /is not a date/],
  ] as const) {
    const response = await page(context, path);
    assert.is(response.status, 200, path);
    assert.match(response.body, problem, path);
    assert.not.match(response.body, /<script>/);
  }
});

const TEAM_LINKS = { url: 'https://rouleur.example.com', image: 'https://rouleur.example.com/logo.png', privacy_statement: 'https://rouleur.example.com/privacy' };

/**
 * A coach's team `name` that the season's athlete authorized with activities:read and Pia Private with
 * wellness:read only; Sam, a stranger to it; the coach's and the stranger's session cookies, and the
 * athlete's member pages' prefix. `tag` keeps the e-mail addresses apart between tests.
 */
async function coachedTeam(context: Context, tag: string, name: string) {
  const { store } = context.stack;
  const coach = await createUser(store, { email: `${tag}coach@example.com`, first_name: 'Cora', last_name: 'Coach' });
  const stranger = await createUser(store, { email: `${tag}stranger@example.com`, first_name: 'Sam' });
  const private_ = await createUser(store, { email: `${tag}private@example.com`, first_name: 'Pia', last_name: 'Private' });
  const team = await createTeam(store, coach.id, { name, ...TEAM_LINKS });
  await authorizeTeam(store, team.id, context.athlete.id, ['activities:read']);
  await authorizeTeam(store, team.id, private_.id, ['wellness:read']);
  return {
    team, stranger, private_,
    coachCookie: (await sessionFor(store, coach.id)).cookie,
    strangerCookie: (await sessionFor(store, stranger.id)).cookie,
    base: `/teams/${team.id}/members/${context.athlete.id}`,
  };
}

hub('a coach sees an authorizing athlete\'s pages with their name, "not shared" without activities:read, and 404 otherwise', async (context) => {
  const { team, stranger, private_, coachCookie, strangerCookie, base } = await coachedTeam(context, '', 'Club Rouleur');
  const other = await createTeam(context.stack.store, stranger.id, { name: 'Other club', ...TEAM_LINKS });
  for (const view of ['calendar', 'load', 'season']) {
    const shown = await page(context, `${base}/${view}`, coachCookie);
    assert.is(shown.status, 200, view);
    assert.match(shown.body, /<h1>[^<]* — Ada Rider<\/h1>/, view);
  }
  const calendar = await page(context, `${base}/calendar`, coachCookie);
  assert.match(calendar.body, /data-activity=/);
  assert.match(calendar.body, /has not shared scheduled workouts/);
  assert.not.match(calendar.body, /href="\/training\/activities\//, 'no link to the athlete\'s own activity pages');
  const load = await page(context, `${base}/load`, coachCookie);
  assert.match(load.body, /Ada Rider’s <strong>fitness/);
  const athletes = await page(context, `/teams/${team.id}/athletes`, coachCookie);
  assert.match(athletes.body, new RegExp(`href="${base}/calendar"`));
  assert.match(athletes.body, /Pia Private[^]*Activities not shared/);

  const hidden = await page(context, `/teams/${team.id}/members/${private_.id}/calendar`, coachCookie);
  assert.is(hidden.status, 200);
  assert.match(hidden.body, /Not shared\./);
  assert.not.match(hidden.body, /data-activity=/);

  for (const [path, cookie] of [
    [`${base}/calendar`, strangerCookie], // not in the team
    [`/teams/${other.id}/members/${context.athlete.id}/calendar`, strangerCookie], // the athlete never authorized that team
    [`/teams/${team.id}/members/${stranger.id}/load`, coachCookie], // not an athlete of the team
    [`/teams/${team.id}/athletes`, strangerCookie],
    [`/teams/nope/members/${context.athlete.id}/season`, coachCookie],
  ] as const) {
    const response = await page(context, path, cookie);
    assert.is(response.status, 404, path);
    assert.not.match(response.body, /Ada/);
  }
});

hub('a coach opens a member\'s activity from their calendar: numbers and charts under the member\'s name, no corrections form; 404 otherwise', async (context) => {
  const { team, stranger: outsider, private_: quiet, coachCookie, strangerCookie: outsiderCookie, base } = await coachedTeam(context, 'activity-', 'Activity club');

  const calendar = await page(context, `${base}/calendar`, coachCookie);
  const linked = new RegExp(`<a class="cal-act" href="${base}/activities/([^"]+)"`).exec(calendar.body);
  assert.ok(linked, 'the member calendar links each activity to the member activity page');
  const id = linked![1]!;
  const shown = await page(context, `${base}/activities/${id}`, coachCookie);
  assert.is(shown.status, 200);
  assert.match(shown.body, /<h1>[^<]+ — Ada Rider<\/h1>/);
  assert.match(shown.body, new RegExp(`<a href="${base}/calendar">← Calendar — Ada Rider</a>`));
  assert.match(shown.body, /aria-labelledby="numbers"/, 'the training numbers');
  assert.ok(shown.body.includes(`<form class="zone-system" method="get" action="${base}/activities/${id}#zones">`), 'the zone chooser stays on the member activity page');
  assert.match(shown.body, /aria-labelledby="over-time"/, 'the charts');
  const numbers = (await (await context.stack.get(`/api/v1/ext/activities/${id}/numbers`, context.athlete.token)).json()) as { load: number | null };
  if (numbers.load !== null) assert.ok(shown.body.includes(String(Math.round(numbers.load))), 'the load the API answers');
  assert.not.match(shown.body, /class="corrections"|\/delete"|Delete activity/, 'no corrections or delete for a coach');

  assert.match((await page(context, `/teams/${team.id}/members/${quiet.id}/activities/${id}`, coachCookie)).body, /Not shared\./, 'without activities:read: not shared');
  for (const [path, cookie] of [
    [`${base}/activities/${id}`, outsiderCookie], // not in the team
    [`${base}/activities/${id}`, context.athlete.cookie], // the athlete is no member of the coach's team
    [`/teams/${team.id}/members/${outsider.id}/activities/${id}`, coachCookie], // never authorized the team
    [`${base}/activities/nope`, coachCookie],
    [`${base}/activities/${'x'.repeat(200)}`, coachCookie],
    [`${base}/activities/%3Cscript%3E`, coachCookie],
  ] as const) {
    const response = await page(context, path, cookie);
    assert.is(response.status, 404, path);
    assert.not.match(response.body, /Ada Rider|<script>/, path);
  }
});

hub.run();
