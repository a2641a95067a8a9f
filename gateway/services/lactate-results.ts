/**
 * Derived LT1/LT2 of a test in the gateway (ANALYTICS.md §7, "Lactate thresholds from a test's linked
 * traces"): when the test's own results give no `lt1` (or `lt2`), the engine derives it from the linked
 * traces carrying lactate, through the LactateThresholds RPC (gateway/engine-client.ts
 * `lactateThresholds`). The points and the rounding are domain/lactate-points.ts's, shared with the
 * engine's own reads of measured markers. Kept honest by the step test in test/gateway/tests-records.test.ts.
 */
import type { TestRecord, TraceRecord } from '../../storage/store.js';
import { withDerivedLactate, type LactateRequest } from '../../domain/lactate-points.js';
import type { EngineClient } from '../engine-client.js';
import type { TestResultsValues } from '../presenters/test-record.js';

/** The engine's derivation, as domain/lactate-points.ts and domain/measured-markers.ts take it. */
export function deriveThroughEngine(engine: Pick<EngineClient, 'lactateThresholds'>) {
  return (request: LactateRequest) => engine.lactateThresholds(request);
}

/**
 * `results` with `lt1`/`lt2` derived from `linked` (the test's linked traces) where the results give none.
 * Answers `results` unchanged when both are given, the sport has no intensity kind, no trace carries
 * lactate (> 0), or more points than the engine takes (MAX_LACTATE_POINTS).
 */
export function deriveLactateResults(
  deps: { engine: Pick<EngineClient, 'lactateThresholds'> },
  test: TestRecord,
  results: TestResultsValues,
  linked: readonly TraceRecord[],
): Promise<TestResultsValues> {
  return withDerivedLactate(test.sport, results, (given, name) => given[name] !== null, linked, deriveThroughEngine(deps.engine));
}
