/**
 * SWF → a Garmin Training API V2 workout (providers.md §1 "Workouts (Training API V2)" [GAR-trn]):
 * `workoutName`, `sport: "RUNNING"`, `workoutProvider`/`workoutSourceId` (≤ 20 characters: our 16-hex id),
 * one segment whose `steps[]` are `WorkoutStep`s (`intensity`, `durationType`/`durationValue`,
 * `targetType`/`targetValueLow`/`targetValueHigh`) and `WorkoutRepeatStep`s (`repeatType`, `repeatValue`,
 * `steps`); at most 100 steps. It is created with `POST workoutportal/workout/v2`, then put on the
 * device calendar with `POST training-api/schedule/` `{workoutId, date}`.
 *
 * [unverified] (providers.md lists the field names, not their values): the enum spellings `TIME`,
 * `DISTANCE`, `OPEN`, `SPEED`, `WARMUP`/`COOLDOWN`/`ACTIVE`/`INTERVAL`/`REST`/`RECOVERY`,
 * `REPEAT_UNTIL_STEPS_CMPLT`, `segmentOrder`/`stepOrder`, `description` on a step, and speed targets in
 * m/s. Garmin has no ramp target: a ramp is sent as the speed range it sweeps (with a warning). Notes
 * become the description of the step that follows them. Pure; test/engine/workout-translators.test.ts.
 */
import type { SwfNote, SwfNode, SwfStep } from '../../domain/workouts/swf.js';
import { speedBounds, localStartDate, workoutName, Untranslatable, type Translation, type WorkoutView } from './workout-view.js';

export const GARMIN_MAX_STEPS = 100;
export const GARMIN_PROVIDER_NAME = 'Threshold';

export interface GarminStep {
  type: 'WorkoutStep';
  stepOrder: number;
  intensity: 'WARMUP' | 'COOLDOWN' | 'ACTIVE' | 'INTERVAL' | 'REST' | 'RECOVERY';
  description: string | null;
  durationType: 'TIME' | 'DISTANCE' | 'OPEN';
  durationValue: number | null;
  targetType: 'SPEED' | 'OPEN';
  targetValueLow: number | null;
  targetValueHigh: number | null;
}
export interface GarminRepeatStep {
  type: 'WorkoutRepeatStep';
  stepOrder: number;
  repeatType: 'REPEAT_UNTIL_STEPS_CMPLT';
  repeatValue: number;
  steps: GarminStep[];
}
export interface GarminWorkout {
  workoutName: string;
  description: string | null;
  sport: 'RUNNING';
  workoutProvider: string;
  workoutSourceId: string;
  segments: { segmentOrder: 1; sport: 'RUNNING'; steps: (GarminStep | GarminRepeatStep)[] }[];
}

/** The workout to create and the calendar date (`YYYY-MM-DD`, the start's local date) to schedule it on. */
export function toGarminWorkout(view: WorkoutView): Translation<{ workout: GarminWorkout; date: string }> {
  const builder = new Builder();
  const steps = builder.nodes(view.swf.content, 'main', false);
  if (builder.order > GARMIN_MAX_STEPS) {
    throw new Untranslatable('too_many_steps', `Garmin takes at most ${GARMIN_MAX_STEPS} steps; this workout has ${builder.order} (repeats count once, with their steps)`);
  }
  return {
    body: {
      workout: {
        workoutName: workoutName(view).slice(0, 100),
        description: view.swf.description,
        sport: 'RUNNING',
        workoutProvider: GARMIN_PROVIDER_NAME,
        workoutSourceId: view.id.slice(0, 20),
        segments: [{ segmentOrder: 1, sport: 'RUNNING', steps }],
      },
      date: localStartDate(view),
    },
    warnings: builder.ramps ? ['garmin_connect: Garmin has no ramp target; ramps were sent as the speed range they sweep'] : [],
  };
}

class Builder {
  order = 0;
  ramps = false;
  private notes: string[] = [];

  nodes(nodes: readonly SwfNode[], phase: 'warmup' | 'main' | 'cooldown', inRepeat: boolean): (GarminStep | GarminRepeatStep)[] {
    const out: (GarminStep | GarminRepeatStep)[] = [];
    for (const node of nodes) {
      if (node.type === 'note') this.note(node);
      else if (node.type === 'step') out.push(this.step(node, phase, inRepeat));
      else if (node.type === 'section') out.push(...this.nodes(node.content, node.phase, false));
      else {
        const repeat: GarminRepeatStep = { type: 'WorkoutRepeatStep', stepOrder: ++this.order, repeatType: 'REPEAT_UNTIL_STEPS_CMPLT', repeatValue: node.count, steps: [] };
        repeat.steps = this.nodes(node.content, phase, true) as GarminStep[];
        out.push(repeat);
      }
    }
    return out;
  }

  private note(note: SwfNote): void {
    this.notes.push(note.text);
  }

  private step(step: SwfStep, phase: 'warmup' | 'main' | 'cooldown', inRepeat: boolean): GarminStep {
    const description = [...this.notes, ...(step.note ? [step.note] : [])].join(' ').slice(0, 512) || null;
    this.notes = [];
    const bounds = step.intensity ? speedBounds(step.intensity) : null;
    if (step.intensity?.type === 'ramp') this.ramps = true;
    return {
      type: 'WorkoutStep',
      stepOrder: ++this.order,
      intensity: phase === 'warmup' ? 'WARMUP' : phase === 'cooldown' ? 'COOLDOWN' : step.effort === 'work' ? (inRepeat ? 'INTERVAL' : 'ACTIVE') : (inRepeat ? 'RECOVERY' : 'REST'),
      description,
      durationType: step.volume ? (step.volume.quantity === 'duration' ? 'TIME' : 'DISTANCE') : 'OPEN',
      durationValue: step.volume ? step.volume.value : null,
      targetType: bounds ? 'SPEED' : 'OPEN',
      targetValueLow: bounds?.low ?? null,
      targetValueHigh: bounds?.high ?? null,
    };
  }
}
