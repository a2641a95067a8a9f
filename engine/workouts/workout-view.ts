/**
 * What every translator reads: a scheduled workout as the engine loads it (its SWF parsed again with
 * domain/workouts/swf.ts, its start as stored), and the small shared arithmetic: speed bounds of an
 * intensity, local start, an estimate of the planned duration. Pure; kept honest by
 * test/engine/workout-translators.test.ts.
 */
import { formatLocal, localDate } from '../../domain/time.js';
import type { Swf, SwfStep, SwfValue } from '../../domain/workouts/swf.js';

export interface WorkoutView {
  /** Our workout id: the provider-side external id / source id. */
  id: string;
  swf: Swf;
  /** Start, Unix ms (UTC), and the UTC offset in minutes the client sent. */
  start: number;
  offset: number;
  /** When the workout was written, Unix ms (Wahoo's `provider_updated_at`). */
  createdAt: number;
}

/** A translation that cannot be made (the provider's limits): the delivery fails with this reason. */
export class Untranslatable extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
    this.name = 'Untranslatable';
  }
}

/** What a translator produces: the provider's body, and warnings about what was approximated. */
export interface Translation<T> {
  body: T;
  warnings: string[];
}

/** `YYYY-MM-DDTHH:MM:SS`, the start's wall-clock time where the client is. */
export function localStart(view: WorkoutView): string {
  return formatLocal(view.start, view.offset).slice(0, 19);
}

export function localStartDate(view: WorkoutView): string {
  return localDate(view.start, view.offset);
}

/** `workout title` or a name made from the sport. */
export function workoutName(view: WorkoutView): string {
  return view.swf.title ?? `Threshold ${view.swf.sport} workout`;
}

/**
 * Lower and upper speed (m/s) of an intensity: a constant is both; a range with one bound repeats it (no
 * provider here takes an open-ended target); a ramp becomes the range it sweeps.
 */
export function speedBounds(value: SwfValue): { low: number; high: number } {
  switch (value.type) {
    case 'constant':
      return { low: value.value, high: value.value };
    case 'range':
      return { low: value.min ?? value.max!, high: value.max ?? value.min! };
    case 'ramp':
      return { low: Math.min(value.start, value.end), high: Math.max(value.start, value.end) };
  }
}

/** assume: a step by distance without a speed target runs at 3 m/s (5:33 min/km) for the estimate. */
const ESTIMATE_SPEED = 3;

/** Planned seconds of one step: its duration, or its distance at the middle of its speed target. Open steps count 0. */
export function stepSeconds(step: SwfStep): number {
  if (!step.volume) return 0;
  if (step.volume.quantity === 'duration') return step.volume.value;
  const bounds = step.intensity?.quantity === 'speed' ? speedBounds(step.intensity) : null;
  return step.volume.value / (bounds ? (bounds.low + bounds.high) / 2 : ESTIMATE_SPEED);
}

/** Planned seconds of the whole workout, repeats expanded. */
export function plannedSeconds(swf: Swf): number {
  let total = 0;
  for (const node of swf.content) {
    if (node.type === 'step') total += stepSeconds(node);
    else if (node.type === 'repeat') total += node.count * node.content.reduce((sum, child) => sum + (child.type === 'step' ? stepSeconds(child) : 0), 0);
    else if (node.type === 'section') {
      for (const child of node.content) {
        if (child.type === 'step') total += stepSeconds(child);
        else if (child.type === 'repeat') total += child.count * child.content.reduce((sum, inner) => sum + (inner.type === 'step' ? stepSeconds(inner) : 0), 0);
      }
    }
  }
  return total;
}
