import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import {
  addDays, yearBefore, dateSchema, daysBetween, formatDuration, formatLocal, formatOffset, formatUtc, formatWithOffset,
  instantSchema, isNaiveDateTime, localDate, parseDate, parseDuration, parseInstant, parseLocalDateTime,
  todayLocal, epochDayToDate, dateToEpochDay,
} from '../../domain/time.js';

// Nothing in domain/time.ts may depend on the process zone; run the suite under a zone with DST.
process.env.TZ = 'America/New_York';

const UTC_0500 = Date.UTC(2024, 4, 1, 5, 0, 0);

test('parses every offset form to the same instant with the offset in minutes', () => {
  assert.equal(parseInstant('2024-05-01T05:00:00Z'), { ms: UTC_0500, offset: 0 });
  assert.equal(parseInstant('2024-05-01T07:00:00+02:00'), { ms: UTC_0500, offset: 120 });
  assert.equal(parseInstant('2024-05-01T07:00:00+0200'), { ms: UTC_0500, offset: 120 });
  assert.equal(parseInstant('2024-05-01T07:00:00+02'), { ms: UTC_0500, offset: 120 });
  assert.equal(parseInstant('2024-04-30T23:30:00-0530'), { ms: UTC_0500, offset: -330 });
  assert.equal(parseInstant('2024-05-01T05:00:00+00:00'), { ms: UTC_0500, offset: 0 });
});

test('accepts lowercase t and z as RFC 3339 allows', () => {
  assert.equal(parseInstant('2024-05-01t05:00:00z'), { ms: UTC_0500, offset: 0 });
});

test('reads -00:00 as offset 0, never negative zero', () => {
  const parsed = parseInstant('2024-05-01T05:00:00-00:00');
  assert.equal(parsed, { ms: UTC_0500, offset: 0 });
  assert.ok(!Object.is(parsed?.offset, -0));
});

test('handles half-hour and negative offsets (+05:30, -09:30, +05:45)', () => {
  assert.equal(parseInstant('2024-05-01T10:30:00+05:30'), { ms: UTC_0500, offset: 330 });
  assert.equal(parseInstant('2024-04-30T19:30:00-09:30'), { ms: UTC_0500, offset: -570 });
  assert.equal(parseInstant('2024-05-01T10:45:00+05:45'), { ms: UTC_0500, offset: 345 });
});

test('keeps milliseconds and truncates finer fractions', () => {
  assert.equal(parseInstant('2024-05-01T05:00:00.25Z')?.ms, UTC_0500 + 250);
  assert.equal(parseInstant('2024-05-01T05:00:00.123999+00:00')?.ms, UTC_0500 + 123);
  assert.equal(parseInstant('2024-05-01T05:00:00.9Z')?.ms, UTC_0500 + 900);
});

test('accepts minute precision without seconds (ISO 8601 reduced precision)', () => {
  assert.equal(parseInstant('2024-05-01T07:00+02:00'), { ms: UTC_0500, offset: 120 });
});

test('rejects naive timestamps and says so through isNaiveDateTime', () => {
  for (const text of ['2024-05-01T05:00:00', '2024-05-01T05:00:00.123', '2024-05-01T05:00']) {
    assert.is(parseInstant(text), null, text);
    assert.ok(isNaiveDateTime(text), text);
  }
  assert.not.ok(isNaiveDateTime('2024-05-01T05:00:00Z'));
  assert.not.ok(isNaiveDateTime('2024-02-30T05:00:00'));
  assert.not.ok(isNaiveDateTime('yesterday'));
});

test('rejects garbage, other separators and partial values', () => {
  for (const text of [
    '', 'now', '2024-05-01', '2024-05-01 05:00:00Z', '2024-05-01T05:00:00 Z', ' 2024-05-01T05:00:00Z',
    '2024-05-01T05:00:00Z ', '20240501T050000Z', '2024-5-1T05:00:00Z', '2024-05-01T5:00:00Z',
    '2024-05-01T05:00:00.Z', '2024-05-01T05:00:00+2:00', '2024-05-01T05:00:00+02:', '2024-05-01T05:00:00+02:0',
    '2024-05-01T05:00:00UTC', '2024-05-01T05:00:00+02:00Z', '+002024-05-01T05:00:00Z', '1714539600000',
  ]) {
    assert.is(parseInstant(text), null, JSON.stringify(text));
  }
});

test('accepts a space separator only when asked (CSV cells)', () => {
  assert.is(parseInstant('2024-05-01 07:00:00+02:00'), null);
  assert.equal(parseInstant('2024-05-01 07:00:00+02:00', { allowSpace: true }), { ms: UTC_0500, offset: 120 });
  assert.equal(parseInstant('2024-05-01T07:00:00+02:00', { allowSpace: true }), { ms: UTC_0500, offset: 120 });
});

test('rejects impossible dates and times', () => {
  for (const text of [
    '2024-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2024-04-31T00:00:00Z',
    '2024-13-01T00:00:00Z', '2024-00-10T00:00:00Z', '2024-05-00T00:00:00Z', '2024-05-01T24:00:00Z',
    '2024-05-01T23:60:00Z', '2016-12-31T23:59:60Z',
  ]) {
    assert.is(parseInstant(text), null, text);
  }
  assert.ok(parseInstant('2024-02-29T00:00:00Z'));
  assert.ok(parseInstant('2000-02-29T00:00:00Z'));
});

test('rejects offsets beyond ±18:00 and offset minutes beyond 59', () => {
  assert.is(parseInstant('2024-05-01T05:00:00+18:01'), null);
  assert.is(parseInstant('2024-05-01T05:00:00-19:00'), null);
  assert.is(parseInstant('2024-05-01T05:00:00+05:60'), null);
  assert.equal(parseInstant('2024-05-01T23:00:00+18:00')?.offset, 1080);
  assert.equal(parseInstant('2024-05-01T00:00:00-18:00')?.offset, -1080);
});

test('takes the explicit offset at face value across DST transitions (no zone rules)', () => {
  // 02:30 on 2024-03-31 does not exist in Europe/Berlin and 02:30 on 2024-03-10 not in New York; the
  // offset is explicit, so both are just arithmetic.
  assert.equal(parseInstant('2024-03-31T02:30:00+01:00')?.ms, Date.UTC(2024, 2, 31, 1, 30));
  assert.equal(parseInstant('2024-03-10T02:30:00-05:00')?.ms, Date.UTC(2024, 2, 10, 7, 30));
  assert.is(formatLocal(Date.UTC(2024, 2, 10, 7, 30), -300), '2024-03-10T02:30:00');
});

test('parses years before 1970 and at the edges of four digits', () => {
  assert.equal(parseInstant('1969-12-31T23:59:59.999Z')?.ms, -1);
  assert.equal(parseInstant('0001-01-01T00:00:00Z')?.ms, Date.UTC(2001, 0, 1) - 2000 * 365.2425 * 86_400_000);
  assert.equal(parseInstant('9999-12-31T23:59:59Z')?.ms, Date.UTC(9999, 11, 31, 23, 59, 59));
});

test('formats UTC with Z and milliseconds only when non-zero', () => {
  assert.is(formatUtc(UTC_0500), '2024-05-01T05:00:00Z');
  assert.is(formatUtc(UTC_0500 + 250), '2024-05-01T05:00:00.250Z');
  assert.is(formatUtc(0), '1970-01-01T00:00:00Z');
  assert.is(formatUtc(-1), '1969-12-31T23:59:59.999Z');
  assert.throws(() => formatUtc(Number.NaN), RangeError);
});

test('formats local wall-clock time without an offset', () => {
  assert.is(formatLocal(UTC_0500, 120), '2024-05-01T07:00:00');
  assert.is(formatLocal(UTC_0500 + 5, 330), '2024-05-01T10:30:00.005');
  assert.is(formatLocal(UTC_0500, -570), '2024-04-30T19:30:00');
});

test('round-trips local and UTC across midnight in both directions', () => {
  const cases: [string, string, string, string][] = [
    // input, utc, local, local date
    ['2024-01-01T01:30:00+02:00', '2023-12-31T23:30:00Z', '2024-01-01T01:30:00', '2024-01-01'],
    ['2023-12-31T20:00:00-05:00', '2024-01-01T01:00:00Z', '2023-12-31T20:00:00', '2023-12-31'],
    ['2024-03-01T00:15:00+05:30', '2024-02-29T18:45:00Z', '2024-03-01T00:15:00', '2024-03-01'],
    ['2024-02-29T23:45:00-09:30', '2024-03-01T09:15:00Z', '2024-02-29T23:45:00', '2024-02-29'],
  ];
  for (const [input, utc, local, date] of cases) {
    const instant = parseInstant(input);
    assert.ok(instant, input);
    if (instant === null) continue;
    assert.is(formatUtc(instant.ms), utc, input);
    assert.is(formatLocal(instant.ms, instant.offset), local, input);
    assert.is(localDate(instant.ms, instant.offset), date, input);
    assert.is(formatWithOffset(instant.ms, instant.offset), input, input);
    assert.is(parseLocalDateTime(local), instant.ms + instant.offset * 60_000, input);
  }
});

test('formats offsets as ±HH:MM', () => {
  assert.is(formatOffset(0), '+00:00');
  assert.is(formatOffset(330), '+05:30');
  assert.is(formatOffset(-570), '-09:30');
});

test('parses only strict, real YYYY-MM-DD dates', () => {
  assert.is(parseDate('2024-02-29'), '2024-02-29');
  for (const text of ['2023-02-29', '2024-02-30', '2024-13-01', '2024-1-01', '2024-01-01T00:00:00Z', '20240101', ' 2024-01-01', '']) {
    assert.is(parseDate(text), null, JSON.stringify(text));
  }
});

test('adds days and counts days between dates across months, leap days and years', () => {
  assert.is(addDays('2024-02-28', 1), '2024-02-29');
  assert.is(addDays('2024-02-28', 2), '2024-03-01');
  assert.is(addDays('2024-01-01', -1), '2023-12-31');
  assert.is(addDays('2024-05-01', -90), '2024-02-01');
  assert.is(addDays('1970-01-01', -1), '1969-12-31');
  assert.is(daysBetween('2024-01-01', '2025-01-01'), 366);
  assert.is(daysBetween('2023-01-01', '2024-01-01'), 365);
  assert.is(daysBetween('2024-03-01', '2024-02-28'), -2);
  assert.is(daysBetween('2024-05-01', '2024-05-01'), 0);
  assert.throws(() => addDays('2024-02-30', 1), RangeError);
  assert.throws(() => daysBetween('2024-01-01', 'tomorrow'), RangeError);
});

test('gives today as the UTC date by default and the local date at an offset', () => {
  const now = Date.UTC(2024, 4, 1, 23, 30);
  assert.is(todayLocal(now), '2024-05-01');
  assert.is(todayLocal(now, 60), '2024-05-02');
  assert.ok(parseDate(todayLocal()));
});

test('formats durations as ISO 8601 with hours beyond a day and fractional seconds', () => {
  const cases: [number, string][] = [
    [0, 'PT0S'], [1, 'PT1S'], [59, 'PT59S'], [60, 'PT1M'], [3600, 'PT1H'], [3661, 'PT1H1M1S'],
    [3723, 'PT1H2M3S'], [3601, 'PT1H1S'], [86_400, 'PT24H'], [129_600, 'PT36H'], [1.5, 'PT1.5S'],
    [0.001, 'PT0.001S'], [61.25, 'PT1M1.25S'], [59.9996, 'PT1M'], [0.0004, 'PT0S'],
  ];
  for (const [seconds, text] of cases) assert.is(formatDuration(seconds), text, String(seconds));
  assert.throws(() => formatDuration(-1), RangeError);
  assert.throws(() => formatDuration(Number.POSITIVE_INFINITY), RangeError);
});

test('parses ISO 8601 durations and round-trips formatted ones', () => {
  const cases: [string, number][] = [
    ['PT0S', 0], ['PT1H2M3S', 3723], ['PT36H', 129_600], ['PT1.5S', 1.5], ['PT0,5S', 0.5], ['P1D', 86_400],
    ['P1DT2H', 93_600], ['P2W', 1_209_600], ['PT90M', 5400], ['PT1.5H', 5400], ['PT1M30S', 90],
  ];
  for (const [text, seconds] of cases) assert.is(parseDuration(text), seconds, text);
  for (const seconds of [0, 1, 3723, 129_600, 61.25, 0.001]) {
    assert.is(parseDuration(formatDuration(seconds)), seconds, String(seconds));
  }
});

test('rejects durations that are malformed, calendar-based, negative or fractional before the end', () => {
  for (const text of ['', 'P', 'PT', 'P1DT', '1H', 'PT1h', 'P1Y', 'P1M', '-PT1S', 'PT-1S', 'PT1.5H30M', 'PT1S2M', 'P1W2D', 'PT.5S', ' PT1S']) {
    assert.is(parseDuration(text), null, JSON.stringify(text));
  }
});

test('instantSchema transforms offset-aware text and names the missing offset', () => {
  assert.equal(instantSchema.parse('2024-05-01T07:00:00+02:00'), { ms: UTC_0500, offset: 120 });
  const naive = instantSchema.safeParse('2024-05-01T07:00:00');
  assert.not.ok(naive.success);
  assert.is(naive.error?.issues[0]?.message, 'timestamp has no UTC offset');
  const garbage = instantSchema.safeParse('2024-02-30T07:00:00Z');
  assert.is(garbage.error?.issues[0]?.message, 'invalid date-time');
  assert.not.ok(instantSchema.safeParse(1714539600000).success);
});

test('instantSchema reports the path of a nested field', () => {
  const body = z.object({ timestamp: instantSchema });
  const result = body.safeParse({ timestamp: '2024-05-01T07:00:00' });
  assert.equal(result.error?.issues[0]?.path, ['timestamp']);
});

test('dateSchema accepts real dates only', () => {
  assert.is(dateSchema.parse('2024-02-29'), '2024-02-29');
  assert.is(dateSchema.safeParse('2024-02-30').error?.issues[0]?.message, 'invalid date, expected YYYY-MM-DD');
  assert.not.ok(dateSchema.safeParse('2024-02-01T00:00:00Z').success);
});

test('JSON Schema shows string with date-time and date formats, also when optional or nullable', () => {
  const io = { io: 'input' } as const;
  assert.equal(z.toJSONSchema(instantSchema, io), {
    $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string', format: 'date-time',
  });
  assert.equal(z.toJSONSchema(dateSchema, io), {
    $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string', format: 'date',
  });
  const query = z.toJSONSchema(z.object({ start: dateSchema.nullable().optional(), at: instantSchema.optional() }), io);
  const properties = query.properties as Record<string, unknown>;
  assert.equal(properties.at, { type: 'string', format: 'date-time' });
  assert.equal(properties.start, { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] });
});

test('gives the same calendar day a year earlier, 29 February becoming 28 February', () => {
  assert.is(yearBefore('2025-06-30'), '2024-06-30');
  assert.is(yearBefore('2024-02-29'), '2023-02-28');
  assert.is(yearBefore('2025-01-01'), '2024-01-01');
  assert.throws(() => yearBefore('2025-02-30'), RangeError);
});

test('writes the date of an epoch day as Date#toISOString does: every day 1600–2600, a stride over years 1–9999, beyond', () => {
  const iso = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);
  const checked = (day: number): void => {
    if (epochDayToDate(day) !== iso(day)) assert.is(epochDayToDate(day), iso(day), `day ${day}`);
  };
  for (let day = dateToEpochDay('1600-01-01'); day <= dateToEpochDay('2600-12-31'); day++) checked(day);
  for (let day = dateToEpochDay('0001-01-01'); day <= dateToEpochDay('9999-12-31'); day += 97) checked(day);
  for (const day of [-719_162, -719_163, 2_932_896, 2_932_897, 0, -1, 0.5, -0.5, 1e7]) checked(day);
  assert.is(epochDayToDate(dateToEpochDay('2024-02-29')), '2024-02-29');
  assert.is(epochDayToDate(dateToEpochDay('0001-01-01')), '0001-01-01');
  assert.is(epochDayToDate(dateToEpochDay('9999-12-31')), '9999-12-31');
});

test.run();
