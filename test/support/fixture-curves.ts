/**
 * The cached mean-max power curves (engine/analysis/activity-analysis.ts: the full grid up to the longest
 * section) of the real cycling rides with power in test/fixtures/fit, for the OmPD fit's test and
 * benchmark. Files the decoder rejects are skipped (the corpus holds some on purpose).
 */
import { readFileSync } from 'node:fs';
import { analyzeActivity } from '../../engine/analysis/activity-analysis.js';
import { canonicalSeries } from '../../engine/analysis/canonical-series.js';
import { decodeFit } from '../../engine/ingest/fit.js';
import { rootSport } from '../../domain/sport.js';
import { fitCorpusPath, fixtureKeys } from './fit-corpus.js';

export interface RideCurve {
  key: string;
  durations: Int32Array;
  values: Float64Array;
}

export async function fixtureRidePowerCurves(): Promise<RideCurve[]> {
  const rides: RideCurve[] = [];
  for (const key of fixtureKeys().filter((name) => name.endsWith('.fit'))) {
    let decoded;
    try {
      decoded = await decodeFit(new Uint8Array(readFileSync(fitCorpusPath(key))));
    } catch {
      continue;
    }
    for (const activity of decoded.activities) {
      if (rootSport(activity.sport ?? '') !== 'cycling') continue;
      const curve = analyzeActivity(canonicalSeries(activity.series)).curves.power;
      if (curve && curve.values.some((value) => value > 0)) rides.push({ key, durations: curve.durations, values: curve.values });
    }
  }
  return rides;
}
