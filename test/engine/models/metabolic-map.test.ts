/**
 * engine/models/metabolic-map.ts against values computed by hand (ANALYTICS.md §7): a cyclist with CP 250 W,
 * W′ 20 kJ, a best 5 minutes of 300 W, 70 kg and a resting heart rate of 50 bpm. VO2max = 16.6 + 8.87 ×
 * 300/70 = 54.614 mL/kg/min; MAP = (54.614 − 7) · 70 / 10.8 = 308.6 W; FatMax at 64 %: (34.953 − 7) · 70 /
 * 10.8 = 181.2 W; second threshold 0.94 × 250 = 235 W, whose VO2 is (10.8 · 235 + 7 · 70) / 70 = 43.257;
 * heart rate by %HRR = %VO2R with HRmax 190: 50 + (VO2 − 3.5)/(54.614 − 3.5) · 140 → 136.1 and 158.9 bpm.
 */
import * as assert from 'uvu/assert';
import { test } from '../../support/uvu.js';
import { metabolicMap, modeledValues, publishedModeledValues, type MapModel, type StoredMarker } from '../../../engine/models/metabolic-map.js';

const DATE = '2024-06-30';
const MODEL: MapModel = { metric: 'power', params: [250, 20_000, 1000, 0], bestFiveMinutes: 300, runningVo2max: null, bodyMass: 70, restingHr: 50 };

function stored(marker: string, metric: string, value: number, provenance: StoredMarker['provenance'], date = '2024-06-01'): StoredMarker {
  return { marker, metric, value, provenance, date, pinned: false };
}

test('the power map models CP, W′, MAP, FatMax and the second threshold as ANALYTICS §7 relates them, rounded as published', () => {
  const map = metabolicMap('power', MODEL, [], DATE);
  assert.equal(map, {
    fatmax: { value: 181, provenance: 'modeled' }, first_threshold: { value: 181, provenance: 'modeled' },
    second_threshold: { value: 235, provenance: 'modeled' }, critical_power: { value: 250, provenance: 'modeled' },
    max_aerobic_power: { value: 309, provenance: 'modeled' }, w_prime: { value: 20, provenance: 'modeled' },
    mlss: null, lt1: null, lt2: null, vt1: null, vt2: null,
  });
});

test('a fresh declared value beats the model, the model beats an external one, and a value dated after the date is ignored', () => {
  const map = metabolicMap('power', MODEL, [
    stored('lt2', 'power', 262, 'declared'), stored('second_threshold', 'power', 270, 'external'),
    stored('critical_power', 'power', 240, 'declared', '2024-07-01'), stored('critical_power', 'heart_rate', 170, 'declared'),
  ], DATE);
  assert.equal(map.lt2, { value: 262, provenance: 'declared' });
  assert.equal(map.second_threshold, { value: 235, provenance: 'modeled' });
  assert.equal(map.critical_power, { value: 250, provenance: 'modeled' }, 'the later value and the other metric do not count');
});

test('the heart-rate map places the modeled thresholds by %HRR = %VO2R between the resting_hr daily and the winning heart_rate_max', () => {
  const map = metabolicMap('heart_rate', MODEL, [stored('heart_rate_max', 'heart_rate', 190, 'declared')], DATE);
  assert.equal(map.fatmax, { value: 136, provenance: 'modeled' });
  assert.equal(map.second_threshold, { value: 159, provenance: 'modeled' });
  assert.equal(map.heart_rate_max, { value: 190, provenance: 'declared' });
  assert.equal(modeledValues('heart_rate', { ...MODEL, restingHr: null }, 190), {}, 'no resting heart rate: nothing modeled');
  assert.equal(modeledValues('heart_rate', MODEL, null), {}, 'no maximum heart rate: nothing modeled');
});

test('the VO2 map gives absolute mL/min: VO2max × body mass, FatMax at 64 % of it, the VO2 at the second threshold', () => {
  const map = metabolicMap('vo2', MODEL, [], DATE);
  assert.equal([map.vo2max, map.fatmax, map.second_threshold], [
    { value: 3823, provenance: 'modeled' }, { value: 2447, provenance: 'modeled' }, { value: 3028, provenance: 'modeled' },
  ]);
});

test('without a fit nothing is modeled, and stored values still answer', () => {
  const map = metabolicMap('power', { ...MODEL, params: null, bestFiveMinutes: null }, [stored('critical_power', 'power', 244, 'measured')], DATE);
  assert.equal(map.critical_power, { value: 244, provenance: 'measured' });
  assert.is(map.max_aerobic_power, null);
  assert.is(map.second_threshold, null);
});

test('modeled markers keep their physiological order: a runner whose FatMax speed rounds above 0.93 CS gets first_threshold one step below the second', () => {
  // CS 3.01 m/s: second_threshold 0.93 × 3.01 = 2.7993 → 2.80 m/s. A VDOT of 68 puts 64 % of VO2max at ≈ 2.9 m/s.
  const runner: MapModel = { metric: 'speed', params: [3.01, 200, 7, 0], bestFiveMinutes: null, runningVo2max: 68, bodyMass: 60, restingHr: null };
  const raw = modeledValues('speed', runner, null);
  assert.ok(raw.first_threshold! > raw.second_threshold!, `the relations invert the pair: ${raw.first_threshold} vs ${raw.second_threshold}`);
  const map = metabolicMap('speed', runner, [], DATE);
  assert.equal(map.second_threshold, { value: 2.8, provenance: 'modeled' });
  assert.equal(map.first_threshold, { value: 2.79, provenance: 'modeled' }, 'one rounding step below');
  assert.equal(map.fatmax, { value: 2.79, provenance: 'modeled' }, 'fatmax ≤ first_threshold: equal is in order');
  assert.ok(map.critical_speed!.value > map.second_threshold!.value && map.max_aerobic_speed!.value > map.critical_speed!.value);
});

test('the order cap works on published values, top down: CP at or above MAP is capped a watt under it, and the thresholds under that', () => {
  // A best 5 minutes far below CP (a window of easy riding) puts MAP under CP and FatMax above 0.94 CP.
  const odd: MapModel = { ...MODEL, params: [250, 20_000, 1000, 0], bestFiveMinutes: 200 };
  const values = publishedModeledValues('power', odd, null);
  const order = ['fatmax', 'first_threshold', 'second_threshold', 'critical_power', 'max_aerobic_power'].map((marker) => values[marker]!);
  for (let i = 1; i < order.length; i++) assert.ok(i === 1 ? order[i - 1]! <= order[i]! : order[i - 1]! < order[i]!, `in order: ${order.join(', ')}`);
  assert.is(values.critical_power, values.max_aerobic_power! - 1);
  assert.is(values.w_prime, 20, 'W′ is outside the order');
});

test('a stored value is never moved by the order rule: a declared second threshold below the modeled first stays as declared', () => {
  const map = metabolicMap('power', MODEL, [stored('second_threshold', 'power', 170, 'declared')], DATE);
  assert.equal(map.second_threshold, { value: 170, provenance: 'declared' });
  assert.equal(map.first_threshold, { value: 181, provenance: 'modeled' });
});

test('the heart-rate map keeps the second threshold below the heart_rate_max the relation capped it at', () => {
  // A second threshold whose VO2 exceeds VO2max: the relation caps it at HRmax, the order one beat below.
  const map = metabolicMap('heart_rate', { ...MODEL, bestFiveMinutes: 200 }, [stored('heart_rate_max', 'heart_rate', 190, 'declared')], DATE);
  assert.equal(map.second_threshold, { value: 189, provenance: 'modeled' });
  assert.ok(map.first_threshold!.value < 189);
});

test.run();
