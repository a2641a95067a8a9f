/**
 * Seasons from known truths for the intensity-duration fit (ANALYTICS.md §6; issue 25): a season is a set
 * of activities, each a 1 Hz series an athlete with known omni-domain parameters could ride or run, and the
 * 90-day mean-max curve the engine would fit (the element-wise max of the activities' full-grid curves,
 * engine/kernels/mean-max.ts).
 *
 * An activity: a warm-up, one to four maximal efforts, each held evenly at the model's value for its own
 * duration (so a 3-minute window inside a 5-minute effort lies under the true 3-minute value: the dips the
 * fit must not follow), each followed by easy recovery, and an easy cool-down. Across the season every
 * duration of the effort list is done once, dealt at random to the activities, at most one of 10 minutes
 * or more per activity. Sample noise (optional):
 * each second × (1 + ε), ε normal with σ = SAMPLE_NOISE, power rounded to whole watts like a power meter.
 *
 * `longEfforts: false` leaves out every effort beyond 20 minutes and adds long easy rides or runs instead:
 * the window then holds nothing that identifies the decline beyond 30 minutes.
 * Deterministic: everything comes from the seed (mulberry32, test/support/kernels.ts).
 */
import { fullGrid } from '../../engine/kernels/duration-grid.js';
import { meanMax, prefixSums } from '../../engine/kernels/mean-max.js';
import { CP, A, ompdAt } from '../../engine/kernels/ompd.js';
import { random as seeded } from './kernels.js';

/** σ of the relative per-second noise: power (a power meter's torque noise) and speed (a watch's speed channel). */
export const SAMPLE_NOISE = { power: 0.03, speed: 0.03 } as const;

/** Efforts this long (s) or longer: at most one per activity. */
export const LONG_EFFORT = 600;

/** The maximal-effort durations (s) a season holds, each once. */
export const POWER_EFFORTS: readonly number[] = [2, 5, 10, 15, 30, 45, 60, 90, 120, 180, 240, 300, 480, 600, 900, 1200, 1800, 2400, 3600];
export const SPEED_EFFORTS: readonly number[] = [5, 10, 20, 30, 60, 90, 120, 180, 300, 480, 600, 900, 1200, 1800, 2700, 3600];

export interface Season {
  metric: 'power' | 'speed';
  /** The truth: CP W (CS m/s), W′ J (D′ m), Pmax W (max speed m/s), A W (m/s). */
  truth: Float64Array;
  noisy: boolean;
  longEfforts: boolean;
  /** The season's mean-max curve on the full grid (ascending seconds; NaN where no activity lasted that long). */
  curveDurations: Int32Array;
  curveValues: Float64Array;
  activities: number;
}

export interface SeasonOptions {
  metric: 'power' | 'speed';
  noisy: boolean;
  longEfforts?: boolean;
}

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * The truth of a season: power CP 220–330 W, W′ 12–25 kJ, Pmax 800–1 400 W; speed CS 3–5 m/s, D′ 150–350 m,
 * max speed 7–10 m/s; A (the decline beyond 30 min per e-fold of duration) 3–12 % of CP/CS.
 */
export function seasonTruth(random: () => number, metric: 'power' | 'speed'): Float64Array {
  const p = metric === 'power'
    ? Float64Array.of(220 + 110 * random(), 12_000 + 13_000 * random(), 800 + 600 * random(), 0)
    : Float64Array.of(3 + 2 * random(), 150 + 200 * random(), 7 + 3 * random(), 0);
  p[A] = (0.03 + 0.09 * random()) * p[CP]!;
  return p;
}

/** A season from `seed`: its truth, its activities' series, their mean-max curve. */
export function generateSeason(seed: number, options: SeasonOptions): Season {
  const random = seeded(seed);
  const { metric, noisy } = options;
  const longEfforts = options.longEfforts ?? true;
  const truth = seasonTruth(random, metric);
  const cp = truth[CP]!;
  const efforts = (metric === 'power' ? POWER_EFFORTS : SPEED_EFFORTS).filter((d) => longEfforts || d <= 1200);
  // Deal the short efforts at random to activities of one to four, then each long one (LONG_EFFORT s or more) to
  // an activity without one: two maximal long efforts in one activity would beat the model over the window
  // spanning both (the model knows no recovery), which no athlete does.
  const order = efforts.filter((d) => d < LONG_EFFORT);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const plans: number[][] = [];
  while (order.length > 0) plans.push(order.splice(0, 1 + Math.floor(random() * 4)));
  const withLong = new Set<number[]>();
  for (const d of efforts.filter((e) => e >= LONG_EFFORT)) {
    const plan = plans[Math.floor(random() * (plans.length + 1))];
    if (plan !== undefined && !withLong.has(plan)) plan.push(d);
    else plans.push([d]);
    withLong.add(plans.find((p) => p.includes(d))!);
  }
  if (!longEfforts) plans.push([], []); // long easy sessions only
  const noise = noisy ? SAMPLE_NOISE[metric] : 0;
  let curve: Float64Array | null = null;
  let grid: Int32Array = new Int32Array(0);
  for (const plan of plans) {
    const samples: number[] = [];
    const hold = (value: number, seconds: number) => {
      for (let k = 0; k < seconds; k++) {
        let v = noise > 0 ? value * (1 + noise * normal(random)) : value;
        if (metric === 'power') v = Math.round(v);
        samples.push(v > 0 ? v : 0);
      }
    };
    hold((0.5 + 0.1 * random()) * cp, 900 + Math.floor(random() * 600));
    for (const d of plan) {
      hold(ompdAt(truth, d), d);
      hold((0.45 + 0.2 * random()) * cp, Math.max(300, d) + Math.floor(random() * 300));
    }
    const easy = plan.length === 0 ? 5400 + Math.floor(random() * 7200) : 600 + Math.floor(random() * 2400);
    hold((0.55 + 0.15 * random()) * cp, easy);
    const values = Float64Array.from(samples);
    const prefix = new Float64Array(values.length + 1);
    prefixSums(values, prefix);
    const durations = fullGrid(values.length);
    const out = new Float64Array(durations.length);
    meanMax(prefix, Int32Array.of(0, values.length), durations, out, new Int32Array(durations.length));
    if (curve === null || durations.length > grid.length) {
      const wider = new Float64Array(durations.length).fill(Number.NaN);
      if (curve !== null) wider.set(curve);
      curve = wider;
      grid = durations;
    }
    for (let j = 0; j < out.length; j++) if (!(curve[j]! >= out[j]!)) curve[j] = out[j]!;
  }
  return { metric, truth, noisy, longEfforts, curveDurations: grid, curveValues: curve!, activities: plans.length };
}

/** The seasons of the seasons test and its bench: seeds 1–12 power (odd seeds noisy), 101–104 speed (101, 103 noisy). */
export function benchSeasons(): Season[] {
  const seasons: Season[] = [];
  for (let seed = 1; seed <= 12; seed++) seasons.push(generateSeason(seed, { metric: 'power', noisy: seed % 2 === 1 }));
  for (let seed = 101; seed <= 104; seed++) seasons.push(generateSeason(seed, { metric: 'speed', noisy: seed % 2 === 1 }));
  return seasons;
}

/** The worst relative error of `fitted` against the truth over 10 s–60 min (every second to 3 min, then every 5 s), and where. */
export function worstCurveError(fitted: Float64Array, truth: Float64Array, from = 10, to = 3600): { error: number; at: number } {
  let error = 0;
  let at = from;
  for (let t = from; t <= to; t += t < 180 ? 1 : 5) {
    const e = ompdAt(fitted, t) / ompdAt(truth, t) - 1;
    if (Math.abs(e) > Math.abs(error)) {
      error = e;
      at = t;
    }
  }
  return { error, at };
}
