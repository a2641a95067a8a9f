/**
 * What a bench script returns, and the one table `npm run bench` prints at the end (issue 27 item 6).
 *
 * A script's `run()` returns its text line(s), as it always did, or `{ text, rows }`: the same text plus one
 * row per figure it measured, each beside its anchor — the ceiling measured in the same run (`/healthz`
 * under the same load, the kernel alone, the decoder alone, a rate limit's arithmetic) — and the ratio.
 * Ratios, not absolute times, are what to compare between runs and machines. A script that still returns a
 * string shows its question in the table without figures.
 *
 * The table is also written as JSON (test-artifacts/bench-results.json, or BENCH_RESULTS), and a later run
 * prints the ratio stored there beside its own: a regression is one run away. Kept honest by
 * test/bench/run.test.ts, which runs bench/run.ts on scripts of its own.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Dataset = 'corpus' | 'synthetic';

export interface BenchRow {
  /** What was measured, short: `'GET /mean-max, 16 clients'`. */
  question: string;
  /** The FIT corpus imported as a user would (test/fixtures/fit), or data the script generates. */
  dataset: Dataset;
  figure: number;
  /** The figure's unit: `'req/s'`, `'ms'`, `'h/min'`. */
  unit: string;
  /** The ceiling measured in the same run, in `anchorUnit` (the figure's unit unless given). */
  anchor: number;
  anchorLabel: string;
  anchorUnit?: string;
  /** The figure as a share of its anchor: 1 at the ceiling, below 1 short of it (see share()). */
  ratio: number;
  /** The ratio the issue asks for, when it names one. */
  goal?: number;
}

export interface BenchResult {
  text: string;
  rows: BenchRow[];
}

/** What `run()` may return: the old text line, or the text with its rows. */
export type BenchOutput = string | BenchResult;

/**
 * `figure` as a share of `anchor`, 1 when they are equal and below 1 when the figure falls short: the
 * quotient for a rate (higher is better: req/s, h/min), its inverse for a time (lower is better: ms).
 */
export function share(figure: number, anchor: number, better: 'higher' | 'lower'): number {
  return better === 'higher' ? figure / anchor : anchor / figure;
}

/** One row as the table and the JSON hold it: the bench (script name) it came from. */
export interface TableRow extends Partial<BenchRow> {
  bench: string;
  question: string;
  /** Why the script gave no figures: its text only, or its failure. */
  note?: string;
}

export interface ResultsFile {
  /** ISO time of the run. */
  at: string;
  node: string;
  cpus: number;
  /** os.loadavg() when the run started and when it ended: a loaded machine reads low. */
  load: { start: number[]; end: number[] };
  rows: TableRow[];
}

/** The rows of one script's output; a string (or a result without rows) gives one row naming the question. */
export function tableRows(bench: string, question: string, output: BenchOutput | Error): TableRow[] {
  question = question.length > 60 ? `${question.slice(0, 59)}…` : question;
  if (output instanceof Error) return [{ bench, question, note: `failed: ${output.message.split('\n')[0]}` }];
  if (typeof output === 'string' || output.rows.length === 0) return [{ bench, question, note: 'text only (no anchor)' }];
  return output.rows.map((row) => ({ bench, ...row }));
}

/** The text of one script's output. */
export function outputText(output: BenchOutput): string {
  return typeof output === 'string' ? output : output.text;
}

const key = (row: TableRow) => `${row.bench}\u0000${row.question}\u0000${row.dataset ?? ''}`;

/** Three significant figures, no exponent for ordinary sizes. */
export function figureText(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 999.5) return Math.round(value).toLocaleString('en-US'); // 999.6 rounds to 1,000, not 1000
  if (magnitude === 0) return '0';
  if (magnitude < 0.001) return value.toExponential(2);
  return Number(value.toPrecision(3)).toString();
}

/** This run's ratio against the previous one, signed per cent: `-60 %` is a regression. */
function change(ratio: number, old: number): string {
  const percent = Math.round(100 * (ratio / old - 1));
  return `${percent > 0 ? '+' : ''}${percent} %`;
}

/** A ratio below this share of its anchor is flagged in the table (issue 27 item 3: it gets a profile and a fix, or a written reason). */
export const HALF = 0.5;
/** The table's flag beside such a ratio. */
export const BELOW_HALF = '< ½';

/** The rows with a ratio below half of their anchor: the questions the closing note must answer for. */
export function belowHalf(rows: readonly TableRow[]): TableRow[] {
  return rows.filter((row) => row.ratio !== undefined && row.ratio < HALF);
}

/** The closing table: one line per row, the previous run's ratio beside when `previous` holds the same row. */
export function formatTable(rows: TableRow[], previous: ResultsFile | null): string {
  const before = new Map((previous?.rows ?? []).map((row) => [key(row), row]));
  const header = ['bench', 'question', 'data', 'figure', 'unit', 'anchor (same run)', 'ratio', 'goal', previous ? `previous (${previous.at.slice(0, 16)})` : 'previous'];
  const lines = rows.map((row) => {
    if (row.figure === undefined || row.anchor === undefined || row.ratio === undefined) {
      return [row.bench, row.question, row.dataset ?? '', row.note ?? '', '', '', '', '', ''];
    }
    const old = before.get(key(row))?.ratio;
    const goal = row.goal === undefined ? '' : `${figureText(row.goal)}${row.ratio < row.goal ? ' MISSED' : ''}`;
    return [
      row.bench, row.question, row.dataset ?? '', figureText(row.figure), row.unit ?? '',
      `${figureText(row.anchor)} ${row.anchorUnit ?? row.unit ?? ''} ${row.anchorLabel ?? ''}`.replace(/\s+/g, ' ').trim(),
      `${figureText(row.ratio)}${row.ratio < HALF ? ` ${BELOW_HALF}` : ''}`, goal, old === undefined ? '' : `${figureText(old)} (${change(row.ratio, old)})`,
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const render = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [render(header), render(widths.map((width) => '-'.repeat(width))), ...lines.map(render)].join('\n');
}

/** The lines after the table naming every question below half of its anchor (none: one line saying so). */
export function formatBelowHalf(rows: readonly TableRow[]): string {
  const flagged = belowHalf(rows);
  if (flagged.length === 0) return `No question below half of its anchor (${BELOW_HALF}).`;
  return [`${flagged.length} question${flagged.length > 1 ? 's' : ''} below half of the anchor (${BELOW_HALF}; each needs a profile and a fix, or a written reason):`,
    ...flagged.map((row) => `- ${row.bench}: ${row.question} (${row.dataset}): ${figureText(row.ratio!)} of ${row.anchorLabel}`)].join('\n');
}

/** The JSON of a previous run at `file`, or null when there is none (or it is not one). */
export function readResults(file: string): ResultsFile | null {
  if (!existsSync(file)) return null;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as ResultsFile;
    return Array.isArray(parsed.rows) && typeof parsed.at === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Writes this run's rows to `file`, keeping the previous run's rows of the benches not run this time (a
 * run of one bench does not forget the others).
 */
export function writeResults(file: string, run: Omit<ResultsFile, 'rows' | 'node' | 'cpus'>, rows: TableRow[], previous: ResultsFile | null): void {
  const ran = new Set(rows.map((row) => row.bench));
  const kept = (previous?.rows ?? []).filter((row) => !ran.has(row.bench));
  const results: ResultsFile = { ...run, node: process.version, cpus: os.availableParallelism(), rows: [...kept, ...rows] };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}
