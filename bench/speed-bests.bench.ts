/**
 * Question: what does ANALYTICS.md §1.3 (speed from the device's channel, else distance with GPS spikes
 * removed) do to the speed bests of every run in the FIT corpus (test/fixtures/fit, plus the GPL folder
 * from ../shared/data/fit when present)? One row per foot-sport activity: where the speed comes from now,
 * the channel's largest value, and the 1–30 s bests before (distance-derived with its jumps, the rule up
 * to ANALYSIS_VERSION 2) → after; then the 1 s and 5 s bests the spike filter gives from the distance alone
 * (the channel dropped), which is what a file without a channel gets. test/support/speed-bests.ts computes
 * them; test/engine/speed-spikes.test.ts holds the bounds. Row: the largest 1 s best after, against the foot
 * cap (a stated bound, engine/kernels/canonical.ts SPEED_CAPS_MPS): a ratio below 1 is a best above the cap.
 */
import { isFootSport } from '../domain/sport.js';
import { SPEED_CAPS_MPS } from '../engine/kernels/canonical.js';
import { share, type BenchResult } from './results.js';
import { BEST_DURATIONS, corpusSpeedBests } from '../test/support/speed-bests.js';

export const question = 'Speed bests of every run in the FIT corpus, 1–30 s, m/s: before (distance with its GPS jumps) → after (device channel, else despiked distance)';

const cell = (value: number) => (Number.isNaN(value) ? '–' : value.toFixed(2));

export async function run(): Promise<BenchResult> {
  const rows = await corpusSpeedBests(isFootSport);
  const header = ['activity', 'sport', 'source', 'chan max', ...BEST_DURATIONS.map((d) => `${d} s before → after`), 'dist-only 1 s', 'dist-only 5 s'];
  const lines = rows.map((row) => [
    row.name, row.sport, row.source, cell(row.channelMax),
    ...BEST_DURATIONS.map((_, j) => `${cell(row.before[j]!)} → ${cell(row.after[j]!)}`),
    cell(row.distanceOnly?.[0] ?? Number.NaN), cell(row.distanceOnly?.[2] ?? Number.NaN),
  ]);
  const widths = header.map((title, c) => Math.max(title.length, ...lines.map((line) => line[c]!.length)));
  const format = (line: string[]) => line.map((text, c) => text.padEnd(widths[c]!)).join('  ').trimEnd();
  const worst = (pick: (row: (typeof rows)[number]) => number) => Math.max(...rows.map(pick).filter((value) => !Number.isNaN(value)));
  const text = [
    `${rows.length} runs; largest 1 s best before ${cell(worst((row) => row.before[0]!))}, after ${cell(worst((row) => row.after[0]!))}, distance only ${cell(worst((row) => row.distanceOnly?.[0] ?? Number.NaN))} m/s (foot cap 11 m/s)`,
    format(header),
    ...lines.map(format),
  ].join('\n  ');
  const largest = worst((row) => row.after[0]!);
  return {
    text,
    rows: [{
      question: `largest 1 s speed best of ${rows.length} runs`, dataset: 'corpus', figure: largest, unit: 'm/s',
      anchor: SPEED_CAPS_MPS.foot, anchorLabel: 'the foot cap (stated)', ratio: share(largest, SPEED_CAPS_MPS.foot, 'lower'), goal: 1,
    }],
  };
}
