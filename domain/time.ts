/**
 * Time conventions (interface §1, DESIGN §5, gaps "Wire conventions").
 *
 * An instant is stored as UTC epoch milliseconds plus the UTC offset in minutes that the source carried
 * (local = utc + offset), so local wall-clock time round-trips exactly. Responses carry the UTC instant
 * with `Z` and a naive `_local` sibling; requests must carry an offset ("a naive timestamp is rejected").
 *
 * Parsing is done by regex plus explicit field-range checks, never by `Date.parse` (which accepts naive
 * values as local time and rolls impossible dates over). Nothing here reads the process time zone: every
 * offset is explicit, so there is no DST logic. Dates are calendar dates as `YYYY-MM-DD` strings.
 * Kept honest by test/domain/time.test.ts.
 */
import { z } from 'zod';

/** An instant as stored: UTC epoch milliseconds and the source's UTC offset in minutes. */
export interface Instant {
  ms: number;
  offset: number;
}

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;
/** RFC 3339 / ISO 8601 allow at most ±18:00 in practice (java.time and Python share this bound). */
const MAX_OFFSET_MINUTES = 18 * 60;

// date 'T' time, seconds optional (ISO 8601 reduced precision), fraction of any length.
const DATE_TIME = String.raw`(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?`;
// Z, ±HH, ±HHMM, ±HH:MM.
const OFFSET = String.raw`(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)`;
const INSTANT_RE = new RegExp(`^${DATE_TIME}${OFFSET}$`);
const INSTANT_SPACE_RE = new RegExp(`^${DATE_TIME.replace('[Tt]', '[Tt ]')}${OFFSET}$`);
const NAIVE_RE = new RegExp(`^${DATE_TIME}$`);
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-compatible low-level date algorithms"). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Epoch day of a valid calendar date, or null when the fields do not form one. */
function epochDay(year: number, month: number, day: number): number | null {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return daysFromCivil(year, month, day);
}

/**
 * Wall-clock milliseconds (the date-time read as if it were UTC) from the date-time capture groups
 * 1–7, or null when a field is out of range. Fractional seconds keep milliseconds and truncate beyond.
 */
function wallClockMs(m: RegExpExecArray): number | null {
  const day = epochDay(Number(m[1]), Number(m[2]), Number(m[3]));
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (day === null || hour > 23 || minute > 59 || second > 59) return null;
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  return day * MS_PER_DAY + hour * 3_600_000 + minute * MS_PER_MINUTE + second * 1000 + millis;
}

export interface ParseInstantOptions {
  /**
   * Also accept one space instead of `T` between date and time (RFC 3339 §5.6 note; what pandas and SQL
   * write into CSV files). Off by default: request fields take `T` only.
   */
  allowSpace?: boolean;
}

/**
 * Parses an ISO 8601 / RFC 3339 date-time that carries a UTC offset (`Z`, `+02:00`, `-0530`, `+02`).
 * Returns null for a naive value (no offset), malformed text, an impossible date or time (2024-02-30,
 * 24:00, leap second 60) or an offset beyond ±18:00. `-00:00` is read as offset 0.
 */
export function parseInstant(text: string, options: ParseInstantOptions = {}): Instant | null {
  const m = (options.allowSpace ? INSTANT_SPACE_RE : INSTANT_RE).exec(text);
  if (m === null) return null;
  const local = wallClockMs(m);
  if (local === null) return null;
  let offset = 0;
  if (m[8] === undefined) {
    const hours = Number(m[10]);
    const minutes = m[11] === undefined ? 0 : Number(m[11]);
    if (minutes > 59) return null;
    const magnitude = hours * 60 + minutes;
    if (magnitude > MAX_OFFSET_MINUTES) return null;
    offset = m[9] === '-' && magnitude !== 0 ? -magnitude : magnitude;
  }
  return { ms: local - offset * MS_PER_MINUTE, offset };
}

/**
 * Parses a naive local date-time (no offset) into wall-clock milliseconds — the local time read as if it
 * were UTC, so `formatUtc(result)` minus the `Z` gives the same wall-clock text. Null when not a valid
 * naive date-time (including when it carries an offset).
 */
export function parseLocalDateTime(text: string): number | null {
  const m = NAIVE_RE.exec(text);
  return m === null ? null : wallClockMs(m);
}

/**
 * True when `text` is a valid date-time that lacks only a UTC offset, so a validator can answer
 * "timestamp has no UTC offset" rather than a generic "invalid date-time".
 */
export function isNaiveDateTime(text: string): boolean {
  return parseLocalDateTime(text) !== null;
}

/** `2024-05-01T05:00:00Z`; milliseconds appear only when non-zero (`…:00.250Z`). Throws RangeError for a non-finite value. */
export function formatUtc(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/** The naive local wall-clock time `2024-05-01T07:00:00` (same millisecond rule, no offset). */
export function formatLocal(ms: number, offset: number): string {
  return formatUtc(ms + offset * MS_PER_MINUTE).slice(0, -1);
}

/** `+02:00`, `-05:30`, `+00:00` for an offset in minutes. */
export function formatOffset(offset: number): string {
  const magnitude = Math.abs(offset);
  const hh = String(Math.floor(magnitude / 60)).padStart(2, '0');
  const mm = String(magnitude % 60).padStart(2, '0');
  return `${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}

/** The instant with its source offset, `2024-05-01T07:00:00+02:00` (the inverse of `parseInstant`). */
export function formatWithOffset(ms: number, offset: number): string {
  return formatLocal(ms, offset) + formatOffset(offset);
}

/** The local calendar date `YYYY-MM-DD` of an instant at the given offset (minutes). */
export function localDate(ms: number, offset: number): string {
  return formatUtc(ms + offset * MS_PER_MINUTE).slice(0, 10);
}

/** A strict `YYYY-MM-DD` that names a real calendar date, returned unchanged; otherwise null. */
export function parseDate(text: string): string | null {
  const m = DATE_RE.exec(text);
  if (m === null) return null;
  return epochDay(Number(m[1]), Number(m[2]), Number(m[3])) === null ? null : text;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date. Throws RangeError for an invalid date. */
export function dateToEpochDay(date: string): number {
  const m = DATE_RE.exec(date);
  const day = m === null ? null : epochDay(Number(m[1]), Number(m[2]), Number(m[3]));
  if (day === null) throw new RangeError(`time: invalid date ${JSON.stringify(date)}, expected YYYY-MM-DD`);
  return day;
}

/** Epoch days of 0001-01-01 and 9999-12-31: the dates written `YYYY-MM-DD` without a sign. */
const FIRST_PLAIN_DAY = -719_162;
const LAST_PLAIN_DAY = 2_932_896;

/**
 * The `YYYY-MM-DD` date of an epoch day. Computed by arithmetic (H. Hinnant's civil_from_days), a day series
 * writes hundreds a request; the text is what `Date#toISOString` gives, which answers outside years 1–9999
 * and for a fractional day.
 */
export function epochDayToDate(day: number): string {
  if (!Number.isInteger(day) || day < FIRST_PLAIN_DAY || day > LAST_PLAIN_DAY) return formatUtc(day * MS_PER_DAY).slice(0, 10);
  const shifted = day + 719_468; // days since 0000-03-01
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const dayOfMonth = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${month < 10 ? '0' : ''}${month}-${dayOfMonth < 10 ? '0' : ''}${dayOfMonth}`;
}

/** Today's calendar date at `offset` minutes (default 0: the UTC date). `now` is epoch ms. */
export function todayLocal(now: number = Date.now(), offset = 0): string {
  return localDate(now, offset);
}

/** `date` plus `n` days (n may be negative). Throws RangeError for an invalid date. */
export function addDays(date: string, n: number): string {
  return epochDayToDate(dateToEpochDay(date) + n);
}

/** The same calendar day one year before `date` (29 February → 28 February). Throws RangeError for an invalid date. */
export function yearBefore(date: string): string {
  dateToEpochDay(date);
  const year = Number(date.slice(0, 4)) - 1;
  const monthDay = date.slice(5) === '02-29' ? '02-28' : date.slice(5);
  return `${String(year).padStart(4, '0')}-${monthDay}`;
}

/** Whole days from `a` to `b` (`b − a`; negative when b is earlier). Throws RangeError for an invalid date. */
export function daysBetween(a: string, b: string): number {
  return dateToEpochDay(b) - dateToEpochDay(a);
}

/**
 * ISO 8601 duration of a non-negative number of seconds: `PT1H2M3S`, `PT0S` for zero, `PT1.5S` for
 * fractions (rounded to the millisecond). No days component: hours may exceed 24 (`PT36H`).
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new RangeError(`time: duration must be a non-negative finite number of seconds, got ${seconds}`);
  }
  const total = Math.round(seconds * 1000);
  if (total === 0) return 'PT0S';
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const millis = total % 60_000;
  let out = 'PT';
  if (hours > 0) out += `${hours}H`;
  if (minutes > 0) out += `${minutes}M`;
  if (millis > 0) out += `${millis / 1000}S`;
  return out;
}

const DURATION_RE = /^P(?:(\d+)W|(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?)$/;

/**
 * Seconds of an ISO 8601 duration (`PT1H2M3S`, `PT1.5S`, `P1DT2H`, `P2W`); a day is 86 400 s. Years and
 * months (calendar-dependent) and negative durations are not accepted; a fraction is allowed only on the
 * last component, as ISO 8601 says. Null when not such a duration.
 */
export function parseDuration(text: string): number | null {
  const m = DURATION_RE.exec(text);
  if (m === null) return null;
  if (m[1] !== undefined) return Number(m[1]) * 7 * 86_400;
  const parts = [m[2], m[3], m[4], m[5]];
  const present = parts.flatMap((part, index) => (part === undefined ? [] : [index]));
  if (present.length === 0) return null; // 'P' or 'PT'
  if (text.includes('T') && !present.some((index) => index > 0)) return null; // 'P1DT'
  const last = present[present.length - 1];
  const scale = [86_400, 3_600, 60, 1];
  let seconds = 0;
  for (const index of present) {
    const part = (parts[index] as string).replace(',', '.');
    if (part.includes('.') && index !== last) return null;
    seconds += Number(part) * (scale[index] as number);
  }
  return seconds;
}

/**
 * Request instant: an offset-aware date-time → `{ ms, offset }`. JSON Schema (io: 'input'):
 * `{ type: 'string', format: 'date-time' }`. "An instant sent in a request must carry an offset; a naive
 * timestamp is rejected."
 */
export const instantSchema = z
  .string()
  .meta({ format: 'date-time' })
  .transform((text, ctx): Instant => {
    const instant = parseInstant(text);
    if (instant !== null) return instant;
    ctx.addIssue({
      code: 'custom',
      message: isNaiveDateTime(text) ? 'timestamp has no UTC offset' : 'invalid date-time',
      input: text,
    });
    return z.NEVER;
  });

/** Request date: a strict `YYYY-MM-DD` calendar date, kept as the string. JSON Schema format `date`. */
export const dateSchema = z
  .string()
  .refine((text) => parseDate(text) !== null, { message: 'invalid date, expected YYYY-MM-DD' })
  .meta({ format: 'date' });
