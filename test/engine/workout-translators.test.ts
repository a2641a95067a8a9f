/**
 * The pure SWF translators (engine/workouts/): intervals.icu calendar event and workout text, Garmin
 * Training API V2 workout (step limit, ramps), Wahoo plan and forms; the planned-duration estimate; the
 * schedule warnings (no provider, Wahoo's device window); and that the providers the gateway calls
 * removable are exactly those whose sender can remove.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { parseSwf, type Swf } from '../../domain/workouts/swf.js';
import { PROVIDERS } from '../../domain/providers.js';
import { NO_PROVIDER_WARNING, REMOVABLE_WORKOUT_PROVIDERS, scheduleWarnings, wahooWindowWarning } from '../../domain/workouts/schedule-warnings.js';
import { toIntervalsEvent, durationText, distanceText, paceText } from '../../engine/workouts/intervals-icu-workout.js';
import { toGarminWorkout, type GarminRepeatStep, type GarminStep } from '../../engine/workouts/garmin-workout.js';
import { toWahooDelivery } from '../../engine/workouts/wahoo-workout.js';
import { plannedSeconds, Untranslatable, type WorkoutView } from '../../engine/workouts/workout-view.js';
import { WORKOUT_SENDERS } from '../../engine/workouts/senders.js';

const START = Date.UTC(2026, 5, 1, 5, 30); // 07:30 at +02:00
const CREATED = Date.UTC(2026, 4, 20, 12, 0);

function swf(input: unknown): Swf {
  const parsed = parseSwf(input);
  if (!parsed.swf) throw new Error(JSON.stringify(parsed.issues));
  return parsed.swf;
}

const INTERVALS = swf({
  title: 'Track 5×1000', description: 'Controlled, even splits', sport: 'running',
  content: [
    { phase: 'warmup', content: [{ type: 'step', effort: 'work', volume: { quantity: 'duration', value: 900 }, intensity: { quantity: 'speed', min: 2.5, max: 3 } }] },
    { phase: 'main', content: [
      { text: 'Lane 1' },
      { count: 5, content: [
        { type: 'step', effort: 'work', volume: { quantity: 'distance', value: 1000 }, intensity: { quantity: 'speed', value: 5 }, note: 'Hard' },
        { type: 'step', effort: 'rest', volume: { quantity: 'duration', value: 120 } },
      ] },
    ] },
    { phase: 'cooldown', content: [{ type: 'step', effort: 'work', volume: { quantity: 'distance', value: 2500 }, intensity: { quantity: 'speed', start: 3, end: 2.5 } }] },
  ],
});

const view = (content: Swf = INTERVALS): WorkoutView => ({ id: '0123456789abcdef', swf: content, start: START, offset: 120, createdAt: CREATED });

test('intervals.icu: a WORKOUT event of type Run at the local start, keyed by our id, with the workout text', () => {
  const { body, warnings } = toIntervalsEvent(view());
  assert.equal(warnings, []);
  assert.equal({ ...body, description: '…' }, {
    category: 'WORKOUT', type: 'Run', start_date_local: '2026-06-01T07:30:00', name: 'Track 5×1000', description: '…',
    moving_time: Math.round(plannedSeconds(INTERVALS)), external_id: '0123456789abcdef',
  });
  assert.is(body.description, [
    'Controlled, even splits',
    '',
    'Warmup',
    '- 15m 5:33-6:40/km Pace',
    '',
    'Main Set',
    'Lane 1',
    '',
    '5x',
    '- Hard 1km 3:20/km Pace',
    '- Recovery 2m',
    '',
    'Cooldown',
    '- 2500mtr ramp 5:33-6:40/km Pace',
  ].join('\n'));
});

test('intervals.icu: durations, distances and paces are written as its text expects', () => {
  assert.is(durationText(3750), '1h2m30s');
  assert.is(durationText(45), '45s');
  assert.is(distanceText(400), '400mtr');
  assert.is(distanceText(10_000), '10km');
  assert.is(paceText(1000 / 270), '4:30');
});

test('planned duration: durations, plus distances at the middle of their speed target, repeats expanded', () => {
  assert.is(plannedSeconds(INTERVALS), 900 + 5 * (1000 / 5 + 120) + 2500 / 2.75);
});

test('Garmin: a RUNNING workout with warmup/cooldown intensities, repeat steps, speed targets and the schedule date', () => {
  const { body, warnings } = toGarminWorkout(view());
  assert.is(body.date, '2026-06-01');
  const { workout } = body;
  assert.equal({ ...workout, segments: [] }, {
    workoutName: 'Track 5×1000', description: 'Controlled, even splits', sport: 'RUNNING', workoutProvider: 'Threshold',
    workoutSourceId: '0123456789abcdef', segments: [],
  });
  const steps = workout.segments[0]!.steps;
  assert.equal(steps[0], {
    type: 'WorkoutStep', stepOrder: 1, intensity: 'WARMUP', description: null, durationType: 'TIME', durationValue: 900,
    targetType: 'SPEED', targetValueLow: 2.5, targetValueHigh: 3,
  });
  const repeat = steps[1] as GarminRepeatStep;
  assert.equal({ ...repeat, steps: [] }, { type: 'WorkoutRepeatStep', stepOrder: 2, repeatType: 'REPEAT_UNTIL_STEPS_CMPLT', repeatValue: 5, steps: [] });
  assert.equal(repeat.steps.map((step) => [step.stepOrder, step.intensity, step.description, step.durationType, step.targetType]), [
    [3, 'INTERVAL', 'Lane 1 Hard', 'DISTANCE', 'SPEED'],
    [4, 'RECOVERY', null, 'TIME', 'OPEN'],
  ]);
  const cooldown = steps[2] as GarminStep;
  assert.equal([cooldown.intensity, cooldown.targetValueLow, cooldown.targetValueHigh], ['COOLDOWN', 2.5, 3]);
  assert.equal(warnings, ['garmin_connect: Garmin has no ramp target; ramps were sent as the speed range they sweep']);
});

test('Garmin: an open step has OPEN duration and target; a one-sided range becomes a point target', () => {
  const { body } = toGarminWorkout(view(swf({ sport: 'running', content: [{ type: 'step', effort: 'work', intensity: { quantity: 'speed', min: 4 } }] })));
  assert.equal(body.workout.segments[0]!.steps[0], {
    type: 'WorkoutStep', stepOrder: 1, intensity: 'ACTIVE', description: null, durationType: 'OPEN', durationValue: null,
    targetType: 'SPEED', targetValueLow: 4, targetValueHigh: 4,
  });
});

test('Garmin: more than 100 steps cannot be sent, and the reason says so', () => {
  const step = { type: 'step', effort: 'work', volume: { quantity: 'duration', value: 60 } };
  const hundred = swf({ sport: 'running', content: Array.from({ length: 100 }, () => step) });
  assert.is(toGarminWorkout(view(hundred)).body.workout.segments[0]!.steps.length, 100);
  const tooMany = swf({ sport: 'running', content: [...Array.from({ length: 99 }, () => step), { count: 2, content: [step] }] });
  try {
    toGarminWorkout(view(tooMany));
    assert.unreachable('101 steps were translated');
  } catch (error) {
    assert.instance(error, Untranslatable);
    assert.is((error as Untranslatable).reason, 'too_many_steps');
    assert.match((error as Error).message, /at most 100 steps; this workout has 101/);
  }
});

test('Wahoo: a plan JSON as a data URL with our external id, and a run workout form at the UTC start', () => {
  const { body, warnings } = toWahooDelivery(view());
  assert.equal(body.plan.header, { name: 'Track 5×1000', version: '1.0.0', description: 'Controlled, even splits', workout_type_family: 1, workout_type_location: 0 });
  assert.equal(body.plan.intervals[0], { name: 'Work', exit_trigger_type: 'time', exit_trigger_value: 900, intensity_type: 'wu', targets: [{ type: 'speed', low: 2.5, high: 3 }] });
  assert.equal(body.plan.intervals[1]!.exit_trigger_type, 'repeat');
  assert.equal(body.plan.intervals[1]!.intervals!.map((interval) => [interval.name, interval.exit_trigger_type, interval.intensity_type]), [['Hard', 'distance', 'active'], ['Recovery', 'time', 'recover']]);
  assert.equal(body.plan.intervals[2]!.intensity_type, 'cd');
  assert.equal(JSON.parse(Buffer.from(body.planForm['plan[file]']!.replace('data:application/json;base64,', ''), 'base64').toString()), body.plan);
  assert.equal({ ...body.planForm, 'plan[file]': '…' }, {
    'plan[file]': '…', 'plan[filename]': 'threshold-0123456789abcdef.json', 'plan[external_id]': '0123456789abcdef', 'plan[provider_updated_at]': '2026-05-20T12:00:00Z',
  });
  assert.equal(body.workoutForm, {
    'workout[name]': 'Track 5×1000', 'workout[workout_token]': '0123456789abcdef', 'workout[workout_type_id]': '1',
    'workout[starts]': '2026-06-01T05:30:00Z', 'workout[minutes]': String(Math.ceil(plannedSeconds(INTERVALS) / 60)),
  });
  assert.equal(warnings, ['wahoo: Wahoo plans have no ramp target; ramps were sent as the speed range they sweep']);
});

test('schedule warnings: none connected, and Wahoo only from today to 6 days ahead at the client offset', () => {
  const now = Date.UTC(2026, 5, 1, 22, 30); // 2 June 00:30 at +02:00
  assert.equal(scheduleWarnings([], START, 120, now), [NO_PROVIDER_WARNING]);
  assert.equal(scheduleWarnings(['garmin_connect'], START, 120, now), []);
  assert.is(wahooWindowWarning(Date.UTC(2026, 5, 2, 6), 120, now), null, 'today');
  assert.is(wahooWindowWarning(Date.UTC(2026, 5, 8, 6), 120, now), null, '6 days ahead');
  assert.match(wahooWindowWarning(Date.UTC(2026, 5, 9, 6), 120, now) ?? '', /only from today to 6 days ahead; this one is on 2026-06-09/);
  assert.match(wahooWindowWarning(START, 120, now) ?? '', /this one is on 2026-06-01/, 'yesterday, at the client offset');
  assert.equal(scheduleWarnings(['wahoo'], Date.UTC(2026, 5, 20), 120, now).length, 1);
});

test('the providers DELETE removes at are exactly those whose sender can remove', () => {
  assert.equal(PROVIDERS.filter((provider) => WORKOUT_SENDERS[provider].remove !== undefined), PROVIDERS.filter((provider) => REMOVABLE_WORKOUT_PROVIDERS.has(provider)));
});

test.run();
