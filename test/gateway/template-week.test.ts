/**
 * GET /api/v1/profile/template-week on the real stack (gateway → GetTemplateWeek → store): no history,
 * a hand-computed week from activities inserted into the store (local dates, the window's edges, another
 * user's activities), the algorithm header, `date` validation and the scope. The model's rules are covered
 * branch by branch in test/engine/models/template-week.test.ts; this checks the wiring end to end.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sendJson, validationIssueAt } from '../support/json-api.js';
import { recordCallers, type RecordCallers } from '../support/record-callers.js';
import { insertActivity } from '../support/activities.js';
import { addDays } from '../../domain/time.js';

interface Context extends RecordCallers {
  stack: TestStack;
  otherUserId: string;
}

const week = suite<Context>('template week');
const PATH = '/api/v1/profile/template-week';
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const EMPTY_DAY = { sports: [], avg_training_duration: 'PT0S', typical_training_duration: 'PT0S' };

// Wednesday 2024-06-19: its ISO week starts Monday 2024-06-17, so the 12 weeks run 2024-03-25 … 2024-06-16.
const DATE = '2024-06-19';
const FIRST_MONDAY = '2024-03-25';

/** An activity of `seconds` recorded time starting at `hh:mm` UTC on `date`, with `offset` minutes east of UTC. */
function ride(store: TestStack['store'], userId: string, sport: string, date: string, seconds: number, options: { time?: string; offset?: number } = {}) {
  return insertActivity(store, userId, {
    sport, offset: options.offset ?? 0, start: Date.parse(`${date}T${options.time ?? '07:00'}:00Z`),
    // Two samples `seconds` apart: the record's duration_s is their distance.
    series: { rows: 2, intervalMs: seconds * 1000, metrics: { power: () => 200 } },
  });
}

const day = (week: number, weekday: number): string => addDays(FIRST_MONDAY, 7 * week + weekday);

week.before(async (context) => {
  context.stack = await startStack();
  Object.assign(context, await recordCallers(context.stack, 'Template app'));
  context.otherUserId = (await context.stack.userWithToken([])).userId;
});
week.after(async (context) => {
  await context.stack.close();
});

week('without history every day is [] and PT0S, with the algorithm version in the header', async (context) => {
  const response = await sendJson(context.stack, 'GET', `${PATH}?date=${DATE}`, context.token);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assert.equal(Object.keys(response.body), WEEKDAYS);
  for (const name of WEEKDAYS) assert.equal(response.body[name], EMPTY_DAY, name);
  assert.is(response.headers.get('threshold-algorithm'), 'template-week/1');
});

week('a generated history gives the hand-computed week; local dates count, the window edges hold, another user never counts', async (context) => {
  const { store } = context.stack;
  const mine = (sport: string, date: string, seconds: number, options?: { time?: string; offset?: number }) => ride(store, context.userId, sport, date, seconds, options);
  await Promise.all([
    // Monday: an hour of cycling.road every week → mean and median 1 h.
    ...Array.from({ length: 12 }, (_, w) => mine('cycling.road', day(w, 0), 3600)),
    // Tuesday: 30 min of running in 5 weeks → mean 5 × 1800 / 12 = 750 s; median 0 (7 zero days); in ≥ 4 weeks.
    ...Array.from({ length: 5 }, (_, w) => mine('running', day(w, 1), 1800)),
    // Saturday: 2 h of cycling in weeks 0–3, plus 1 h of running in weeks 0–2 (3 weeks: below a third).
    // Daily totals 10800 ×3, 7200, 0 ×8 → mean 39600 / 12 = 3300 s; median 0.
    ...Array.from({ length: 4 }, (_, w) => mine('cycling', day(w, 5), 7200)),
    ...Array.from({ length: 3 }, (_, w) => mine('running', day(w, 5), 3600, { time: '15:00' })),
    // Sunday 2024-06-16 by its local date: 00:30 UTC on the Monday, at UTC−2 → 45 min on the last Sunday.
    mine('running', '2024-06-17', 2700, { time: '00:30', offset: -120 }),
    // Outside the window: the Sunday before it, the date's own week (23:30 UTC on Sunday, local Monday at UTC+2).
    mine('rowing', '2024-03-24', 9999),
    mine('rowing', '2024-06-16', 9999, { time: '23:30', offset: 120 }),
    mine('rowing', DATE, 9999),
    // Another user trains every Wednesday and Thursday: never in this user's week.
    ...Array.from({ length: 12 }, (_, w) => ride(store, context.otherUserId, 'swimming', day(w, 2), 5400)),
    ...Array.from({ length: 12 }, (_, w) => ride(store, context.otherUserId, 'cycling', day(w, 3), 5400)),
  ]);
  const response = await sendJson(context.stack, 'GET', `${PATH}?date=${DATE}`, context.token);
  assert.is(response.status, 200, JSON.stringify(response.body));
  assert.equal(response.body, {
    monday: { sports: ['cycling.road'], avg_training_duration: 'PT1H', typical_training_duration: 'PT1H' },
    tuesday: { sports: ['running'], avg_training_duration: 'PT12M30S', typical_training_duration: 'PT0S' },
    wednesday: EMPTY_DAY,
    thursday: EMPTY_DAY,
    friday: EMPTY_DAY,
    saturday: { sports: ['cycling'], avg_training_duration: 'PT55M', typical_training_duration: 'PT0S' },
    sunday: { sports: [], avg_training_duration: 'PT3M45S', typical_training_duration: 'PT0S' },
  });
  // A week later the window drops week 0 and gains the week of 2024-06-17, whose Monday now holds the
  // 9999 s row (local Monday): (11 × 3600 + 9999) / 12 = 4133.25 s → PT1H8M53S; the median stays 1 h.
  const later = await sendJson(context.stack, 'GET', `${PATH}?date=${addDays(DATE, 7)}`, context.token);
  assert.equal(later.body.monday, { sports: ['cycling.road'], avg_training_duration: 'PT1H8M53S', typical_training_duration: 'PT1H' });
  // Another user's template is their own: every Wednesday and Thursday.
  const other = await context.stack.userWithToken(['activities:read'], { userId: context.otherUserId });
  const theirs = await sendJson(context.stack, 'GET', `${PATH}?date=${DATE}`, other.token);
  assert.equal(theirs.body.wednesday, { sports: ['swimming'], avg_training_duration: 'PT1H30M', typical_training_duration: 'PT1H30M' });
  assert.equal(theirs.body.monday, EMPTY_DAY);
});

week('date defaults to today: a history in 2024 lies outside the current window', async (context) => {
  const response = await sendJson(context.stack, 'GET', PATH, context.token);
  assert.is(response.status, 200);
  for (const name of WEEKDAYS) assert.equal(response.body[name], EMPTY_DAY, name);
});

week('a malformed date is a 422 on query.date', async (context) => {
  for (const date of ['2024-13-01', '19-06-2024', 'today']) {
    validationIssueAt(await sendJson(context.stack, 'GET', `${PATH}?date=${date}`, context.token), ['query', 'date']);
  }
});

week('needs activities:read and names it', async (context) => {
  const { token } = await context.stack.userWithToken(['activities:write'], { userId: context.userId });
  const response = await sendJson(context.stack, 'GET', PATH, token);
  assert.is(response.status, 403);
  assert.match(response.headers.get('www-authenticate') ?? '', /insufficient_scope.*activities:read/);
  assert.is((await sendJson(context.stack, 'GET', PATH, context.readOnly)).status, 200);
});

week.run();
