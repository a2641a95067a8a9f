/**
 * SWF v0.4.0 validation (domain/workouts/swf.ts): each rule of gaps.md and each of our choices in the
 * file's table, with a valid and an invalid example, the exact path of every issue, and the
 * deliverability pass.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { deliverabilityIssues, parseSwf, type Swf } from '../../domain/workouts/swf.js';

const speed = (value: number) => ({ quantity: 'speed', value });
const minutes = (n: number) => ({ quantity: 'duration', value: n * 60 });
const step = (over: Record<string, unknown> = {}) => ({ type: 'step', effort: 'work', volume: minutes(5), intensity: speed(3.5), note: null, ...over });
const workout = (over: Record<string, unknown> = {}) => ({ title: 'Tempo', description: null, sport: 'running', content: [step()], ...over });

function valid(input: unknown): Swf {
  const result = parseSwf(input);
  if (!result.swf) throw new Error(`expected valid, got ${JSON.stringify(result.issues)}`);
  return result.swf;
}

/** The issues as `path → message`, paths dotted. */
function issues(input: unknown): Record<string, string> {
  const result = parseSwf(input);
  assert.is(result.swf, null, 'expected the workout to be refused');
  // An unknown key is reported on its object with the key's name (the HTTP layer puts it at the end of `loc`).
  return Object.fromEntries(result.issues.flatMap((issue) => issue.code === 'unrecognized_keys'
    ? issue.keys.map((key) => [[...issue.path, key].join('.'), String(issue.message)])
    : [[issue.path.join('.'), String(issue.message)]]));
}

function refusedAt(input: unknown, path: string, message?: RegExp): void {
  const found = issues(input);
  assert.ok(path in found, `no issue at '${path}' in ${JSON.stringify(found)}`);
  if (message) assert.match(found[path]!, message);
}

test('accepts the full shape and normalises it: every optional key present, every node and value typed', () => {
  const swf = valid({
    sport: 'running',
    content: [
      { phase: 'warmup', content: [{ type: 'step', effort: 'work', volume: minutes(10), intensity: { min: 2.8, max: 3.1, quantity: 'speed' } }] },
      { type: 'section', phase: 'main', content: [
        { count: 5, content: [step({ intensity: { type: 'constant', quantity: 'speed', value: 5 } }), { type: 'step', effort: 'rest', volume: { quantity: 'distance', value: 200 } }] },
        { text: 'Stay relaxed' },
      ] },
      { type: 'section', phase: 'cooldown', content: [step({ intensity: { quantity: 'speed', start: 3.2, end: 2.6 } })] },
    ],
  });
  assert.equal(swf.title, null);
  assert.equal(swf.description, null);
  assert.equal(swf.content[0], { type: 'section', phase: 'warmup', content: [
    { type: 'step', effort: 'work', volume: { type: 'constant', quantity: 'duration', value: 600 }, intensity: { type: 'range', quantity: 'speed', min: 2.8, max: 3.1 }, note: null },
  ] });
  const main = swf.content[1] as Extract<Swf['content'][number], { type: 'section' }>;
  assert.is(main.content[0]!.type, 'repeat');
  assert.equal(main.content[1], { type: 'note', text: 'Stay relaxed' });
  assert.equal((swf.content[2] as { content: { intensity: unknown }[] }).content[0]!.intensity, { type: 'ramp', quantity: 'speed', start: 3.2, end: 2.6 });
});

test('treats null as absent on every optional key [client sends every key]', () => {
  const swf = valid(workout({ title: null, description: null, content: [step({ volume: null, intensity: null, note: null })] }));
  assert.equal(swf.content[0], { type: 'step', effort: 'work', volume: null, intensity: null, note: null });
});

test('canonicalises the sport and refuses one that is not Open Sport Taxonomy', () => {
  assert.is(valid(workout({ sport: 'running.treadmill' })).sport, 'running+stationary');
  refusedAt(workout({ sport: 'Running!' }), 'sport', /not a valid Open Sport Taxonomy sport/);
  refusedAt(workout({ sport: undefined }), 'sport');
});

test('requires content with at least one step', () => {
  refusedAt(workout({ content: [] }), 'content');
  refusedAt(workout({ content: undefined }), 'content');
  refusedAt(workout({ content: [{ type: 'note', text: 'just a note' }] }), 'content', /at least one step/);
});

test('refuses unknown keys everywhere, naming the key', () => {
  refusedAt(workout({ colour: 'red' }), 'colour');
  refusedAt(workout({ content: [step({ intensty: speed(3) })] }), 'content.0.intensty');
  refusedAt(workout({ content: [step({ intensity: { quantity: 'speed', value: 3, unit: 'm/s' } })] }), 'content.0.intensity.unit');
});

test('a step needs type "step" and an effort of work or rest', () => {
  refusedAt(workout({ content: [step({ type: undefined })] }), 'content.0.type');
  refusedAt(workout({ content: [step({ effort: 'easy' })] }), 'content.0.effort');
  refusedAt(workout({ content: [step({ effort: undefined })] }), 'content.0.effort');
  refusedAt(workout({ content: [{ type: 'interval', effort: 'work' }] }), 'content.0', /step, repeat, section or note/);
  refusedAt(workout({ content: ['run'] }), 'content.0');
  valid(workout({ content: [step({ effort: 'rest' })] }));
});

test('a step may be open: no volume, no intensity', () => {
  valid(workout({ content: [step({ volume: undefined, intensity: undefined })] }));
});

test('volume is a constant duration (s) or distance (m), positive and bounded', () => {
  valid(workout({ content: [step({ volume: { quantity: 'distance', value: 400 } })] }));
  refusedAt(workout({ content: [step({ volume: { quantity: 'speed', value: 3 } })] }), 'content.0.volume.quantity', /'duration', 'distance'/);
  refusedAt(workout({ content: [step({ volume: { quantity: 'duration', value: 0 } })] }), 'content.0.volume.value', /greater than 0/);
  refusedAt(workout({ content: [step({ volume: { quantity: 'duration', value: 86_401 } })] }), 'content.0.volume.value', /86400/);
  refusedAt(workout({ content: [step({ volume: { quantity: 'distance', value: 1_000_001 } })] }), 'content.0.volume.value');
  refusedAt(workout({ content: [step({ volume: { quantity: 'duration', min: 60, max: 120 } })] }), 'content.0.volume', /a volume is a constant/);
  refusedAt(workout({ content: [step({ volume: { quantity: 'duration', value: '300' } })] }), 'content.0.volume.value');
  refusedAt(workout({ content: [step({ volume: { value: 300 } })] }), 'content.0.volume.quantity');
});

test('intensity quantities: speed, power, heart_rate, cadence, rpe, each within its bounds', () => {
  for (const [quantity, ok, bad] of [['speed', 4, 51], ['power', 250, 5001], ['heart_rate', 150, 301], ['cadence', 90, 301], ['rpe', 0, 11]] as const) {
    assert.is(parseSwf(workout({ content: [step({ intensity: { quantity, value: ok } })] })).issues.length, 0, `${quantity} ${ok}`);
    refusedAt(workout({ content: [step({ intensity: { quantity, value: bad } })] }), 'content.0.intensity.value');
  }
  refusedAt(workout({ content: [step({ intensity: { quantity: 'speed', value: 0 } })] }), 'content.0.intensity.value', /greater than 0/);
  refusedAt(workout({ content: [step({ intensity: { quantity: 'pace', value: 300 } })] }), 'content.0.intensity.quantity', /'speed'/);
  refusedAt(workout({ content: [step({ intensity: { quantity: 'duration', value: 300 } })] }), 'content.0.intensity.quantity');
});

test('a range needs at least one bound, and min ≤ max', () => {
  valid(workout({ content: [step({ intensity: { quantity: 'speed', min: 3 } })] }));
  valid(workout({ content: [step({ intensity: { quantity: 'speed', max: 4, min: null } })] }));
  valid(workout({ content: [step({ intensity: { type: 'range', quantity: 'speed', min: 3, max: 3 } })] }));
  refusedAt(workout({ content: [step({ intensity: { type: 'range', quantity: 'speed' } })] }), 'content.0.intensity', /min, max or both/);
  refusedAt(workout({ content: [step({ intensity: { type: 'range', quantity: 'speed', min: null, max: null } })] }), 'content.0.intensity');
  refusedAt(workout({ content: [step({ intensity: { quantity: 'speed', min: 4, max: 3 } })] }), 'content.0.intensity.max', /not be below min/);
  refusedAt(workout({ content: [step({ intensity: { quantity: 'speed', min: 3, max: 60 } })] }), 'content.0.intensity.max');
});

test('a ramp needs start and end, and they must differ', () => {
  valid(workout({ content: [step({ intensity: { quantity: 'speed', start: 3, end: 4 } })] }));
  refusedAt(workout({ content: [step({ intensity: { type: 'ramp', quantity: 'speed', start: 3 } })] }), 'content.0.intensity.end');
  refusedAt(workout({ content: [step({ intensity: { type: 'ramp', quantity: 'speed', start: 3, end: 3 } })] }), 'content.0.intensity.end', /must differ/);
  refusedAt(workout({ content: [step({ intensity: { type: 'zigzag', quantity: 'speed', value: 3 } })] }), 'content.0.intensity', /constant .* range .* ramp/);
  refusedAt(workout({ content: [step({ intensity: { quantity: 'speed' } })] }), 'content.0.intensity');
});

test('a repeat: count an integer 1–100, content with at least one step, no nested repeat or section', () => {
  valid(workout({ content: [{ type: 'repeat', count: 1, content: [step()] }] }));
  valid(workout({ content: [{ count: 100, content: [step(), { text: 'easy back' }] }] }));
  refusedAt(workout({ content: [{ count: 0, content: [step()] }] }), 'content.0.count');
  refusedAt(workout({ content: [{ count: 101, content: [step()] }] }), 'content.0.count');
  refusedAt(workout({ content: [{ count: 2.5, content: [step()] }] }), 'content.0.count');
  refusedAt(workout({ content: [{ type: 'repeat', content: [step()] }] }), 'content.0.count');
  refusedAt(workout({ content: [{ count: 2, content: [] }] }), 'content.0.content');
  refusedAt(workout({ content: [{ count: 2, content: [{ text: 'only words' }] }] }), 'content.0.content', /at least one step/);
  refusedAt(workout({ content: [{ count: 2, content: [{ count: 2, content: [step()] }] }] }), 'content.0.content.0', /repeats do not nest/);
  refusedAt(workout({ content: [{ count: 2, content: [{ phase: 'main', content: [step()] }] }] }), 'content.0.content.0', /sections only at the top level/);
});

test('a section: phase warmup, main or cooldown, at the top level only, holding at least one step', () => {
  for (const phase of ['warmup', 'main', 'cooldown']) valid(workout({ content: [{ phase, content: [step()] }] }));
  refusedAt(workout({ content: [{ phase: 'intervals', content: [step()] }] }), 'content.0.phase');
  refusedAt(workout({ content: [{ type: 'section', content: [step()] }] }), 'content.0.phase');
  refusedAt(workout({ content: [{ phase: 'main', content: [{ phase: 'warmup', content: [step()] }] }] }), 'content.0.content.0', /sections only at the top level/);
  refusedAt(workout({ content: [{ phase: 'main', content: [{ text: 'x' }] }] }), 'content.0.content', /at least one step/);
  valid(workout({ content: [{ phase: 'main', content: [{ count: 3, content: [step()] }] }] }));
});

test('a note: text of 1–1000 characters; a step note at most 500', () => {
  valid(workout({ content: [{ type: 'note', text: 'Drink' }, step({ note: 'n'.repeat(500) })] }));
  refusedAt(workout({ content: [{ type: 'note', text: '' }, step()] }), 'content.0.text');
  refusedAt(workout({ content: [{ type: 'note', text: 'x'.repeat(1001) }, step()] }), 'content.0.text');
  refusedAt(workout({ content: [{ type: 'note' }, step()] }), 'content.0.text');
  refusedAt(workout({ content: [step({ note: 'n'.repeat(501) })] }), 'content.0.note');
});

test('title at most 200 characters, description at most 2000', () => {
  refusedAt(workout({ title: 't'.repeat(201) }), 'title');
  refusedAt(workout({ description: 'd'.repeat(2001) }), 'description');
  refusedAt(workout({ title: 42 }), 'title');
});

test('at most 500 nodes and 1000 steps once repeats are expanded', () => {
  valid(workout({ content: [{ count: 100, content: Array.from({ length: 10 }, () => step()) }] }));
  refusedAt(workout({ content: [{ count: 100, content: Array.from({ length: 11 }, () => step()) }] }), 'content', /1000 steps once repeats are expanded \(got 1100\)/);
  refusedAt(workout({ content: Array.from({ length: 501 }, () => step()) }), 'content', /at most 500/);
});

test('reports every problem at once, each at its exact path', () => {
  const found = issues(workout({ title: 't'.repeat(201), content: [step({ effort: 'x' }), { count: 0, content: [step({ intensity: { quantity: 'speed', min: 5, max: 4 } })] }] }));
  assert.equal(Object.keys(found).sort(), ['content.0.effort', 'content.1.content.0.intensity.max', 'content.1.count', 'title']);
});

test('refuses a non-object workout, node or value', () => {
  refusedAt('run fast', '');
  refusedAt(workout({ content: [step({ intensity: 3.5 })] }), 'content.0.intensity');
  refusedAt(workout({ content: 'step' }), 'content');
});

test('deliverable: running with speed intensities only, else a reason naming the sport or the step', () => {
  assert.equal(deliverabilityIssues(valid(workout())), []);
  assert.equal(deliverabilityIssues(valid(workout({ content: [step({ intensity: null })] }))), [], 'an open intensity is deliverable');
  const cycling = deliverabilityIssues(valid(workout({ sport: 'cycling' })));
  assert.equal(cycling.map((issue) => issue.path), [['sport']]);
  assert.match(String(cycling[0]!.message), /only running with speed intensity is deliverable today: sport 'cycling' is not running/);
  assert.equal(deliverabilityIssues(valid(workout({ sport: 'running.trail' }))).map((issue) => issue.path), [['sport']], 'a sub-sport is not deliverable');
  assert.equal(deliverabilityIssues(valid(workout({ sport: 'running+stationary' }))).map((issue) => issue.path), [['sport']], 'nor a modifier');
  const power = deliverabilityIssues(valid(workout({ content: [step(), { phase: 'main', content: [{ count: 3, content: [step({ intensity: { quantity: 'heart_rate', min: 150, max: 160 } })] }] }] })));
  assert.equal(power.map((issue) => issue.path), [['content', 1, 'content', 0, 'content', 0, 'intensity', 'quantity']]);
  assert.match(String(power[0]!.message), /deliverable today: the step at content\.1\.content\.0\.content\.0 sets its intensity in heart_rate/);
});

test.run();
