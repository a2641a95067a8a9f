/**
 * Question: what does a warm longitudinal mean-max cost at 300 and 3,000 rides, and a model's inputs over
 * its 90-day window, when every record is read as the few fields the call folds (issue 27 item 5)? Each is
 * put beside its ceiling measured in the same run: the fold alone over the same curves already in memory.
 *
 * Two histories on one SQLite file (as the service keeps it), one ride a day:
 * - corpus: every cycling activity of the FIT corpus (bench/support.ts corpusFitFiles), imported as the
 *   service ingests an upload, with its analysis cache; ride k is a copy of corpus ride k mod n (its record
 *   with the laps and summaries ingest wrote, on its own day, its cache under its own key);
 * - synthetic: ten-minute rides from bench/history.ts seedHistory (small records: no laps, no summaries).
 *
 * Per history and size, medians: the handler (engine/service/analyses.ts getLongitudinalMeanMax) with a warm
 * analysis memory, as the engine runs it, table in the pool included; its store read (matchingActivities);
 * the fold over the curves held in memory (the ceiling); call ÷ fold. Then a model's inputs
 * (engine/service/model-inputs.ts fitInputs: the window's records, their curves from the memory, the fold on
 * the full grid) against the same fold. The machine is shared: compare ratios, not milliseconds. Rows: each
 * call and the model's inputs against the fold alone, per history (its dataset).
 *
 *   npm run build && node dist/bench/run.js longitudinal-fields
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { emptyBest, foldCurve, type MetricCurve } from '../engine/analysis/curves.js';
import type { GetLongitudinalMeanMaxRequest } from '../engine/contract.js';
import { DEFAULT_DURATIONS, fullGrid } from '../engine/kernels/duration-grid.js';
import { createPool, type EnginePool } from '../engine/pool/pool.js';
import { matchingActivities, type Selection } from '../engine/service/activity-selection.js';
import { ANALYSIS_MEMO_BYTES, AnalysisMemo, analysisKey, loadCurves, refreshAnalysis } from '../engine/service/analysis-cache.js';
import { getLongitudinalMeanMax } from '../engine/service/analyses.js';
import { ingestStoredSource } from '../engine/service/ingest-source.js';
import { fitInputs } from '../engine/service/model-inputs.js';
import { createUser } from '../gateway/services/accounts.js';
import { addDays } from '../domain/time.js';
import { newId } from '../storage/ids.js';
import { openStore } from '../storage/open-store.js';
import { acceptSource } from '../storage/sources.js';
import type { ActivityRecord, Store } from '../storage/store.js';
import { median, seedHistory } from './history.js';
import { corpusFitFiles, quick, tempDir } from './support.js';
import { share, type BenchResult, type BenchRow, type Dataset } from './results.js';

export const question = 'Warm longitudinal mean-max at 300 and 3,000 rides and a model\'s inputs, reading only the fields they fold: against the fold alone over in-memory curves (the ceiling), on corpus and synthetic records (SQLite file)';

const SIZES = quick([300, 3_000], [12, 30]);
const RUNS = quick(15, 3);
const DAY = 86_400_000;
/** seedHistory's first ride: 2016-01-01, one a day. */
const FIRST_DAY = '2016-01-01';

/** The corpus's cycling activities with their caches, imported for a scratch user. */
async function corpusRides(store: Store, pool: EnginePool): Promise<ActivityRecord[]> {
  const user = await createUser(store, { email: `bench-fields-${newId()}@example.com` });
  const signal = new AbortController().signal;
  for (const file of corpusFitFiles()) {
    const source = await acceptSource(store, user.id, { filename: path.basename(file), bytes: readFileSync(file) });
    await ingestStoredSource({ store, pool }, user.id, source.id, signal);
  }
  const rides = (await store.activities.find({ user_id: user.id }, { sort: { start: 1 } })).filter((record) => record.sport.startsWith('cycling'));
  for (const ride of rides) await refreshAnalysis({ store, pool }, ride, signal);
  return (await store.activities.find({ user_id: user.id }, { sort: { start: 1 } })).filter((record) => record.sport.startsWith('cycling'));
}

/** `count` rides for `userId`, ride k on FIRST_DAY + k: a copy of `rides[k mod n]` and of its cache. */
async function copyRides(store: Store, userId: string, rides: readonly ActivityRecord[], count: number): Promise<void> {
  const first = Date.parse(`${FIRST_DAY}T07:00:00Z`);
  for (let k = 0; k < count; k++) {
    const source = rides[k % rides.length]!;
    const id = newId();
    const key = analysisKey(id);
    await store.blobs.put(key, (await store.blobs.get(source.analysis_key!))!, { userId });
    const start = first + k * DAY;
    await store.activities.insert({
      ...source, id, user_id: userId, source_id: newId(), start, end: start + (source.end - source.start), local_date: addDays(FIRST_DAY, k), analysis_key: key,
    });
  }
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));

/** The fold of `curves` on `durations`: what a call cannot do without (its ceiling). */
function fold(curves: readonly (MetricCurve | null)[], durations: Int32Array): void {
  const best = emptyBest(durations);
  curves.forEach((curve, holder) => {
    if (curve !== null) foldCurve(best, curve, holder);
  });
}

/** One history's lines and rows: per size the call, its read and the fold; then the model's inputs. */
async function measure(store: Store, pool: EnginePool, userId: string, dataset: Dataset): Promise<{ text: string; rows: BenchRow[] }> {
  const signal = new AbortController().signal;
  const memo = new AnalysisMemo(ANALYSIS_MEMO_BYTES);
  const lastDay = addDays(FIRST_DAY, SIZES[SIZES.length - 1]! - 1);
  const handler = getLongitudinalMeanMax({ store, pool, memo });
  const parts: string[] = [];
  const rows: BenchRow[] = [];
  const fromFold = { unit: 'ms', anchorLabel: 'the fold alone over in-memory curves', dataset };
  for (const rides of SIZES) {
    const selection: Selection = { sports: ['cycling'], startDate: addDays(lastDay, -(rides - 1)), endDate: lastDay };
    const request: GetLongitudinalMeanMaxRequest = {
      user_id: userId, sports: ['cycling'], start_date: selection.startDate!, end_date: lastDay, metric: 'power', format: 'ARROW_IPC',
      durations: [], all_durations: false, after: [],
    };
    const call = () => handler(request, { signal, deadline: Date.now() + 600_000 });
    await call();
    await call();
    const records = await matchingActivities(store, userId, selection);
    const curves = await loadCurves({ store, pool, memo }, records, 'power', signal);
    const durations = Int32Array.from(DEFAULT_DURATIONS);
    const callMs = await median(RUNS, call);
    const readMs = await median(RUNS, () => matchingActivities(store, userId, selection));
    const foldMs = await median(RUNS, async () => fold(curves, durations));
    rows.push({ question: `warm longitudinal mean-max at ${rides} rides`, figure: callMs, anchor: foldMs, ratio: share(callMs, foldMs, 'lower'), ...fromFold });
    parts.push(`${rides} rides: call ${ms(callMs)} ms, read of the fold fields ${ms(readMs)} ms, fold alone ${ms(foldMs)} ms (ceiling), call ÷ fold ×${(callMs / foldMs).toFixed(1)}`);
  }
  const deps = { store, pool, memo };
  await fitInputs(deps, userId, 'cycling', 'power', lastDay, signal);
  const records = await matchingActivities(store, userId, { sports: ['cycling'], startDate: addDays(lastDay, -89), endDate: lastDay });
  const curves = await loadCurves(deps, records, 'power', signal);
  let longest = 0;
  for (const curve of curves) if (curve !== null && curve.durations.length > 0) longest = Math.max(longest, curve.durations[curve.durations.length - 1]!);
  const grid = fullGrid(longest);
  const inputsMs = await median(RUNS, () => fitInputs(deps, userId, 'cycling', 'power', lastDay, signal));
  const modelFoldMs = await median(RUNS, async () => fold(curves, grid));
  rows.push({ question: 'a model\'s inputs over its 90-day window', figure: inputsMs, anchor: modelFoldMs, ratio: share(inputsMs, modelFoldMs, 'lower'), ...fromFold });
  parts.push(`model inputs (${records.length} rides in the window, full grid of ${grid.length}): ${ms(inputsMs)} ms, fold alone ${ms(modelFoldMs)} ms (ceiling), ÷ ×${(inputsMs / modelFoldMs).toFixed(1)}`);
  return { text: parts.join('; '), rows };
}

export async function run(): Promise<BenchResult> {
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(tempDir(), 'threshold.sqlite') });
  const pool = createPool({ threads: 1 });
  try {
    const rides = await corpusRides(store, pool);
    const bytes = rides.reduce((sum, ride) => sum + Buffer.byteLength(JSON.stringify(ride)), 0) / rides.length;
    const corpusUser = `bench-fields-corpus-${newId()}`;
    await copyRides(store, corpusUser, rides, SIZES[SIZES.length - 1]!);
    const syntheticUser = `bench-fields-synthetic-${newId()}`;
    await seedHistory(store, pool, syntheticUser, SIZES[SIZES.length - 1]!);
    const [synthetic] = await store.activities.find({ user_id: syntheticUser }, { limit: 1 });
    const corpus = await measure(store, pool, corpusUser, 'corpus');
    const made = await measure(store, pool, syntheticUser, 'synthetic');
    return {
      text: [
        `corpus (${rides.length} cycling activities, records of ${(bytes / 1000).toFixed(1)} KB on average): ${corpus.text}`,
        `synthetic (records of ${(Buffer.byteLength(JSON.stringify(synthetic)) / 1000).toFixed(1)} KB): ${made.text}`,
      ].join('\n  '),
      rows: [...corpus.rows, ...made.rows],
    };
  } finally {
    await pool.destroy();
    await store.close();
  }
}
