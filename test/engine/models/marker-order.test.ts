/**
 * ANALYTICS.md §7 "modeled markers keep their physiological order … the test corpus checks the order": the
 * modeled markers of every map (power, speed, vo2, heart rate), as the map publishes them, satisfy fatmax ≤
 * first_threshold < second_threshold < critical_* < max_aerobic_* (vo2max, heart_rate_max on their maps) —
 * on generated seasons (test/support/ompd-synthetic.ts, fitted by the pool's own fitIntensityModel) and on
 * every corpus athlete: each FIT file of the corpus (test/fixtures/fit, plus the GPL folder of the shared
 * corpus when present) on its own, and each corpus folder as one athlete whose activities share a window.
 * Each case also counts the pairs the relations alone would invert, so the output shows how often the rule
 * fires.
 */
import { readFileSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { test } from '../../support/uvu.js';
import { random } from '../../support/kernels.js';
import { syntheticCyclist, syntheticRunner, type SyntheticAthlete } from '../../support/ompd-synthetic.js';
import { fitCorpusKeys, fitCorpusPath } from '../../support/fit-corpus.js';
import { decodeFit } from '../../../engine/ingest/fit.js';
import { rootSport } from '../../../domain/sport.js';
import { analyzeActivity } from '../../../engine/analysis/activity-analysis.js';
import { canonicalSeries, CURVE_METRICS, type CurveMetric } from '../../../engine/analysis/canonical-series.js';
import { emptyBest, foldCurve, type MetricCurve } from '../../../engine/analysis/curves.js';
import { fitIntensityModel } from '../../../engine/analysis/intensity-model.js';
import { fullGrid } from '../../../engine/kernels/duration-grid.js';
import { LONG_EFFORT_SECONDS } from '../../../engine/kernels/ompd-points.js';
import { modeledValues, publishedModeledValues, type MapModel, type MapQuantity } from '../../../engine/models/metabolic-map.js';
import type { FitIntensityModelTask } from '../../../engine/pool/tasks.js';

const BODY_MASS = 70;
const RESTING_HR = 50;
const HEART_RATE_MAX = 190;

/** Low → high, and whether the pair below each marker may be equal (only fatmax ≤ first_threshold). */
const CHAINS: Record<MapQuantity, string[]> = {
  power: ['fatmax', 'first_threshold', 'second_threshold', 'critical_power', 'max_aerobic_power'],
  speed: ['fatmax', 'first_threshold', 'second_threshold', 'critical_speed', 'max_aerobic_speed'],
  vo2: ['fatmax', 'first_threshold', 'second_threshold', 'vo2max'],
  heart_rate: ['fatmax', 'first_threshold', 'second_threshold', 'heart_rate_max'],
};

/** The pairs out of order among `values` (heart_rate_max added on the heart-rate map), as "a ≥ b". */
function disorder(quantity: MapQuantity, values: Record<string, number>): string[] {
  const present = CHAINS[quantity]
    .map((marker) => [marker, marker === 'heart_rate_max' ? HEART_RATE_MAX : values[marker]] as const)
    .filter((entry): entry is readonly [string, number] => entry[1] !== undefined && Number.isFinite(entry[1]));
  const wrong: string[] = [];
  for (let i = 1; i < present.length; i++) {
    const [lowName, low] = present[i - 1]!;
    const [highName, high] = present[i]!;
    const equalAllowed = lowName === 'fatmax' && highName === 'first_threshold';
    if (equalAllowed ? low > high : low >= high) wrong.push(`${lowName} ${low} ≥ ${highName} ${high}`);
  }
  return wrong;
}

interface Tally {
  maps: number;
  /** Maps whose relations, unrounded, inverted a pair (the rule had work to do). */
  inverted: number;
}

/** Fits `task` as the engine does and checks every map of its metric; throws naming `who` on disorder. */
function checkAthlete(who: string, task: FitIntensityModelTask, tally: Tally): void {
  const fitted = fitIntensityModel(task);
  if (fitted.params === null) return;
  const model: MapModel = { metric: task.metric, ...fitted, bodyMass: BODY_MASS, restingHr: RESTING_HR };
  for (const quantity of [task.metric, 'vo2', 'heart_rate'] as MapQuantity[]) {
    const heartRateMax = quantity === 'heart_rate' ? HEART_RATE_MAX : null;
    const published = publishedModeledValues(quantity, model, heartRateMax);
    if (Object.keys(published).length === 0) continue;
    tally.maps++;
    const raw = Object.fromEntries(Object.entries(modeledValues(quantity, model, heartRateMax)).filter(([, value]) => Number.isFinite(value) && value > 0));
    if (disorder(quantity, raw).length > 0) tally.inverted++;
    assert.equal(disorder(quantity, published), [], `${who} ${quantity} map: ${JSON.stringify(published)}`);
  }
}

function seasonTask(athlete: SyntheticAthlete, metric: CurveMetric): FitIntensityModelTask {
  return {
    metric, curveDurations: Int32Array.from(athlete.durations), curveValues: athlete.values,
    effortDurations: new Float64Array(0), effortValues: new Float64Array(0), hasLongActivity: true,
  };
}

test('generated seasons: 60 cyclists and 60 runners, with and without noise, publish their modeled markers in physiological order', () => {
  const next = random(25);
  const tally: Tally = { maps: 0, inverted: 0 };
  for (let i = 0; i < 60; i++) {
    const noisy = i % 2 === 0;
    checkAthlete(`cyclist ${i}`, seasonTask(syntheticCyclist(next, noisy), 'power'), tally);
    checkAthlete(`runner ${i}`, seasonTask(syntheticRunner(next, noisy), 'speed'), tally);
  }
  assert.ok(tally.maps >= 300, `maps checked: ${tally.maps}`);
  console.log(`  seasons: ${tally.maps} maps in order; the relations alone inverted a pair in ${tally.inverted}`);
});

/** One corpus activity, as the engine caches it: curves per metric and recorded seconds. */
interface CorpusActivity {
  sport: string;
  curves: Partial<Record<CurveMetric, MetricCurve>>;
  recorded: Partial<Record<CurveMetric, number>>;
}

async function corpusActivities(key: string): Promise<CorpusActivity[]> {
  let decoded;
  try {
    decoded = await decodeFit(new Uint8Array(readFileSync(fitCorpusPath(key))));
  } catch {
    return []; // the corpus's broken files: fit-corpus.test.ts pins how each fails
  }
  return decoded.activities.map((activity) => {
    const analysis = analyzeActivity(canonicalSeries(activity.series));
    const recorded: Partial<Record<CurveMetric, number>> = {};
    for (const metric of CURVE_METRICS) {
      const histogram = analysis.awd[metric];
      if (histogram !== undefined) recorded[metric] = histogram.reduce((sum, ms) => sum + ms, 0) / 1000;
    }
    return { sport: rootSport(activity.sport) ?? activity.sport, curves: analysis.curves, recorded };
  });
}

/** The model task of some activities, as model-inputs.ts builds it: their best curve, the 15-minute rule on recorded time. */
function corpusTask(activities: readonly CorpusActivity[], metric: CurveMetric): FitIntensityModelTask | null {
  const curves = activities.map((activity) => activity.curves[metric]).filter((curve): curve is MetricCurve => curve !== undefined && curve.durations.length > 0);
  if (curves.length === 0) return null;
  const longest = Math.max(...curves.map((curve) => curve.durations[curve.durations.length - 1]!));
  const best = emptyBest(fullGrid(longest));
  curves.forEach((curve, holder) => foldCurve(best, curve, holder));
  return {
    metric, curveDurations: best.durations, curveValues: best.values, effortDurations: new Float64Array(0), effortValues: new Float64Array(0),
    hasLongActivity: activities.some((activity) => (activity.recorded[metric] ?? 0) >= LONG_EFFORT_SECONDS),
  };
}

test('every corpus athlete (each file, and each corpus folder as one athlete per sport) publishes its modeled markers in physiological order', async () => {
  const keys = fitCorpusKeys();
  assert.ok(keys.length > 20, `corpus files: ${keys.length}`);
  const tally: Tally = { maps: 0, inverted: 0 };
  const folders = new Map<string, CorpusActivity[]>();
  for (const key of keys) {
    const activities = await corpusActivities(key);
    for (const metric of CURVE_METRICS) {
      for (const sport of new Set(activities.map((activity) => activity.sport))) {
        const task = corpusTask(activities.filter((activity) => activity.sport === sport), metric);
        if (task !== null) checkAthlete(`${key} ${sport}`, task, tally);
      }
    }
    const folder = key.slice(0, key.indexOf('/'));
    folders.set(folder, [...(folders.get(folder) ?? []), ...activities]);
  }
  for (const [folder, activities] of folders) {
    for (const sport of new Set(activities.map((activity) => activity.sport))) {
      for (const metric of CURVE_METRICS) {
        const task = corpusTask(activities.filter((activity) => activity.sport === sport), metric);
        if (task !== null) checkAthlete(`folder ${folder} ${sport}`, task, tally);
      }
    }
  }
  assert.ok(tally.maps > 0, 'some corpus athlete has enough data for a map');
  console.log(`  corpus (${keys.length} files): ${tally.maps} maps in order; the relations alone inverted a pair in ${tally.inverted}`);
});

test.run();
