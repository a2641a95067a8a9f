/**
 * FIT activity files → activities with canonical series (decoded.ts). fit-file-parser (pinned) decodes
 * the fields; this wrapper makes it safe on real files, whose shapes the corpus in
 * ../shared/data/fit/ (MANIFEST.md) specifies. Decisions, each kept by test/engine/fit-corpus.test.ts:
 *
 * - Framing first (fit-frame.ts): header, chained files, the sound part of each file. The parser only
 *   ever sees whole, well-formed messages, so it cannot throw mid-way or read out of step, and the
 *   decode is linear in the input: it terminates on any bytes. Uploads over `maxBytes`, or with more
 *   messages than `maxMessages` (parser memory grows with messages), fail with fit_too_large up front.
 * - CRC: a file CRC mismatch does not fail the file. Unfinished files (a device that died before
 *   writing the CRC, python-fitparse's nick.fit) are common and their records are real; the mismatch
 *   is recorded as a warning and the structure walk still stops at the first malformed byte. A flipped
 *   value byte that keeps the framing intact cannot be detected; the warning says so.
 * - Truncation / corruption: the whole messages before the cut (or before the first malformed byte) are
 *   decoded, with a warning naming the byte and what was dropped; garbage timestamps in the tail are
 *   handled by the time rules. Nothing usable before the cut: fit_truncated / fit_corrupt.
 * - Chained FIT files: each is decoded; each activity file yields its own activities. `hr` messages
 *   from every file (Garmin appends stored strap beats as chained files) are merged onto the records
 *   (fit-heart-rate.ts). A chained file of another type (course, settings) is ignored with a warning.
 * - Multisport: one activity per session. Records belong to the session whose start_time is the
 *   latest at or before them (records before the first session go to the first; a single session takes
 *   every record). Transition sessions (FIT sport 3) are skipped with a warning: the Open Sport
 *   Taxonomy has no transition sport (garmin_fit.yaml maps it to null → `generic`), and a coach
 *   analysing a triathlon wants the swim, bike and run legs; a 1–3 minute "generic" activity per
 *   transition would only pollute sport totals and mean-max curves. Their time stays visible as the gap
 *   between legs. Sessions with fewer than two samples are skipped with a warning.
 * - No session (unfinished file): one activity from all records, sport from the `sport` message, else
 *   the first lap, else `generic`, with a warning.
 * - Time (fit-series.ts): records without timestamp dropped; duplicates merged (first value wins, gaps
 *   filled); backwards dropped; absurd jumps (> `maxJumpMs`) split the records into runs and the largest
 *   run is kept. All with warnings.
 * - Relative "system time" timestamps (< 0x10000000, seconds since device power-on, which would read
 *   as 1989/1990): fail with fit_relative_time by default. The corpus's two such files carry no usable
 *   anchor (file_id.time_created is relative too and their local_timestamp is the same fixed 2012 value
 *   in both), so any date would be invented. `relativeTimestamps: 'keep'` decodes them as they are,
 *   with a warning (the expected-value test compares them with python-fitparse's dump that way).
 * - Offset: activity.local_timestamp − activity.timestamp when plausible (fit-messages.ts), else 0.
 * - Developer fields feed metrics by native_field_num or a recognisable name; native fields win.
 * - Sport: session `{sport, sub_sport}` → FIT enum values → sportFromFit (garmin_fit.yaml).
 *
 * Not here: summaries and lap statistics (computed from the columns later), the file's own summary
 * values, course/workout files, monitoring data.
 */
import FitParser from 'fit-file-parser';
import { sportFromFit } from '../../domain/sport.js';
import { DecodeError } from './decode-error.js';
import type { DecodedActivity, DecodedFile } from './decoded.js';
import { frameFit, looksLikeFit, soundBytes, type FitFrames, type FitSegment } from './fit-frame.js';
import { heartRateSamples, mergeHeartRate, type HeartRateSamples } from './fit-heart-rate.js';
import {
  FIT_SPORT_TRANSITION, deviceNames, developerSources, fitSportValue, fitSubSportValue, lapsOf, timeOf,
  utcOffsetMinutes, type FitLap, type Message,
} from './fit-messages.js';
import { buildTable, type FitTable } from './fit-series.js';
import { SERIES_METRICS, type MetricColumn, type RecordedSeries } from './series.js';
import { indexAtOrAfter } from '../kernels/summary.js';

export interface FitDecodeOptions {
  /** Uploads larger than this fail with fit_too_large before any parsing. */
  maxBytes?: number;
  /** Data messages (counted by the framing walk) beyond which the file fails with fit_too_large. */
  maxMessages?: number;
  /** A record more than this far (ms) from the rest of the recording is an absurd jump. */
  maxJumpMs?: number;
  /**
   * Device-relative timestamps (before 0x10000000): 'fail' → fit_relative_time; 'keep' → decoded as
   * they are (1989/1990 dates) with a warning.
   */
  relativeTimestamps?: 'fail' | 'keep';
  /** Samples a session (or a sessionless file) needs to become an activity: two make a duration. */
  minSamples?: number;
}

export const FIT_DEFAULTS = {
  maxBytes: 64 * 1024 * 1024,
  maxMessages: 500_000, // ≈ 5.8 days of 1 Hz records; fit-file-parser peaks at ≈ 3 kB of heap per message
  maxJumpMs: 24 * 3600 * 1000,
  relativeTimestamps: 'fail',
  minSamples: 2,
} as const satisfies Required<FitDecodeOptions>;

type Settings = Required<FitDecodeOptions>;

/** 1989-12-31T00:00:00Z, the FIT epoch, and the first absolute FIT time (0x10000000 s after it). */
const FIT_EPOCH_MS = 631_065_600_000;
const FIT_ABSOLUTE_FROM_MS = FIT_EPOCH_MS + 0x10000000 * 1000;
const HEART_RATE = SERIES_METRICS.indexOf('heart_rate');

/** The messages of one FIT file this decoder reads, as fit-file-parser decodes them. */
interface FitContents {
  records: Message[];
  sessions: Message[];
  laps: Message[];
  fileIds: Message[];
  deviceInfos: Message[];
  fieldDescriptions: Message[];
  sports: Message[];
  activities: Message[];
  hr: Message[];
}

export async function decodeFit(bytes: Uint8Array, options: FitDecodeOptions = {}): Promise<DecodedFile> {
  const settings: Settings = { ...FIT_DEFAULTS, ...options };
  if (bytes.byteLength === 0) throw new DecodeError('fit_empty', 'fit decode: the file is empty');
  if (bytes.byteLength > settings.maxBytes) {
    throw new DecodeError('fit_too_large', `fit decode: the file has ${bytes.byteLength} bytes, more than the ${settings.maxBytes} accepted`);
  }
  if (!looksLikeFit(bytes)) {
    throw new DecodeError('fit_not_fit', 'fit decode: not a FIT file (no 12- or 14-byte header saying ".FIT")');
  }

  const frames = frameFit(bytes);
  const warnings: string[] = [];
  reportFraming(frames, warnings);
  const messages = frames.segments.reduce((sum, segment) => sum + segment.messages, 0);
  if (messages > settings.maxMessages) {
    throw new DecodeError('fit_too_large', `fit decode: the file has ${messages} messages, more than the ${settings.maxMessages} accepted`);
  }

  const parserFailures: string[] = [];
  const contents = frames.segments.map((segment, index) => parseSegment(bytes, segment, index, frames, warnings, parserFailures));
  const hr = heartRateSamples(contents.flatMap((file) => file?.hr ?? []));
  const withRecords = contents.filter((file) => file !== null && file.records.length > 0).length;

  const activities: DecodedActivity[] = [];
  let sawActivityRecords = false;
  let sawTimed = false;
  let otherType: string | null = null;
  contents.forEach((file, index) => {
    if (file === null) return;
    const where = withRecords > 1 ? `file ${index + 1} of ${frames.segments.length}: ` : '';
    const type = file.fileIds[0]?.type;
    if (type !== undefined && type !== 'activity') {
      otherType = String(type);
      if (file.records.length > 0) warnings.push(`fit decode: ${where}a FIT file of type ${String(type)}, not an activity; ignored`);
      return;
    }
    if (file.records.length === 0) return;
    sawActivityRecords = true;
    const table = buildTable(file.records, developerSources(file.fieldDescriptions, warnings), settings.maxJumpMs);
    reportTable(table, file.records.length, where, settings.maxJumpMs, warnings);
    if (table.timestamps.length === 0) return;
    sawTimed = true;
    checkAbsoluteTime(table, where, settings, warnings);
    mergeStoredHeartRate(table, hr);
    activities.push(...activitiesOf(table, file, where, settings.minSamples, warnings));
  });

  if (activities.length === 0) throw noActivity(frames, parserFailures, { sawActivityRecords, sawTimed, otherType });
  return { activities, warnings: capped(warnings) };
}

/** Warnings listed before the rest are only counted: a hostile chain of files must not yield millions. */
const MAX_WARNINGS = 50;

function capped(warnings: string[]): string[] {
  if (warnings.length <= MAX_WARNINGS) return warnings;
  return [...warnings.slice(0, MAX_WARNINGS - 1), `fit decode: ${warnings.length - MAX_WARNINGS + 1} more warnings not listed`];
}

/** fit-file-parser on the sound part of one file; null (with a warning) when there is nothing or it fails. */
function parseSegment(
  bytes: Uint8Array, segment: FitSegment, index: number, frames: FitFrames, warnings: string[], failures: string[],
): FitContents | null {
  if (segment.soundSize === 0) return null;
  const view = soundBytes(bytes, segment);
  let parsed: Record<string, unknown> | undefined;
  let failure: string | undefined;
  try {
    // force: the CRCs were checked by the framing; the parser must not refuse a salvaged file.
    new FitParser({ force: true, mode: 'list' }).parse(
      Buffer.from(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength),
      (error, data) => {
        failure = error;
        parsed = data as Record<string, unknown> | undefined;
      },
    );
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  if (parsed === undefined || failure !== undefined) {
    const which = frames.segments.length > 1 ? ` file ${index + 1} of ${frames.segments.length}` : '';
    warnings.push(`fit decode:${which} fit-file-parser failed (${failure ?? 'no result'}); its messages were dropped`);
    failures.push(failure ?? 'no result');
    return null;
  }
  const list = (value: unknown) => (Array.isArray(value) ? (value as Message[]) : []);
  const byType = (parsed.messages ?? {}) as Record<string, unknown>;
  return {
    records: list(parsed.records),
    sessions: list(parsed.sessions),
    laps: list(parsed.laps),
    fileIds: list(parsed.file_ids),
    deviceInfos: list(parsed.device_infos),
    fieldDescriptions: list(parsed.field_descriptions),
    sports: list(parsed.sports),
    activities: list(byType.activity),
    hr: list(byType.hr),
  };
}

function hex16(value: number): string {
  return `0x${value.toString(16).padStart(4, '0')}`;
}

/** Warnings for what the framing found: CRCs, cuts, malformed data, trailing bytes. */
function reportFraming(frames: FitFrames, warnings: string[]): void {
  const many = frames.segments.length > 1;
  frames.segments.forEach((segment, index) => {
    const where = many ? ` file ${index + 1} of ${frames.segments.length}:` : '';
    const dataStart = segment.offset + segment.header.headerSize;
    if (segment.header.headerCrc === 'mismatch') {
      warnings.push(`fit decode:${where} header CRC mismatch; the header was checked against the data instead`);
    }
    if (segment.crc === 'mismatch') {
      warnings.push(
        `fit decode:${where} file CRC mismatch (stored ${hex16(segment.storedCrc)}, computed ${hex16(segment.computedCrc)}): ` +
          'the file was changed after it was written or never finished; decoded without an integrity guarantee',
      );
    }
    const cut = segment.break;
    if (cut === null) {
      if (segment.crc === 'missing') warnings.push(`fit decode:${where} the file ends without its CRC; decoded without an integrity check`);
      return;
    }
    if (cut.at === 0) return; // nothing sound: the failure code says it
    const dropped = segment.header.dataSize - cut.at;
    if (cut.reason === 'truncated' && segment.presentSize === segment.header.dataSize) {
      warnings.push(
        `fit decode:${where} the data ends inside a message (the file was not finished); the ${cut.at} bytes of whole messages ` +
          `before it (${segment.records} records) were decoded, the last ${dropped} bytes dropped`,
      );
    } else if (cut.reason === 'truncated') {
      warnings.push(
        `fit decode:${where} the file is cut short: the header announces ${segment.header.dataSize} data bytes, ` +
          `${segment.presentSize} are present; the ${cut.at} bytes of whole messages before the cut (${segment.records} records) were decoded`,
      );
    } else {
      warnings.push(
        `fit decode:${where} malformed data at byte ${dataStart + cut.at} (${cut.detail}); the ${dropped} bytes from there on were dropped, ` +
          `the ${segment.records} records before it kept`,
      );
    }
  });
  if (frames.trailingBytes > 0) warnings.push(`fit decode: ${frames.trailingBytes} bytes after the last FIT file are not FIT data; ignored`);
}

/** "1 record repeats", "3 records repeat". */
function records(n: number, singular: string, plural: string): string {
  return n === 1 ? `1 record ${singular}` : `${n} records ${plural}`;
}

function reportTable(table: FitTable, total: number, where: string, maxJumpMs: number, warnings: string[]): void {
  if (table.untimed > 0 && table.untimed < total) {
    warnings.push(`fit decode: ${where}${records(table.untimed, 'without a timestamp', 'without a timestamp')} dropped`);
  }
  if (table.duplicates > 0) {
    warnings.push(
      `fit decode: ${where}${records(table.duplicates, 'repeats', 'repeat')} the previous timestamp; merged into the first record with that timestamp`,
    );
  }
  if (table.backwards > 0) {
    warnings.push(`fit decode: ${where}${records(table.backwards, 'goes', 'go')} back in time (by up to ${table.maxBackwardsMs / 1000} s); dropped`);
  }
  if (table.offRun > 0) {
    const range = table.offRunFirst === table.offRunLast
      ? new Date(table.offRunFirst).toISOString()
      : `${new Date(table.offRunFirst).toISOString()} to ${new Date(table.offRunLast).toISOString()}`;
    warnings.push(
      `fit decode: ${where}${records(table.offRun, 'jumps', 'jump')} more than ${maxJumpMs / 3_600_000} h away from the rest of the recording (${range}); dropped`,
    );
  }
}

/** Relative "system time" timestamps: fail (default) or keep with a warning. */
function checkAbsoluteTime(table: FitTable, where: string, settings: Settings, warnings: string[]): void {
  const first = table.timestamps[0]!;
  if (first >= FIT_ABSOLUTE_FROM_MS) return;
  const seconds = (first - FIT_EPOCH_MS) / 1000;
  if (settings.relativeTimestamps === 'fail') {
    throw new DecodeError(
      'fit_relative_time',
      `fit decode: ${where}timestamps are device-relative (the first record is at ${seconds} s, below 0x10000000) and the file carries no UTC anchor; the activity cannot be dated`,
    );
  }
  warnings.push(`fit decode: ${where}timestamps are device-relative (seconds since power-on); kept as they are, so dates read as ${new Date(first).getUTCFullYear()}`);
}

function mergeStoredHeartRate(table: FitTable, hr: HeartRateSamples): void {
  if (hr.times.length === 0) return;
  mergeHeartRate(table.timestamps, table.columns[HEART_RATE]!, hr);
}

interface SessionRange {
  sport: number;
  subSport: number;
  /** Rows [from, to) of the table, and the time range [lo, hi) they were cut by. */
  from: number;
  to: number;
  lo: number;
  hi: number;
}

function sessionRanges(table: FitTable, file: FitContents, where: string, warnings: string[]): SessionRange[] {
  const rows = table.timestamps.length;
  const sessions = file.sessions
    .map((session) => {
      let start = timeOf(session.start_time);
      if (Number.isNaN(start)) start = timeOf(session.timestamp) - Number(session.total_elapsed_time) * 1000;
      return { start, sport: fitSportValue(session.sport), subSport: fitSubSportValue(session.sub_sport) };
    })
    .filter((session) => !Number.isNaN(session.start))
    .sort((a, b) => a.start - b.start);
  if (sessions.length < file.sessions.length) {
    warnings.push(`fit decode: ${where}${file.sessions.length - sessions.length} sessions without a start time ignored`);
  }
  if (sessions.length === 0) {
    const sport = file.sports[0] ?? file.laps.find((lap) => lap.sport !== undefined);
    warnings.push(
      `fit decode: ${where}no session message (the file was not finished); one activity from all records, sport from ` +
        `${file.sports[0] !== undefined ? 'the sport message' : sport !== undefined ? 'the first lap' : 'nothing (generic)'}`,
    );
    return [{
      sport: fitSportValue(sport?.sport), subSport: fitSubSportValue(sport?.sub_sport),
      from: 0, to: rows, lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY,
    }];
  }
  return sessions.map((session, k) => {
    const lo = k === 0 ? Number.NEGATIVE_INFINITY : session.start;
    const hi = k === sessions.length - 1 ? Number.POSITIVE_INFINITY : sessions[k + 1]!.start;
    const from = k === 0 ? 0 : indexAtOrAfter(table.timestamps, lo);
    const to = k === sessions.length - 1 ? rows : indexAtOrAfter(table.timestamps, hi);
    return { sport: session.sport, subSport: session.subSport, from, to, lo, hi };
  });
}

/** One activity per (non-transition) session, with its rows, laps, devices and offset. */
function activitiesOf(table: FitTable, file: FitContents, where: string, minSamples: number, warnings: string[]): DecodedActivity[] {
  const ranges = sessionRanges(table, file, where, warnings);
  const offset = utcOffsetMinutes(file.activities[file.activities.length - 1], warnings);
  const devices = deviceNames(file.fileIds, file.deviceInfos);
  const laps = lapsOf(file.laps);
  const activities: DecodedActivity[] = [];
  let transitions = 0;
  let transitionSamples = 0;
  ranges.forEach((range, k) => {
    const samples = range.to - range.from;
    if (range.sport === FIT_SPORT_TRANSITION) {
      transitions++;
      transitionSamples += samples;
      return;
    }
    const sport = sportFromFit(range.sport, range.subSport);
    if (samples < minSamples) {
      warnings.push(`fit decode: ${where}session ${k + 1} of ${ranges.length} (${sport}) has ${samples} sample${samples === 1 ? '' : 's'}; not an activity`);
      return;
    }
    activities.push({
      sport,
      start: table.timestamps[range.from]!,
      end: table.timestamps[range.to - 1]!,
      offset,
      series: seriesOf(table, range.from, range.to),
      laps: lapsIn(laps, range),
      devices,
    });
  });
  if (transitions > 0) {
    warnings.push(
      `fit decode: ${where}${transitions} transition session${transitions === 1 ? '' : 's'} (${transitionSamples} samples) skipped: ` +
        'a transition is not an activity of its own',
    );
  }
  return activities;
}

function lapsIn(laps: readonly FitLap[], range: SessionRange): { start: number; end: number }[] {
  return laps.filter((lap) => lap.start >= range.lo && lap.start < range.hi).map(({ start, end }) => ({ start, end }));
}

/** Rows [from, to) as a standalone series; metrics with no value in them are left out. */
function seriesOf(table: FitTable, from: number, to: number): RecordedSeries {
  const metrics: MetricColumn[] = [];
  SERIES_METRICS.forEach((name, m) => {
    const column = table.columns[m]!;
    for (let i = from; i < to; i++) {
      if (column[i] === column[i]) {
        metrics.push({ name, values: column.slice(from, to) });
        return;
      }
    }
  });
  return { timestamps: table.timestamps.slice(from, to), metrics };
}

/** The failure when no activity came out, most specific cause first. */
function noActivity(
  frames: FitFrames,
  parserFailures: readonly string[],
  seen: { sawActivityRecords: boolean; sawTimed: boolean; otherType: string | null },
): DecodeError {
  if (!seen.sawActivityRecords && seen.otherType !== null) {
    return new DecodeError('fit_not_activity', `fit decode: a FIT file of type ${seen.otherType}, not an activity`);
  }
  // A cut or malformed file whose sound part holds no activity: the damage is the cause.
  const cut = frames.segments.find((segment) => segment.break !== null && (segment.records > 0 || !seen.sawActivityRecords));
  if (cut?.break) {
    const salvaged = cut.records === 0 ? 'before any record' : `after ${cut.records} record${cut.records === 1 ? '' : 's'}, too few for an activity`;
    if (cut.break.reason === 'truncated') {
      return new DecodeError(
        'fit_truncated',
        `fit decode: the file is cut short ${salvaged}: the header announces ${cut.header.dataSize} data bytes, ${cut.presentSize} are present`,
      );
    }
    const at = cut.offset + cut.header.headerSize + cut.break.at;
    return new DecodeError('fit_corrupt', `fit decode: malformed data at byte ${at} (${cut.break.detail}) ${salvaged}`);
  }
  if (!seen.sawActivityRecords && parserFailures.length > 0) {
    return new DecodeError('fit_corrupt', `fit decode: fit-file-parser failed: ${parserFailures[0]}`);
  }
  if (!seen.sawActivityRecords) return new DecodeError('fit_no_records', 'fit decode: the file has no record messages (no samples)');
  if (!seen.sawTimed) return new DecodeError('fit_no_timestamps', 'fit decode: no record message carries a timestamp');
  return new DecodeError('fit_no_activity', 'fit decode: the records form no activity (too few timed samples outside transitions)');
}
