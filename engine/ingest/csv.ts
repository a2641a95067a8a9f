/**
 * CSV activity files → the canonical recorded series (series.ts).
 *
 * Interface: "A CSV needs a sport column (Open Sport Taxonomy code) and a timestamp column of
 * offset-aware ISO 8601 datetimes; naive timestamps are rejected during processing."
 *
 * - Required: `timestamp` (offset-aware, e.g. 2024-05-01T07:00:00+02:00 or …Z) and `sport` (the same
 *   well-formed taxonomy string on every row that has one; the first non-empty value wins).
 * - Optional: one numeric column per series metric (SERIES_METRICS, interface units). An empty cell
 *   is no value; a non-numeric cell is a warning and no value.
 * - Ignored with a warning: `duration`, `lap`, `lactate`, `rpe`, `notes` (not numeric series) and
 *   unknown columns. Header names are matched case-insensitively, surrounding spaces ignored.
 * - Rows must be in time order: a row earlier than the previous kept row is dropped, a repeated
 *   timestamp keeps the first row; both with warnings.
 * - Hostile input: at most `maxRows` data rows and `maxLineChars` characters per line (csv-parse's
 *   max_record_size); warnings of one kind are listed up to `maxWarningsPerKind`, then counted.
 *
 * The bytes are fed to csv-parse's streaming parser in chunks and records are consumed as they come.
 * It runs in a worker (engine/pool/worker.ts). Deliberately not here: sport canonicalisation (the
 * `canonicalSport` hook, served by domain/sport.ts) and FIT files. test/engine/csv.test.ts.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, Parser } from 'csv-parse';
import { DecodeError } from './decode-error.js';
import { isNaiveDateTime, parseInstant } from '../../domain/time.js';
import { MAX_SPORT_LENGTH } from '../../domain/sport.js';
import { NON_SERIES_METRICS, SERIES_METRICS, type MetricColumn, type RecordedSeries, type SeriesMetric } from './series.js';

export interface CsvDecodeOptions {
  /**
   * Canonicalisation plug point (domain/sport.ts): maps a well-formed Open Sport Taxonomy string to
   * its canonical form (legacy renames such as `cycling.trainer` → `cycling+stationary`), or null
   * when the sport is not acceptable. Without it, the well-formed string is kept as written.
   */
  canonicalSport?: (sport: string) => string | null;
  /** Data rows accepted before the decode fails with csv_too_many_rows. */
  maxRows?: number;
  /** Characters per line (csv-parse max_record_size) before the decode fails with csv_malformed. */
  maxLineChars?: number;
  /** Bytes handed to the parser per write. */
  chunkBytes?: number;
  /** Warnings listed per kind (bad cells, dropped rows); the rest are counted in one summary line. */
  maxWarningsPerKind?: number;
}

export const CSV_DEFAULTS = {
  maxRows: 2_000_000, // ≈ 23 days at 1 Hz, far beyond any single activity
  maxLineChars: 65_536,
  chunkBytes: 64 * 1024,
  maxWarningsPerKind: 10,
} as const;

type CsvSettings = Required<Omit<CsvDecodeOptions, 'canonicalSport'>> & Pick<CsvDecodeOptions, 'canonicalSport'>;

export interface DecodedCsv {
  /** Canonical (or, without the hook, well-formed as written) Open Sport Taxonomy string. */
  sport: string;
  /** First and last kept sample, UTC epoch milliseconds. */
  start: number;
  end: number;
  /** UTC offset of the first sample as written, minutes east of UTC. */
  offset: number;
  series: RecordedSeries;
  warnings: string[];
}

/** Open Sport Taxonomy grammar: root, `.`-separated sub-sports, `+`-separated modifiers. */
const SPORT_GRAMMAR = /^[a-z]+(?:_[a-z]+)*(?:\.[a-z]+(?:_[a-z]+)*)*(?:\+[a-z]+(?:_[a-z]+)*)*$/;

/** Light well-formedness check of a sport string; canonicalisation is the `canonicalSport` hook's job. */
export function isWellFormedSport(sport: string): boolean {
  return sport.length <= MAX_SPORT_LENGTH && SPORT_GRAMMAR.test(sport);
}

/** A decimal number as written in CSV files: no hex, no `Infinity`, no thousands separators. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

interface Row {
  /** Line of the source file where the record ends (1 = header). */
  line: number;
  cells: string[];
}

export async function decodeCsv(bytes: Uint8Array, options: CsvDecodeOptions = {}): Promise<DecodedCsv> {
  const settings: CsvSettings = { ...CSV_DEFAULTS, ...options };
  const decoder = new CsvRows(settings, estimateRows(bytes.byteLength, settings.maxRows));
  const parser = new LineTaggingParser({
    bom: true,
    trim: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true, // rows of empty cells (`,,,`), as spreadsheets export
    relax_column_count: true, // checked in order with the other row errors, against the header
    max_record_size: settings.maxLineChars,
  });
  // A refused row (or the parser's own error, seen by the consumer) ends the pipeline while the parser
  // still reads ahead; the teardown then rejects with an AbortError of its own, so the first error is
  // kept here and wins.
  let refused: unknown = null;
  try {
    await pipeline(Readable.from(chunksOf(bytes, settings.chunkBytes)), parser, async (rows: AsyncIterable<Row>) => {
      try {
        for await (const row of rows) decoder.accept(row);
      } catch (error) {
        refused = error;
        throw error;
      }
    });
  } catch (error) {
    const failure = refused ?? error;
    if (failure instanceof CsvError) throw malformed(failure, settings.maxLineChars);
    throw failure;
  }
  return decoder.finish();
}

/**
 * csv-parse's streaming parser, tagging each record with the line it ends on while the parser still
 * knows it (records are consumed later, when the parser has read ahead). Cheaper than `on_record`,
 * which builds an info object per record.
 */
class LineTaggingParser extends Parser {
  override push(record: unknown, encoding?: BufferEncoding): boolean {
    return super.push(record === null ? null : ({ line: this.info.lines, cells: record as string[] } satisfies Row), encoding);
  }
}

function* chunksOf(bytes: Uint8Array, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.byteLength; at += size) {
    yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(size, bytes.byteLength - at));
  }
}

/** Initial column capacity: about one row per 24 bytes, grown by doubling when short. */
function estimateRows(byteLength: number, maxRows: number): number {
  return Math.max(256, Math.min(maxRows, Math.ceil(byteLength / 24)));
}

/** csv-parse's error as a decode failure naming the line. */
function malformed(error: CsvError, maxLineChars: number): DecodeError {
  const line = typeof error['lines'] === 'number' ? ` line ${error['lines']}:` : '';
  switch (error.code) {
    case 'CSV_MAX_RECORD_SIZE':
      return new DecodeError('csv_malformed', `csv decode:${line} a line is longer than ${maxLineChars} characters`);
    case 'CSV_QUOTE_NOT_CLOSED':
      return new DecodeError('csv_malformed', `csv decode:${line} a quoted field is never closed`);
    default:
      return new DecodeError('csv_malformed', `csv decode:${line} ${error.message}`);
  }
}

/** Growable column of doubles; NaN means no value. */
class Float64Column {
  values: Float64Array;
  length = 0;

  constructor(capacity: number) {
    this.values = new Float64Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  /** The filled part as a standalone array (its own buffer, so it can be transferred). */
  finish(): Float64Array {
    return this.values.slice(0, this.length);
  }
}

/** Warnings with a per-kind cap, so a hostile file cannot produce millions of strings. */
class Warnings {
  private readonly listed: string[] = [];
  private readonly counts = new Map<string, number>();

  constructor(private readonly perKind: number) {}

  add(kind: string, message: string): void {
    const count = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, count);
    if (count <= this.perKind) this.listed.push(message);
  }

  finish(labels: Record<string, string>): string[] {
    const out = [...this.listed];
    for (const [kind, count] of this.counts) {
      if (count > this.perKind) out.push(`csv decode: ${count - this.perKind} more ${labels[kind] ?? kind} not listed`);
    }
    return out;
  }
}

const WARNING_LABELS: Record<string, string> = {
  cell: 'non-numeric cells (read as no value)',
  order: 'rows earlier than the previous row (dropped)',
  repeat: 'rows repeating the previous timestamp (dropped)',
};

/** Shortens a cell for a message: hostile cells can be thousands of characters. */
function quote(text: string): string {
  return text.length > 40 ? `'${text.slice(0, 40)}…'` : `'${text}'`;
}

interface Header {
  timestamp: number;
  sport: number;
  /** Cell index of each present series metric, in SERIES_METRICS order. */
  metrics: { name: SeriesMetric; index: number }[];
  width: number;
}

/** The decoder's state between records: header, columns, sport, warnings. */
class CsvRows {
  private header: Header | null = null;
  private readonly headerWarnings: string[] = [];
  private rows = 0;
  private readonly timestamps: Float64Column;
  private columns: Float64Column[] = [];
  private readonly warnings: Warnings;
  private sport: string | null = null;
  private sportText: string | null = null;
  private sportLine = 0;
  private offset = 0;
  private previous = Number.NEGATIVE_INFINITY;
  private previousText = '';

  constructor(private readonly settings: CsvSettings, private readonly capacity: number) {
    this.timestamps = new Float64Column(capacity);
    this.warnings = new Warnings(settings.maxWarningsPerKind);
  }

  accept(row: Row): void {
    if (this.header === null) {
      this.header = this.readHeader(row.cells, row.line);
      this.columns = this.header.metrics.map(() => new Float64Column(this.capacity));
      return;
    }
    this.rows += 1;
    if (this.rows > this.settings.maxRows) {
      throw new DecodeError('csv_too_many_rows', `csv decode: more than ${this.settings.maxRows} rows`);
    }
    const { cells, line } = row;
    const header = this.header;
    if (cells.length !== header.width) {
      throw new DecodeError('csv_malformed', `csv decode: line ${line}: ${cells.length} fields where the header has ${header.width}`);
    }

    const text = cells[header.timestamp] ?? '';
    const instant = parseInstant(text, { allowSpace: true });
    if (instant === null) {
      if (isNaiveDateTime(text.replace(' ', 'T'))) {
        throw new DecodeError('csv_naive_timestamp', `csv decode: line ${line} column timestamp: ${quote(text)} has no UTC offset`);
      }
      throw new DecodeError('csv_bad_timestamp', `csv decode: line ${line} column timestamp: ${quote(text)} is not an ISO 8601 date-time`);
    }
    this.readSport(cells[header.sport] ?? '', line);

    const ms = instant.ms;
    if (ms < this.previous) {
      this.warnings.add('order', `csv decode: line ${line}: timestamp ${quote(text)} is earlier than the previous row's ${quote(this.previousText)}; row dropped`);
      return;
    }
    if (ms === this.previous) {
      this.warnings.add('repeat', `csv decode: line ${line}: timestamp ${quote(text)} repeats the previous row's; row dropped, the first kept`);
      return;
    }
    if (this.timestamps.length === 0) this.offset = instant.offset;
    this.previous = ms;
    this.previousText = text;
    this.timestamps.push(ms);

    const metrics = header.metrics;
    for (let j = 0; j < metrics.length; j++) {
      const cell = cells[metrics[j]!.index] ?? '';
      let value = Number.NaN;
      if (cell !== '') {
        value = DECIMAL.test(cell) ? Number(cell) : Number.NaN;
        if (!Number.isFinite(value)) {
          value = Number.NaN;
          this.warnings.add('cell', `csv decode: line ${line} column ${metrics[j]!.name}: ${quote(cell)} is not a number; read as no value`);
        }
      }
      this.columns[j]!.push(value);
    }
  }

  finish(): DecodedCsv {
    if (this.header === null) throw new DecodeError('csv_empty', 'csv decode: the file is empty');
    if (this.rows === 0) throw new DecodeError('csv_no_rows', 'csv decode: the file has a header but no rows');
    if (this.sport === null) throw new DecodeError('csv_bad_sport', 'csv decode: column sport has no value on any row');

    const timestamps = this.timestamps.finish();
    const metrics: MetricColumn[] = [];
    const omitted: string[] = [];
    this.header.metrics.forEach(({ name }, j) => {
      const values = this.columns[j]!.finish();
      if (values.some((v) => !Number.isNaN(v))) metrics.push({ name, values });
      else omitted.push(name);
    });
    const warnings = this.warnings.finish(WARNING_LABELS);
    for (const name of omitted) warnings.push(`csv decode: column ${name} has no values; omitted`);

    return {
      sport: this.sport,
      start: timestamps[0]!,
      end: timestamps[timestamps.length - 1]!,
      offset: this.offset,
      series: { timestamps, metrics },
      warnings: [...this.headerWarnings, ...warnings],
    };
  }

  private readHeader(cells: string[], line: number): Header {
    const seen = new Map<string, number>();
    const unknown: string[] = [];
    const notSeries: string[] = [];
    cells.forEach((cell, index) => {
      const name = cell.trim().toLowerCase();
      const first = seen.get(name);
      if (first !== undefined && name !== '') {
        throw new DecodeError('csv_duplicate_column', `csv decode: line ${line}: column ${quote(name)} appears twice (columns ${first + 1} and ${index + 1})`);
      }
      seen.set(name, index);
      if (name === 'timestamp' || name === 'sport' || (SERIES_METRICS as readonly string[]).includes(name)) return;
      if ((NON_SERIES_METRICS as readonly string[]).includes(name)) notSeries.push(name);
      else unknown.push(name === '' ? `(column ${index + 1} has no name)` : quote(name));
    });

    const missing = ['timestamp', 'sport'].filter((name) => !seen.has(name));
    if (missing.length > 0) {
      const list = missing.map((name) => `'${name}'`).join(' and ');
      throw new DecodeError('csv_missing_column', `csv decode: required column${missing.length > 1 ? 's' : ''} ${list} missing from the header`);
    }
    for (const name of notSeries) this.headerWarnings.push(`csv decode: column ${name} is not a numeric series; ignored`);
    if (unknown.length > 0) {
      const listed = unknown.slice(0, 20).join(', ');
      const more = unknown.length > 20 ? ` and ${unknown.length - 20} more` : '';
      this.headerWarnings.push(`csv decode: unknown columns ignored: ${listed}${more}`);
    }
    return {
      timestamp: seen.get('timestamp')!,
      sport: seen.get('sport')!,
      metrics: SERIES_METRICS.filter((name) => seen.has(name)).map((name) => ({ name, index: seen.get(name)! })),
      width: cells.length,
    };
  }

  /** "the same well-formed Open Sport Taxonomy string on every row — first non-empty value wins". */
  private readSport(text: string, line: number): void {
    if (text === '' || text === this.sportText) return;
    if (!isWellFormedSport(text)) {
      throw new DecodeError('csv_bad_sport', `csv decode: line ${line} column sport: ${quote(text)} is not an Open Sport Taxonomy string`);
    }
    const canonical = this.settings.canonicalSport === undefined ? text : this.settings.canonicalSport(text);
    if (canonical === null) {
      throw new DecodeError('csv_bad_sport', `csv decode: line ${line} column sport: ${quote(text)} is not a known Open Sport Taxonomy sport`);
    }
    if (this.sport === null) {
      this.sport = canonical;
      this.sportText = text;
      this.sportLine = line;
      return;
    }
    if (canonical !== this.sport) {
      throw new DecodeError(
        'csv_mixed_sport',
        `csv decode: line ${line} column sport: ${quote(text)} differs from ${quote(this.sportText ?? '')} on line ${this.sportLine}; a CSV file holds one activity`,
      );
    }
  }
}
