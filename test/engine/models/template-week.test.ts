/**
 * The template week (ANALYTICS.md §9) of a hand-built history. The query date is Wednesday 2024-06-19: its
 * ISO week starts Monday 2024-06-17, so the 12 complete weeks run from Monday 2024-03-25 to Sunday
 * 2024-06-16. `on(week, weekday, …)` places an activity in week 0 … 11 of that window, weekday 0 = Monday.
 */
import * as assert from 'uvu/assert';
import { test } from '../../support/uvu.js';
import { addDays } from '../../../domain/time.js';
import { median, templateWeek, templateWindow, WEEKDAYS, type TemplateActivity } from '../../../engine/models/template-week.js';

const DATE = '2024-06-19';
const FIRST_MONDAY = '2024-03-25';

function on(week: number, weekday: number, duration_s: number, sport: string): TemplateActivity {
  return { local_date: addDays(FIRST_MONDAY, 7 * week + weekday), duration_s, sport };
}

function weeks(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const HISTORY: TemplateActivity[] = [
  // Monday: an hour of cycling every week; week 0 written out: the window's first day.
  { local_date: '2024-03-25', duration_s: 3600, sport: 'cycling' },
  ...weeks(1, 11).map((w) => on(w, 0, 3600, 'cycling')),
  // Outside the window: the Monday and Sunday before it, the Monday of the current week, the date itself.
  { local_date: '2024-03-18', duration_s: 99_999, sport: 'rowing' },
  { local_date: '2024-03-24', duration_s: 99_999, sport: 'rowing' },
  { local_date: '2024-06-17', duration_s: 99_999, sport: 'rowing' },
  { local_date: '2024-06-19', duration_s: 99_999, sport: 'rowing' },
  // Tuesday: running in 5 of 12 weeks — fewer than half, so typical is zero.
  ...weeks(0, 4).map((w) => on(w, 1, 3000, 'running')),
  // Wednesday: trained in exactly 6 weeks (half): typical is the mean of 0 and the shortest day, 1800 s.
  on(0, 2, 1800, 'swimming'),
  ...weeks(1, 3).map((w) => on(w, 2, 2400, 'swimming')),
  ...weeks(4, 5).map((w) => on(w, 2, 2400, 'rowing')),
  // Thursday: cycling.road in exactly 4 weeks (a third: in; week 0 twice, counted once), running in 3 (out).
  on(0, 3, 1800, 'cycling.road'), on(0, 3, 1800, 'cycling.road'),
  ...weeks(1, 3).map((w) => on(w, 3, 3600, 'cycling.road')),
  ...weeks(4, 6).map((w) => on(w, 3, 1800, 'running')),
  // Friday: the order of sports — most weeks first, then more time, then the name.
  ...weeks(0, 5).map((w) => on(w, 4, 500, 'swimming')),
  ...weeks(0, 4).map((w) => on(w, 4, 2000, 'cycling')),
  ...weeks(5, 9).map((w) => on(w, 4, 1000, 'running')),
  ...weeks(8, 11).map((w) => on(w, 4, 250, 'rowing')),
  ...weeks(8, 11).map((w) => on(w, 4, 250, 'hiking')),
  // Saturday: a 4 h 30 min ride in 8 weeks.
  ...weeks(0, 7).map((w) => on(w, 5, 16_200, 'cycling')),
  // Sunday: only the Sunday just before the current week, two hours of running.
  { local_date: '2024-06-16', duration_s: 7200, sport: 'running' },
];

test('the window is the 12 ISO weeks before the week of the date, whichever day of that week the date is', () => {
  const window = { start: '2024-03-25', end: '2024-06-16' };
  assert.equal(templateWindow('2024-06-17'), window); // Monday
  assert.equal(templateWindow(DATE), window); // Wednesday
  assert.equal(templateWindow('2024-06-23'), window); // Sunday
  assert.equal(templateWindow('2024-06-16'), { start: '2024-03-18', end: '2024-06-09' }); // a Sunday: its own week is not complete
  assert.equal(templateWindow('2025-01-01'), { start: '2024-10-07', end: '2024-12-29' }); // across a year end
});

test('a hand-built history gives the hand-computed template', () => {
  assert.equal(templateWeek(HISTORY, DATE), {
    monday: { sports: ['cycling'], avg_training_duration: 'PT1H', typical_training_duration: 'PT1H' },
    // 5 × 3000 / 12 = 1250 s; 7 zero days → median 0.
    tuesday: { sports: ['running'], avg_training_duration: 'PT20M50S', typical_training_duration: 'PT0S' },
    // (1800 + 5 × 2400) / 12 = 1150 s; median (0 + 1800) / 2 = 900 s; rowing in 2 weeks is out.
    wednesday: { sports: ['swimming'], avg_training_duration: 'PT19M10S', typical_training_duration: 'PT15M' },
    // (4 × 3600 + 3 × 1800) / 12 = 1650 s; sorted 0 × 5, 1800 × 3, 3600 × 4 → median 1800 s.
    thursday: { sports: ['cycling.road'], avg_training_duration: 'PT27M30S', typical_training_duration: 'PT30M' },
    // Days 2500 × 5, 1500, 1000, 1000, 1500, 1500, 500, 500: mean 20000 / 12 = 1666.7 → 1667 s, median 1500 s.
    // swimming 6 weeks; cycling and running 5 weeks, cycling more time; hiking and rowing tie on both → by name.
    friday: {
      sports: ['swimming', 'cycling', 'running', 'hiking', 'rowing'],
      avg_training_duration: 'PT27M47S', typical_training_duration: 'PT25M',
    },
    // 8 × 16200 / 12 = 10800 s; 4 zeros → median 16200 s.
    saturday: { sports: ['cycling'], avg_training_duration: 'PT3H', typical_training_duration: 'PT4H30M' },
    // One Sunday of 12: 7200 / 12 = 600 s; one week is under a third, so no sport.
    sunday: { sports: [], avg_training_duration: 'PT10M', typical_training_duration: 'PT0S' },
  });
});

test('the keys run monday through sunday, in order', () => {
  assert.equal(Object.keys(templateWeek(HISTORY, DATE)), [...WEEKDAYS]);
});

test('an activity on the Monday of the current week counts only once that week is complete', () => {
  const current = [{ local_date: '2024-06-17', duration_s: 1200, sport: 'running' }];
  assert.is(templateWeek(current, DATE).monday.avg_training_duration, 'PT0S');
  assert.is(templateWeek(current, '2024-06-24').monday.avg_training_duration, 'PT1M40S'); // 1200 / 12
});

test('no history gives every day no sports and PT0S', () => {
  const empty = { sports: [], avg_training_duration: 'PT0S', typical_training_duration: 'PT0S' };
  assert.equal(templateWeek([], DATE), Object.fromEntries(WEEKDAYS.map((day) => [day, empty])));
  // Activities only outside the window are no history either.
  assert.equal(templateWeek([{ local_date: '2023-01-02', duration_s: 3600, sport: 'cycling' }], DATE), Object.fromEntries(WEEKDAYS.map((day) => [day, empty])));
});

test('the median of an even count is the mean of the two middle values', () => {
  assert.is(median(Float64Array.of(3, 1, 2)), 2);
  assert.is(median(Float64Array.of(4, 1, 3, 2)), 2.5);
  // 12 days, 6 zero: (0 + the shortest trained day) / 2; 7 zero: 0.
  assert.is(median(Float64Array.of(0, 0, 0, 0, 0, 0, 600, 900, 900, 900, 900, 900)), 300);
  assert.is(median(Float64Array.of(0, 0, 0, 0, 0, 0, 0, 900, 900, 900, 900, 900)), 0);
});

test.run();
