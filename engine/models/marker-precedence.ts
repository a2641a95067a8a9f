/**
 * Which value of one marker wins on a date (ANALYTICS.md §7 "Precedence per marker"; interface §2
 * "Metabolic map": "a fresh measured or declared value outranks the model; a stale one yields to the model;
 * an external value counts only when nothing else does").
 *
 * Pure: the caller passes every stored value of one (sport, marker, metric) and the modeled value, if the
 * marker is modeled at all (mlss, lt1, lt2, vt1, vt2 never are: they simply pass no model). Not here:
 * reading markers, fitting the model, rounding. Kept honest by test/engine/models/marker-precedence.test.ts,
 * a table with one row per rule.
 *
 * The rules, in order:
 * 1. A value dated after `date` does not exist yet: ignored, whatever its provenance or pin.
 * 2. Fresh measured or declared values (dated within the 90 days ending on `date`, both ends inclusive:
 *    `date` − 89 … `date`; or pinned, which "never goes stale") beat everything else.
 * 3. Otherwise the modeled value, when there is one.
 * 4. Otherwise the most recent stale measured or declared value.
 * 5. Otherwise the most recent external value, fresh or stale (pinning does not lift an external value).
 * Inside one tier: the most recent `date` wins (a pinned old value does not beat a newer fresh one: the pin
 * keeps it fresh, not first); on the same date measured beats declared (a test outranks a typed-in value);
 * then the later `created_at`; then the later in the input (callers pass records in the order written).
 */
import { daysBetween } from '../../domain/time.js';

/** Days in the freshness window, counting `date` itself ("the 90 days ending on `date`"). */
export const FRESH_DAYS = 90;

/** A stored value of one marker: a MarkerRecord (storage/records.ts) fits as it is. */
export interface MarkerCandidate {
  /** In the marker's unit (W, m/s, bpm, mL/kg/min, kJ, m). */
  value: number;
  provenance: 'measured' | 'declared' | 'external';
  /** Calendar date `YYYY-MM-DD` the value holds from. */
  date: string;
  /** Never goes stale (declared values only, per gaps "Markers"). */
  pinned: boolean;
  /** Epoch ms of the write: breaks a tie between two values of the same date and provenance. */
  created_at?: number;
}

export type MarkerProvenance = 'modeled' | 'measured' | 'declared' | 'external';

/** The winner, as the metabolic map publishes a marker: `{value, provenance}`. */
export interface ResolvedMarker {
  value: number;
  provenance: MarkerProvenance;
}

export interface MarkerQuery {
  /** Every stored value of the marker, in any order; values dated after `date` are ignored. */
  candidates: readonly MarkerCandidate[];
  /** The modeled value on `date`; null or absent when the marker is not modeled or the model has none. */
  modeled?: number | null;
  /** The query date `YYYY-MM-DD` (inclusive). */
  date: string;
}

/** True when `candidate` (dated on or before `date`) is fresh on `date`: pinned, or at most 89 days old. */
export function isFresh(candidate: MarkerCandidate, date: string): boolean {
  return candidate.pinned || daysBetween(candidate.date, date) < FRESH_DAYS;
}

/** The winning value of one marker on `date`, or null when there is none. */
export function resolveMarker({ candidates, modeled = null, date }: MarkerQuery): ResolvedMarker | null {
  let fresh: Ranked | null = null;
  let stale: Ranked | null = null;
  let external: Ranked | null = null;
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index]!;
    if (candidate.date > date) continue; // rule 1; YYYY-MM-DD strings order as the dates do
    const ranked = { candidate, index };
    if (candidate.provenance === 'external') external = better(external, ranked);
    else if (isFresh(candidate, date)) fresh = better(fresh, ranked);
    else stale = better(stale, ranked);
  }
  if (fresh !== null) return published(fresh);
  if (modeled !== null) return { value: modeled, provenance: 'modeled' };
  const fallback = stale ?? external;
  return fallback === null ? null : published(fallback);
}

interface Ranked {
  candidate: MarkerCandidate;
  index: number;
}

const PROVENANCE_RANK = { measured: 2, declared: 1, external: 0 } as const;

/** The better of two values of one tier: later date, then measured over declared, then later write. */
function better(current: Ranked | null, next: Ranked): Ranked {
  if (current === null) return next;
  const a = current.candidate;
  const b = next.candidate;
  if (a.date !== b.date) return b.date > a.date ? next : current;
  if (a.provenance !== b.provenance) return PROVENANCE_RANK[b.provenance] > PROVENANCE_RANK[a.provenance] ? next : current;
  const writtenA = a.created_at ?? -Infinity;
  const writtenB = b.created_at ?? -Infinity;
  if (writtenA !== writtenB) return writtenB > writtenA ? next : current;
  return next.index > current.index ? next : current;
}

function published({ candidate }: Ranked): ResolvedMarker {
  return { value: candidate.value, provenance: candidate.provenance };
}
