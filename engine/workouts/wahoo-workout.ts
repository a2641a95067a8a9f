/**
 * SWF → a Wahoo plan (providers.md §3 "Workouts (plans)" [WAH-doc]): the plan JSON (`header` + `intervals[]`
 * with `exit_trigger_type`/`exit_trigger_value`, `intensity_type`, `targets[{type, low, high}]`), uploaded as
 * `POST /v1/plans` form `plan[file]` (a `data:application/json;base64,…` URL), `plan[filename]`,
 * `plan[external_id]` (our id), `plan[provider_updated_at]`; then `POST /v1/workouts` with `workout_type_id`
 * 1 (run), `starts`, `minutes` and `plan_id`. Wahoo shows it on ELEMNT/RIVAL devices only when scheduled
 * today to 6 days ahead (domain/workouts/schedule-warnings.ts warns).
 *
 * [unverified] (the authority is Wahoo's plan-format PDF, not read): the header fields `version`,
 * `workout_type_family` (1 = running) and `workout_type_location`, the trigger names `time`, `distance`,
 * `repeat`, `manual`, the nested `intervals` of a repeat, the intensity names `wu`, `cd`, `active`,
 * `recover`, and speed targets in m/s. Ramps are sent as the range they sweep (with a warning).
 * Pure; test/engine/workout-translators.test.ts.
 */
import type { SwfNode, SwfStep } from '../../domain/workouts/swf.js';
import { formatUtc } from '../../domain/time.js';
import { plannedSeconds, speedBounds, workoutName, type Translation, type WorkoutView } from './workout-view.js';

export const WAHOO_RUN_WORKOUT_TYPE = 1;

export interface WahooInterval {
  name: string;
  exit_trigger_type: 'time' | 'distance' | 'repeat' | 'manual';
  exit_trigger_value: number;
  intensity_type: 'wu' | 'cd' | 'active' | 'recover';
  targets: { type: 'speed'; low: number; high: number }[];
  intervals?: WahooInterval[];
}
export interface WahooPlan {
  header: { name: string; version: '1.0.0'; description: string; workout_type_family: 1; workout_type_location: 0 };
  intervals: WahooInterval[];
}

/** The plan upload's form fields and the workout's, less `plan_id` (known once the plan is created). */
export interface WahooDelivery {
  plan: WahooPlan;
  planForm: Record<string, string>;
  workoutForm: Record<string, string>;
}

export function toWahooDelivery(view: WorkoutView): Translation<WahooDelivery> {
  let ramps = false;
  const intervals = (nodes: readonly SwfNode[], phase: 'warmup' | 'main' | 'cooldown'): WahooInterval[] => nodes.flatMap((node): WahooInterval[] => {
    if (node.type === 'note') return [];
    if (node.type === 'section') return intervals(node.content, node.phase);
    if (node.type === 'repeat') {
      return [{ name: `${node.count}x`, exit_trigger_type: 'repeat', exit_trigger_value: node.count, intensity_type: 'active', targets: [], intervals: intervals(node.content, phase) }];
    }
    if (node.intensity?.type === 'ramp') ramps = true;
    return [interval(node, phase)];
  });
  const plan: WahooPlan = {
    header: { name: workoutName(view), version: '1.0.0', description: view.swf.description ?? '', workout_type_family: 1, workout_type_location: 0 },
    intervals: intervals(view.swf.content, 'main'),
  };
  const file = `data:application/json;base64,${Buffer.from(JSON.stringify(plan)).toString('base64')}`;
  return {
    body: {
      plan,
      planForm: {
        'plan[file]': file,
        'plan[filename]': `threshold-${view.id}.json`,
        'plan[external_id]': view.id,
        'plan[provider_updated_at]': formatUtc(view.createdAt),
      },
      workoutForm: {
        'workout[name]': workoutName(view),
        'workout[workout_token]': view.id,
        'workout[workout_type_id]': String(WAHOO_RUN_WORKOUT_TYPE),
        'workout[starts]': formatUtc(view.start),
        'workout[minutes]': String(Math.max(1, Math.ceil(plannedSeconds(view.swf) / 60))),
      },
    },
    warnings: ramps ? ['wahoo: Wahoo plans have no ramp target; ramps were sent as the speed range they sweep'] : [],
  };
}

function interval(step: SwfStep, phase: 'warmup' | 'main' | 'cooldown'): WahooInterval {
  const bounds = step.intensity ? speedBounds(step.intensity) : null;
  return {
    name: step.note ?? (step.effort === 'rest' ? 'Recovery' : 'Work'),
    exit_trigger_type: step.volume ? (step.volume.quantity === 'duration' ? 'time' : 'distance') : 'manual',
    exit_trigger_value: step.volume?.value ?? 0,
    intensity_type: phase === 'warmup' ? 'wu' : phase === 'cooldown' ? 'cd' : step.effort === 'rest' ? 'recover' : 'active',
    targets: bounds ? [{ type: 'speed', low: bounds.low, high: bounds.high }] : [],
  };
}
