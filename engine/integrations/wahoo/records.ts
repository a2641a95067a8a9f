/**
 * Wahoo's JSON records, read defensively (providers.md §3, [WAH-doc]): ids may be numbers, decimals
 * arrive as strings ("1000.0"), `workout_summary` is null until the workout is done.
 */
export interface WahooUser {
  id: string;
  /** kg, or null when the user set none. */
  weight: number | null;
  /** m. */
  height: number | null;
  /** Sent only when the token carries the `email` scope ("Returns the authenticated user along with email if email scope is included"). */
  email: string | null;
  first: string | null;
  last: string | null;
}

export interface WahooWorkoutSummary {
  id: string;
  /** m. */
  distance: number | null;
  /** s. */
  durationActive: number | null;
  /** W. */
  powerAvg: number | null;
  /** bpm. */
  heartRateAvg: number | null;
  fileUrl: string | null;
  updatedAt: string | null;
}

export interface WahooWorkout {
  id: string;
  /** ISO 8601 instant. */
  starts: string;
  minutes: number | null;
  workoutTypeId: number | null;
  summary: WahooWorkoutSummary | null;
}

/** A Wahoo decimal: a number or a numeric string; anything else is null. */
export function decimal(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

export function idOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

export function userOf(body: unknown): WahooUser {
  const record = (body ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  return { id: idOf(record.id) ?? '', weight: decimal(record.weight), height: decimal(record.height), email: text(record.email), first: text(record.first), last: text(record.last) };
}

export function summaryOf(body: unknown): WahooWorkoutSummary | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  const id = idOf(record.id);
  if (id === null) return null;
  const file = record.file as Record<string, unknown> | null | undefined;
  return {
    id,
    distance: decimal(record.distance_accum),
    durationActive: decimal(record.duration_active_accum),
    powerAvg: decimal(record.power_avg),
    heartRateAvg: decimal(record.heart_rate_avg),
    fileUrl: typeof file?.url === 'string' ? file.url : null,
    updatedAt: typeof record.updated_at === 'string' ? record.updated_at : null,
  };
}

export function workoutOf(body: unknown): WahooWorkout | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  const id = idOf(record.id);
  if (id === null || typeof record.starts !== 'string') return null;
  return { id, starts: record.starts, minutes: decimal(record.minutes), workoutTypeId: decimal(record.workout_type_id), summary: summaryOf(record.workout_summary) };
}
