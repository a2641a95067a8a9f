/**
 * Question: how fast is the mean-max kernel on a 6-hour 1 Hz ride (n = 21,600 bins), against its
 * brute-force reference twin, for the 19 default durations, the full grid (fullGrid(n)) and every
 * duration 1..n? Targets (one core): defaults ≤ 2 ms, full grid ≤ 10 ms, all durations ≤ 150 ms. Also
 * meanMaxAfter with 5 fatigue states on the default grid, and a real ride (the sweatpy fixture
 * 4078723797.fit, 1 Hz without gaps, so its power samples are the canonical bins; NaN → 0). Medians of
 * several runs; the reference on all durations (≈ 233 M window evaluations) runs once. Every fast result
 * is checked equal to the reference.
 *
 * The ride is synthetic and seeded: an endurance level drifting as a mean-reverting random walk with
 * per-second noise, sets of intervals (5-min threshold, 30-s VO2), sprints, coasting zeros (short
 * freewheeling, long descents) and a café stop, rounded to whole watts like a power meter.
 *
 * On the corpus (issue 27 item 1): every FIT file of the corpus uploaded to the real stack (bench/corpus.ts),
 * then `GET /api/v1/activities/{id}/mean-max` (19 defaults) of every activity with power, one request at a
 * time, a pass over them all (the median of PASSES), against the kernel alone (meanMax over the same
 * rides' canonical power, decoded in this process, prefix sums ready) in the same run; and the median
 * request against `/healthz`'s, one at a time. The gap to the kernel is the price of HTTP, authentication,
 * the gRPC call, the store read, the canonical series and Parquet.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DURATIONS, fullGrid } from '../engine/kernels/duration-grid.js';
import { decodeFit } from '../engine/ingest/fit.js';
import * as fast from '../engine/kernels/mean-max.js';
import * as reference from '../engine/kernels/reference/mean-max.js';
import { REPO_ROOT } from './support.js';
import { random } from '../test/support/kernels.js';
import { startStack } from '../test/support/stack.js';
import { canonicalOptions, canonicalSeries } from '../engine/analysis/canonical-series.js';
import { corpusFitFiles } from './support.js';
import { importCorpus } from './corpus.js';
import { share, type BenchResult, type BenchRow } from './results.js';

export const question = 'Mean-max of a 6-hour 1 Hz ride: fast kernel vs brute-force reference twin (default grid, full grid, all durations; meanMaxAfter with 5 states); per activity over HTTP on the corpus vs the kernel alone';

const PASSES = 3;


/** A realistic 1 Hz power series (W) of `seconds` bins. */
export function syntheticRide(seconds: number, seed = 20240601): Float64Array {
  const next = random(seed);
  const power = new Float64Array(seconds);
  let level = 190; // W, the drifting endurance level
  let i = 0;
  const put = (target: number, noise: number) => {
    if (i >= seconds) return;
    level += 0.02 * (190 - level) + (next() - 0.5) * 3;
    const w = target + (level - 190) + (next() + next() + next() - 1.5) * noise;
    power[i++] = w > 0 ? Math.round(w) : 0;
  };
  const zeros = (length: number) => { for (let k = 0; k < length && i < seconds; k++) power[i++] = 0; };
  while (i < seconds) {
    const choice = next();
    if (choice < 0.55) {
      // Endurance riding with brief freewheeling.
      const length = 300 + Math.floor(next() * 900);
      for (let k = 0; k < length; k++) {
        if (next() < 0.004) zeros(2 + Math.floor(next() * 12));
        else put(190, 40);
      }
    } else if (choice < 0.68) {
      // 4–6 × 5 min at threshold, 3 min easy between.
      const reps = 4 + Math.floor(next() * 3);
      for (let r = 0; r < reps; r++) {
        for (let k = 0; k < 300; k++) put(285 + r * 2, 25);
        for (let k = 0; k < 180; k++) put(140, 30);
      }
    } else if (choice < 0.76) {
      // 8 × 30 s hard, 30 s easy.
      for (let r = 0; r < 8; r++) {
        for (let k = 0; k < 30; k++) put(430, 40);
        for (let k = 0; k < 30; k++) put(120, 30);
      }
    } else if (choice < 0.86) {
      // A sprint: a steep rise, 8–15 s at 800–1100 W.
      const peak = 800 + next() * 300;
      const length = 8 + Math.floor(next() * 8);
      for (let k = 0; k < length; k++) put(peak * (1 - k / (2 * length)), 60);
      for (let k = 0; k < 60; k++) put(110, 20);
    } else if (choice < 0.97) {
      // A descent: coasting with occasional pedalling.
      const length = 60 + Math.floor(next() * 300);
      for (let k = 0; k < length; k++) {
        if (next() < 0.1) put(120, 40);
        else zeros(1);
      }
    } else {
      zeros(600 + Math.floor(next() * 600)); // café stop (paused → zero-filled)
    }
  }
  return power;
}

/** Prefix sums of the sweatpy ride's power, one bin per 1 Hz sample. */
async function realRide(): Promise<Float64Array> {
  const file = await decodeFit(new Uint8Array(readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'fit', 'sweatpy', '4078723797.fit'))));
  const power = file.activities[0]!.series.metrics.find((metric) => metric.name === 'power')!.values;
  const prefix = new Float64Array(power.length + 1);
  fast.prefixSums(Float64Array.from(power, (w) => (Number.isNaN(w) ? 0 : Math.max(0, w))), prefix);
  return prefix;
}

/** Median wall time (ms) of `runs` calls of `work`. */
function median(runs: number, work: () => void): number {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}

function same(a: Float64Array, b: Float64Array, c: Int32Array, d: Int32Array, what: string): void {
  for (let k = 0; k < a.length; k++) {
    if (!(Object.is(a[k], b[k]) && c[k] === d[k])) throw new Error(`mean-max bench: ${what} differs at ${k}: ${a[k]}@${c[k]} vs ${b[k]}@${d[k]}`);
  }
}

/** meanMax fast and reference on one series and grid: median ms of each, results checked equal. */
function compare(label: string, prefix: Float64Array, sections: Int32Array, durations: Int32Array, fastRuns: number, referenceRuns: number, rows?: BenchRow[]): string {
  const a = new Float64Array(durations.length);
  const b = new Float64Array(durations.length);
  const sa = new Int32Array(durations.length);
  const sb = new Int32Array(durations.length);
  for (let w = 0; w < 3; w++) fast.meanMax(prefix, sections, durations, a, sa); // warm-up (JIT)
  const f = median(fastRuns, () => fast.meanMax(prefix, sections, durations, a, sa));
  const r = median(referenceRuns, () => reference.meanMax(prefix, sections, durations, b, sb));
  same(a, b, sa, sb, label);
  rows?.push({
    question: `kernel, ${label} (${durations.length} durations)`, dataset: label.startsWith('real') ? 'corpus' : 'synthetic',
    figure: f, unit: 'ms', anchor: r, anchorLabel: 'reference twin (a floor, not a ceiling)', ratio: share(f, r, 'lower'),
  });
  return `${label} (${durations.length}): fast ${f.toFixed(2)} ms, reference ${r.toFixed(1)} ms, ×${(r / f).toFixed(0)}`;
}

interface KernelInput {
  prefix: Float64Array;
  sections: Int32Array;
}

/** The canonical power of every corpus activity that has some, prefix sums ready (decoded in this process). */
async function corpusPower(): Promise<KernelInput[]> {
  const inputs: KernelInput[] = [];
  for (const file of corpusFitFiles()) {
    const decoded = await decodeFit(new Uint8Array(readFileSync(file))).catch(() => null); // the pinned failures
    for (const activity of decoded?.activities ?? []) {
      const series = canonicalSeries(activity.series, ['power'], canonicalOptions(activity.sport));
      if (series.power === null) continue;
      const prefix = new Float64Array(series.power.length + 1);
      fast.prefixSums(series.power, prefix);
      inputs.push({ prefix, sections: series.grid.sectionStarts });
    }
  }
  return inputs;
}

const middle = (times: number[]) => [...times].sort((a, b) => a - b)[times.length >> 1]!;

/** Per-activity mean-max over HTTP on the imported corpus against the kernel alone and against /healthz. */
async function onCorpus(): Promise<{ text: string; rows: BenchRow[] }> {
  const stack = await startStack();
  try {
    const corpus = await importCorpus(stack, ['activities:read']);
    const rides = corpus.activities.filter((activity) => activity.metrics.includes('power'));
    const request = async (url: string, token?: string): Promise<number> => {
      const started = performance.now();
      const response = await stack.get(url, token);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`mean-max bench: ${url} answered ${response.status}`);
      return performance.now() - started;
    };
    for (const ride of rides) await request(`/api/v1/activities/${ride.id}/mean-max`, corpus.token); // warm-up
    const passes: number[] = [];
    const each: number[] = [];
    for (let p = 0; p < PASSES; p++) {
      let total = 0;
      for (const ride of rides) {
        const ms = await request(`/api/v1/activities/${ride.id}/mean-max`, corpus.token);
        total += ms;
        each.push(ms);
      }
      passes.push(total);
    }
    const health: number[] = [];
    for (let k = 0; k < each.length; k++) health.push(await request('/healthz'));

    const inputs = await corpusPower();
    const durations = Int32Array.from(DEFAULT_DURATIONS);
    const out = new Float64Array(durations.length);
    const starts = new Int32Array(durations.length);
    const kernelPass = () => {
      const started = performance.now();
      for (const { prefix, sections } of inputs) fast.meanMax(prefix, sections, durations, out, starts);
      return performance.now() - started;
    };
    for (let w = 0; w < 3; w++) kernelPass();
    const kernel = middle(Array.from({ length: 11 }, kernelPass));
    const pass = middle(passes);
    const perRide = middle(each);
    const healthMs = middle(health);
    return {
      text: `corpus (${corpus.files} files, ${corpus.failed} failed as pinned, ${corpus.activities.length} activities, ${rides.length} with power, ${corpus.hours.toFixed(1)} h): `
        + `GET /mean-max of each, one at a time: ${pass.toFixed(0)} ms a pass (median ${perRide.toFixed(2)} ms a ride, /healthz ${healthMs.toFixed(2)} ms); `
        + `the kernel alone on the ${inputs.length} decoded power series: ${kernel.toFixed(2)} ms a pass`,
      rows: [
        {
          question: `GET /mean-max of every corpus ride, a pass`, dataset: 'corpus', figure: pass, unit: 'ms',
          anchor: kernel, anchorLabel: 'the kernel alone', ratio: share(pass, kernel, 'lower'),
        },
        {
          question: 'GET /mean-max of a corpus ride, median', dataset: 'corpus', figure: perRide, unit: 'ms',
          anchor: healthMs, anchorLabel: '/healthz median', ratio: share(perRide, healthMs, 'lower'),
        },
      ],
    };
  } finally {
    await stack.close();
  }
}

export async function run(): Promise<BenchResult> {
  const rows: BenchRow[] = [];
  const n = 6 * 3600;
  const prefix = new Float64Array(n + 1);
  fast.prefixSums(syntheticRide(n), prefix);
  const sections = Int32Array.from([0, n]);
  const parts = [
    compare('defaults', prefix, sections, Int32Array.from(DEFAULT_DURATIONS), 201, 21, rows),
    compare('full grid', prefix, sections, fullGrid(n), 51, 5, rows),
    compare('all', prefix, sections, Int32Array.from({ length: n }, (_, k) => k + 1), 11, 1),
  ];

  const durations = Int32Array.from(DEFAULT_DURATIONS);
  const total = prefix[n]!;
  const states = Int32Array.from([0, 0.2, 0.4, 0.6, 0.8].map((share) => fast.stateStart(prefix, share * total)));
  const size = states.length * durations.length;
  const a = new Float64Array(size);
  const b = new Float64Array(size);
  const sa = new Int32Array(size);
  const sb = new Int32Array(size);
  for (let w = 0; w < 3; w++) fast.meanMaxAfter(prefix, sections, durations, states, a, sa);
  const f = median(51, () => fast.meanMaxAfter(prefix, sections, durations, states, a, sa));
  const r = median(5, () => reference.meanMaxAfter(prefix, sections, durations, states, b, sb));
  same(a, b, sa, sb, 'meanMaxAfter');
  parts.push(`meanMaxAfter (5 states × 19): fast ${f.toFixed(2)} ms, reference ${r.toFixed(1)} ms, ×${(r / f).toFixed(1)}`);

  const ride = await realRide();
  const m = ride.length - 1;
  const rideSections = Int32Array.from([0, m]);
  parts.push(compare(`real ride (${m} s) full grid`, ride, rideSections, fullGrid(m), 21, 3, rows));
  parts.push(compare(`real ride all`, ride, rideSections, Int32Array.from({ length: m }, (_, k) => k + 1), 11, 1));
  const corpus = await onCorpus();
  return { text: `6-hour ride n = ${n}: ${parts.join('; ')} (median ms, results identical)\n  ${corpus.text}`, rows: [...rows, ...corpus.rows] };
}
