/**
 * SWF → an intervals.icu calendar event (providers.md §2 "Workouts (calendar events)"): `category:
 * "WORKOUT"`, `type: "Run"`, `start_date_local`, `name`, `description` in intervals.icu's workout text,
 * our id in `external_id` (sent to `POST /api/v1/athlete/{id}/events/bulk?upsert=true`, which matches on
 * it, so a retried delivery updates instead of duplicating). intervals.icu forwards planned workouts to
 * the athlete's devices itself [peers].
 *
 * The workout text syntax is [unverified] here (providers.md names it but does not spell it; this follows
 * intervals.icu's workout-builder help as integrators use it): a line without `-` is a heading or a
 * comment, `- <cue> <volume> <target>` is a step, `Nx` opens a repeat block that ends at a blank line;
 * durations `1h2m30s`, distances `2km` / `400mtr` (`m` means minutes), absolute pace `4:30/km Pace` or a
 * range `4:20-4:40/km Pace`, a ramp `ramp 5:30-4:30/km Pace`. Pure; test/engine/workout-translators.test.ts.
 */
import type { SwfNode, SwfStep } from '../../domain/workouts/swf.js';
import { localStart, plannedSeconds, workoutName, type Translation, type WorkoutView } from './workout-view.js';

export interface IntervalsEvent {
  category: 'WORKOUT';
  type: 'Run';
  start_date_local: string;
  name: string;
  description: string;
  moving_time: number;
  external_id: string;
}

const HEADINGS = { warmup: 'Warmup', main: 'Main Set', cooldown: 'Cooldown' } as const;

export function toIntervalsEvent(view: WorkoutView): Translation<IntervalsEvent> {
  const lines: string[] = [];
  if (view.swf.description) lines.push(...view.swf.description.split('\n').map((line) => line.replace(/^\s*-/, '').trim()).filter(Boolean), '');
  writeNodes(view.swf.content, lines);
  return {
    body: {
      category: 'WORKOUT',
      type: 'Run',
      start_date_local: localStart(view),
      name: workoutName(view),
      description: lines.join('\n').replace(/\n{3,}/g, '\n\n').trim(),
      moving_time: Math.round(plannedSeconds(view.swf)),
      external_id: view.id,
    },
    warnings: [],
  };
}

function writeNodes(nodes: readonly SwfNode[], lines: string[]): void {
  for (const node of nodes) {
    switch (node.type) {
      case 'note':
        lines.push(oneLine(node.text));
        break;
      case 'step':
        lines.push(stepLine(node));
        break;
      case 'repeat':
        lines.push('', `${node.count}x`);
        writeNodes(node.content, lines);
        lines.push('');
        break;
      case 'section':
        lines.push('', HEADINGS[node.phase]);
        writeNodes(node.content, lines);
        lines.push('');
        break;
    }
  }
}

/** A step line: `- <cue> <volume> <target>`; a rest step without a cue says so. */
export function stepLine(step: SwfStep): string {
  const parts = ['-'];
  const cue = step.note ? oneLine(step.note) : step.effort === 'rest' ? 'Recovery' : '';
  if (cue) parts.push(cue);
  if (step.volume) parts.push(step.volume.quantity === 'duration' ? durationText(step.volume.value) : distanceText(step.volume.value));
  if (step.intensity) {
    const value = step.intensity;
    if (value.type === 'constant') parts.push(`${paceText(value.value)}/km Pace`);
    else if (value.type === 'range') {
      const fast = value.max ?? value.min!;
      const slow = value.min ?? value.max!;
      parts.push(fast === slow ? `${paceText(fast)}/km Pace` : `${paceText(fast)}-${paceText(slow)}/km Pace`);
    } else parts.push(`ramp ${paceText(value.start)}-${paceText(value.end)}/km Pace`);
  }
  return parts.join(' ');
}

/** A line of text that cannot be read as a step or a repeat header. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/^-+\s*/, '').replace(/^(\d+)x\b/i, '$1 x');
}

/** `1h2m30s`: whole seconds. */
export function durationText(seconds: number): string {
  const total = Math.round(seconds);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  return `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${rest || total === 0 ? `${rest}s` : ''}`;
}

/** `2km` for whole kilometres, else `400mtr` (intervals.icu reads `m` as minutes). */
export function distanceText(metres: number): string {
  const rounded = Math.round(metres);
  return rounded % 1000 === 0 ? `${rounded / 1000}km` : `${rounded}mtr`;
}

/** Pace `m:ss` per km of a speed in m/s. */
export function paceText(speed: number): string {
  const seconds = Math.round(1000 / speed);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
