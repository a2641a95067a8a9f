/**
 * The intensity-duration model as the pool's workers fit it (ANALYTICS.md §6; engine/pool/worker.ts
 * dispatches `fitIntensityModel` here): the 90-day longitudinal curve and the max efforts merged
 * (kernels/ompd-points.ts), the "too little data" rule, the OmPD fit on the maximal efforts
 * (kernels/ompd.ts), and the two bests the metabolic map's relations read from the merged points — the
 * best 5-minute value (cycling VO2max) and a runner's VO2max as the best VDOT of 5–60-minute efforts
 * (kernels/metabolic-relations.ts). Everything else (markers, precedence, rounding) is the caller's.
 * test/engine/physiological-models.test.ts runs it through the RPCs.
 */
import { fitMaximalEfforts, POWER_BOUNDS, SPEED_BOUNDS } from '../kernels/ompd.js';
import { enoughData, fittingPoints, mergePoints, monotoneEnvelope } from '../kernels/ompd-points.js';
import { runningVo2max } from '../kernels/metabolic-relations.js';
import type { FitIntensityModelTask, FittedIntensityModel } from '../pool/tasks.js';

/** "best 5-min W/kg": the duration (s) of the cycling VO2max relation. */
export const BEST_FIVE_MINUTES = 300;

export function fitIntensityModel(task: FitIntensityModelTask): FittedIntensityModel {
  const merged = mergePoints(task.curveDurations, task.curveValues, task.effortDurations, task.effortValues);
  const envelope = monotoneEnvelope(merged);
  // Whoever held a value for 5 minutes or longer held at least that for 5 minutes: the envelope's value at the first point ≥ 300 s.
  let bestFiveMinutes: number | null = null;
  for (let i = 0; i < envelope.durations.length; i++) {
    if (envelope.durations[i]! >= BEST_FIVE_MINUTES) {
      bestFiveMinutes = envelope.values[i]!;
      break;
    }
  }
  const vdotMax = task.metric === 'speed' ? runningVo2max(merged.durations, merged.values) : Number.NaN;
  const result: FittedIntensityModel = { params: null, bestFiveMinutes, runningVo2max: Number.isFinite(vdotMax) ? vdotMax : null };
  if (!enoughData(merged.durations, merged.values, task.hasLongActivity)) return result;
  const points = fittingPoints(merged);
  const params = new Float64Array(4);
  fitMaximalEfforts(points.durations, points.values, task.metric === 'power' ? POWER_BOUNDS : SPEED_BOUNDS, params);
  result.params = Array.from(params);
  return result;
}
