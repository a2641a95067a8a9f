/** domain/daily-series.ts: one entry per date, stored / estimated / missing, estimates as gaps.md "Daily" pins them. */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { dailySeries, type StoredDaily } from '../../domain/daily-series.js';

type Source = 'manual' | 'garmin_connect';
const stored = (date: string, value: number, source: Source = 'manual'): StoredDaily<Source> => ({ date, value, source });

test('answers one entry per date of the range, both ends included, across a month and a leap day', () => {
  const series = dailySeries<Source>([], '2024-02-27', '2024-03-02', true);
  assert.equal(series.map((entry) => entry.date), ['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01', '2024-03-02']);
  assert.ok(series.every((entry) => entry.value === null && entry.status === 'missing' && entry.source === null), 'nothing stored: nothing to estimate from');
});

test('interpolates linearly between the stored values before and after a gap, source of the nearer, a tie to the earlier', () => {
  const series = dailySeries([stored('2024-01-01', 70), stored('2024-01-05', 74, 'garmin_connect')], '2024-01-01', '2024-01-05', true);
  assert.equal(series, [
    { date: '2024-01-01', value: 70, status: 'stored', source: 'manual' },
    { date: '2024-01-02', value: 71, status: 'estimated', source: 'manual' },
    { date: '2024-01-03', value: 72, status: 'estimated', source: 'manual' },
    { date: '2024-01-04', value: 73, status: 'estimated', source: 'garmin_connect' },
    { date: '2024-01-05', value: 74, status: 'stored', source: 'garmin_connect' },
  ]);
});

test('holds the first stored value before it and the last after it, reading values outside the range', () => {
  const series = dailySeries([stored('2023-12-20', 80, 'garmin_connect'), stored('2024-01-10', 90)], '2024-01-09', '2024-01-12', true);
  assert.equal(series.map((entry) => [entry.value, entry.status, entry.source]), [
    [80 + (10 * 20) / 21, 'estimated', 'manual'],
    [90, 'stored', 'manual'],
    [90, 'estimated', 'manual'],
    [90, 'estimated', 'manual'],
  ]);
  const before = dailySeries([stored('2024-02-01', 60, 'garmin_connect')], '2024-01-30', '2024-01-31', true);
  assert.equal(before.map((entry) => [entry.value, entry.status, entry.source]), [[60, 'estimated', 'garmin_connect'], [60, 'estimated', 'garmin_connect']]);
});

test('leaves every unstored date missing when estimates are off', () => {
  const series = dailySeries([stored('2024-01-01', 70), stored('2024-01-03', 72)], '2024-01-01', '2024-01-04', false);
  assert.equal(series.map((entry) => [entry.value, entry.status, entry.source]), [[70, 'stored', 'manual'], [null, 'missing', null], [72, 'stored', 'manual'], [null, 'missing', null]]);
});

test.run();
