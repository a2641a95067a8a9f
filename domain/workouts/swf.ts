/**
 * SWF v0.4.0, the structured workout format of scheduled workouts (gaps.md "Shapes → Scheduled workouts"):
 * `{title?, description?, sport, content: [step|repeat|section|note]}` with `step{type:"step", effort:
 * work|rest, volume?, intensity?, note?}`, `repeat{count, content}`, `section{phase: warmup|main|cooldown,
 * content}`, `note{text}`; values `constant{quantity, value}`, `range{min?, max?}`, `ramp{start, end}`.
 *
 * Where gaps.md is silent, these are our choices (each has a test in test/domain/swf.test.ts):
 *
 * | rule | choice |
 * |---|---|
 * | unknown keys | rejected everywhere (a typo such as `intensty` must not silently drop a target) |
 * | null | absent, on every optional key (gaps "Wire conventions") |
 * | node kind | `type` picks it: `step` (required on a step, as gaps.md writes it), `repeat`, `section`, `note` (optional on those three; without it the kind comes from `count`, `phase` or `text`) |
 * | value kind | `type` `constant`, `range` or `ramp`, optional; without it the kind comes from `value`, `min`/`max` or `start`/`end`; every value names its `quantity` |
 * | volume quantities | `duration` (s, > 0, ≤ 86 400) and `distance` (m, > 0, ≤ 1 000 000); a volume is a constant (a range or ramp of volume is a 422) |
 * | intensity quantities | `speed` (m/s, > 0, ≤ 50), `power` (W, > 0, ≤ 5000), `heart_rate` (bpm, > 0, ≤ 300), `cadence` (rpm or steps/min, > 0, ≤ 300), `rpe` (0–10) |
 * | range | at least one bound; `min` ≤ `max` |
 * | ramp | `start` and `end` both required and different (an unchanging ramp is a constant) |
 * | nesting | sections only at the top level; a section holds steps, repeats and notes; a repeat holds steps and notes (no nested repeats: intervals.icu's workout text has none) |
 * | non-empty | the workout, every section and every repeat hold at least one step |
 * | repeat count | an integer 1–100 |
 * | sizes | sport ≤ 128 (MAX_SPORT_LENGTH), title ≤ 200, description ≤ 2000, step note ≤ 500, note text 1–1000 characters; ≤ 500 nodes in all; ≤ 1000 steps once repeats are expanded |
 *
 * Deliverability is a second pass on a valid workout (`deliverabilityIssues`): gaps.md "Only running with
 * speed intensity is deliverable today; anything else is a 422 naming the reason" — the sport must be
 * exactly `running` (not a sub-sport or a modifier), and every intensity must be in `speed`.
 */
import { z } from 'zod';
import { canonicalSport, INVALID_SPORT_MESSAGE, MAX_SPORT_LENGTH } from '../sport.js';

export const VOLUME_QUANTITIES = { duration: { min: 0, max: 86_400, unit: 's' }, distance: { min: 0, max: 1_000_000, unit: 'm' } } as const;
export const INTENSITY_QUANTITIES = {
  speed: { min: 0, max: 50, unit: 'm/s' },
  power: { min: 0, max: 5000, unit: 'W' },
  heart_rate: { min: 0, max: 300, unit: 'bpm' },
  cadence: { min: 0, max: 300, unit: 'rpm' },
  rpe: { min: 0, max: 10, unit: '' },
} as const;
export type VolumeQuantity = keyof typeof VOLUME_QUANTITIES;
export type IntensityQuantity = keyof typeof INTENSITY_QUANTITIES;

export type SwfValue<Q extends string = string> =
  | { type: 'constant'; quantity: Q; value: number }
  | { type: 'range'; quantity: Q; min: number | null; max: number | null }
  | { type: 'ramp'; quantity: Q; start: number; end: number };

export interface SwfStep {
  type: 'step';
  effort: 'work' | 'rest';
  volume: (SwfValue<VolumeQuantity> & { type: 'constant' }) | null;
  intensity: SwfValue<IntensityQuantity> | null;
  note: string | null;
}
export interface SwfNote { type: 'note'; text: string }
export interface SwfRepeat { type: 'repeat'; count: number; content: (SwfStep | SwfNote)[] }
export interface SwfSection { type: 'section'; phase: 'warmup' | 'main' | 'cooldown'; content: (SwfStep | SwfRepeat | SwfNote)[] }
export type SwfNode = SwfStep | SwfNote | SwfRepeat | SwfSection;

export interface Swf {
  title: string | null;
  description: string | null;
  sport: string;
  content: SwfNode[];
}

export const MAX_NODES = 500;
export const MAX_EXPANDED_STEPS = 1000;
export const UNDELIVERABLE = 'only running with speed intensity is deliverable today';

type Path = (string | number)[];
/** A zod issue as `ctx.addIssue` takes it, with a path relative to the swf. */
export type SwfIssue = z.core.$ZodRawIssue & { path: Path };

const text = (max: number) => z.string().max(max).nullish().transform((value) => value ?? null);
const number = z.number().refine(Number.isFinite, 'Input should be a finite number');

const WorkoutFields = z.strictObject({
  title: text(200),
  description: text(2000),
  sport: z.string().max(MAX_SPORT_LENGTH).transform((value, ctx): string => {
    const canonical = canonicalSport(value);
    if (canonical !== null) return canonical;
    ctx.addIssue({ code: 'custom', message: `'${value}' is ${INVALID_SPORT_MESSAGE}`, input: value });
    return z.NEVER;
  }),
  content: z.array(z.unknown()).min(1),
});
const StepFields = z.strictObject({
  type: z.literal('step'),
  effort: z.enum(['work', 'rest']),
  volume: z.unknown().optional(),
  intensity: z.unknown().optional(),
  note: text(500),
});
const RepeatFields = z.strictObject({ type: z.literal('repeat').optional(), count: z.number().int().min(1).max(100), content: z.array(z.unknown()).min(1) });
const SectionFields = z.strictObject({ type: z.literal('section').optional(), phase: z.enum(['warmup', 'main', 'cooldown']), content: z.array(z.unknown()).min(1) });
const NoteFields = z.strictObject({ type: z.literal('note').optional(), text: z.string().min(1).max(1000) });
const ConstantFields = z.strictObject({ type: z.literal('constant').optional(), quantity: z.string(), value: number });
const RangeFields = z.strictObject({ type: z.literal('range').optional(), quantity: z.string(), min: number.nullish(), max: number.nullish() });
const RampFields = z.strictObject({ type: z.literal('ramp').optional(), quantity: z.string(), start: number, end: number });

type Kind = 'step' | 'repeat' | 'section' | 'note';
type Where = 'top' | 'section' | 'repeat';
const ALLOWED: Record<Where, readonly Kind[]> = {
  top: ['step', 'repeat', 'section', 'note'],
  section: ['step', 'repeat', 'note'],
  repeat: ['step', 'note'],
};
const PLACE: Record<Where, string> = { top: 'a workout', section: 'a section', repeat: 'a repeat' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Runs a leaf schema and re-homes its issues under `path`. */
function leaf<T extends z.ZodType>(schema: T, input: unknown, path: Path, issues: SwfIssue[]): z.output<T> | null {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  for (const issue of result.error.issues) issues.push({ ...(issue as object), path: [...path, ...issue.path] } as SwfIssue);
  return null;
}

function custom(path: Path, message: string, input: unknown): SwfIssue {
  return { code: 'custom', path, message, input };
}

function nodeKind(node: Record<string, unknown>): Kind | null {
  const type = node.type;
  if (type === 'step' || type === 'repeat' || type === 'section' || type === 'note') return type;
  if (type !== undefined && type !== null) return null;
  if ('count' in node) return 'repeat';
  if ('phase' in node) return 'section';
  if ('text' in node) return 'note';
  if ('effort' in node) return 'step';
  return null;
}

class Walk {
  readonly issues: SwfIssue[] = [];
  nodes = 0;

  content(items: unknown[], path: Path, where: Where): { nodes: SwfNode[]; steps: number } {
    const nodes: SwfNode[] = [];
    let steps = 0;
    items.forEach((item, index) => {
      const at = [...path, index];
      this.nodes += 1;
      if (!isObject(item)) {
        this.issues.push({ code: 'invalid_type', expected: 'object', path: at, message: 'Input should be a valid object', input: item });
        return;
      }
      const kind = nodeKind(item);
      if (kind === null) {
        this.issues.push(custom(at, `expected a step, repeat, section or note (type 'step', 'repeat', 'section' or 'note')`, item));
        return;
      }
      if (!ALLOWED[where].includes(kind)) {
        this.issues.push(custom(at, `${PLACE[where]} cannot hold a ${kind}${kind === 'section' ? ': sections only at the top level' : kind === 'repeat' ? ': repeats do not nest' : ''}`, item));
        return;
      }
      const node = this.node(kind, item, at);
      if (node) {
        nodes.push(node.node);
        steps += node.steps;
      }
    });
    return { nodes, steps };
  }

  node(kind: Kind, item: Record<string, unknown>, at: Path): { node: SwfNode; steps: number } | null {
    switch (kind) {
      case 'note': {
        const fields = leaf(NoteFields, item, at, this.issues);
        return fields && { node: { type: 'note', text: fields.text }, steps: 0 };
      }
      case 'step': {
        const fields = leaf(StepFields, item, at, this.issues);
        const volume = item.volume === undefined || item.volume === null ? null : this.value(item.volume, [...at, 'volume'], 'volume');
        const intensity = item.intensity === undefined || item.intensity === null ? null : this.value(item.intensity, [...at, 'intensity'], 'intensity');
        if (!fields || volume === undefined || intensity === undefined) return null;
        return { node: { type: 'step', effort: fields.effort, volume: volume as SwfStep['volume'], intensity: intensity as SwfStep['intensity'], note: fields.note }, steps: 1 };
      }
      case 'repeat': {
        const fields = leaf(RepeatFields, item, at, this.issues);
        const inner = Array.isArray(item.content) ? this.content(item.content, [...at, 'content'], 'repeat') : null;
        if (!fields || !inner) return null;
        if (inner.steps === 0) this.issues.push(custom([...at, 'content'], 'a repeat must hold at least one step', item.content));
        return { node: { type: 'repeat', count: fields.count, content: inner.nodes as SwfRepeat['content'] }, steps: inner.steps * fields.count };
      }
      case 'section': {
        const fields = leaf(SectionFields, item, at, this.issues);
        const inner = Array.isArray(item.content) ? this.content(item.content, [...at, 'content'], 'section') : null;
        if (!fields || !inner) return null;
        if (inner.steps === 0) this.issues.push(custom([...at, 'content'], 'a section must hold at least one step', item.content));
        return { node: { type: 'section', phase: fields.phase, content: inner.nodes as SwfSection['content'] }, steps: inner.steps };
      }
    }
  }

  /** A volume or intensity value; undefined when invalid (issues recorded). */
  value(input: unknown, at: Path, role: 'volume' | 'intensity'): SwfValue | undefined {
    if (!isObject(input)) {
      this.issues.push({ code: 'invalid_type', expected: 'object', path: at, message: 'Input should be a valid object', input });
      return undefined;
    }
    const kind = input.type ?? ('value' in input ? 'constant' : 'start' in input || 'end' in input ? 'ramp' : 'min' in input || 'max' in input ? 'range' : null);
    if (kind !== 'constant' && kind !== 'range' && kind !== 'ramp') {
      this.issues.push(custom(at, "expected a constant {quantity, value}, a range {quantity, min?, max?} or a ramp {quantity, start, end}", input));
      return undefined;
    }
    const quantities = role === 'volume' ? VOLUME_QUANTITIES : INTENSITY_QUANTITIES;
    const quantity = input.quantity;
    const before = this.issues.length;
    if (typeof quantity === 'string' && !(quantity in quantities)) {
      this.issues.push({ code: 'invalid_value', values: Object.keys(quantities), path: [...at, 'quantity'], input: quantity,
        message: `${role} quantity must be one of ${Object.keys(quantities).map((name) => `'${name}'`).join(', ')}` });
    }
    if (role === 'volume' && kind !== 'constant') {
      this.issues.push(custom(at, `a volume is a constant amount ({quantity, value}), not a ${kind}`, input));
      return undefined;
    }
    const bounds = (quantities as Record<string, { min: number; max: number; unit: string }>)[String(quantity)];
    const check = (field: string, value: number | null | undefined) => {
      if (value === null || value === undefined || !bounds) return;
      const inclusiveMin = quantity === 'rpe';
      if (inclusiveMin ? value < bounds.min : value <= bounds.min) {
        this.issues.push({ code: 'too_small', origin: 'number', minimum: bounds.min, inclusive: inclusiveMin, path: [...at, field], input: value,
          message: `Input should be ${inclusiveMin ? 'greater than or equal to' : 'greater than'} ${bounds.min}${bounds.unit ? ` ${bounds.unit}` : ''}` });
      } else if (value > bounds.max) {
        this.issues.push({ code: 'too_big', origin: 'number', maximum: bounds.max, inclusive: true, path: [...at, field], input: value,
          message: `Input should be less than or equal to ${bounds.max}${bounds.unit ? ` ${bounds.unit}` : ''}` });
      }
    };
    if (kind === 'constant') {
      const fields = leaf(ConstantFields, input, at, this.issues);
      if (!fields) return undefined;
      check('value', fields.value);
      return this.issues.length > before ? undefined : { type: 'constant', quantity: fields.quantity, value: fields.value };
    }
    if (kind === 'range') {
      const fields = leaf(RangeFields, input, at, this.issues);
      if (!fields) return undefined;
      const min = fields.min ?? null;
      const max = fields.max ?? null;
      check('min', min);
      check('max', max);
      if (min === null && max === null) this.issues.push(custom(at, 'a range needs min, max or both', input));
      else if (min !== null && max !== null && min > max) this.issues.push(custom([...at, 'max'], `max (${max}) must not be below min (${min})`, max));
      return this.issues.length > before ? undefined : { type: 'range', quantity: fields.quantity, min, max };
    }
    const fields = leaf(RampFields, input, at, this.issues);
    if (!fields) return undefined;
    check('start', fields.start);
    check('end', fields.end);
    if (fields.start === fields.end) this.issues.push(custom([...at, 'end'], 'a ramp changes: start and end must differ (use a constant)', fields.end));
    return this.issues.length > before ? undefined : { type: 'ramp', quantity: fields.quantity, start: fields.start, end: fields.end };
  }
}

/** Validates an SWF document: the parsed workout, or the issues (paths relative to the swf). */
export function parseSwf(input: unknown): { swf: Swf; issues: [] } | { swf: null; issues: SwfIssue[] } {
  const walk = new Walk();
  if (!isObject(input)) {
    return { swf: null, issues: [{ code: 'invalid_type', expected: 'object', path: [], message: 'Input should be a valid object', input }] };
  }
  const fields = leaf(WorkoutFields, input, [], walk.issues);
  const content = Array.isArray(input.content) ? walk.content(input.content, ['content'], 'top') : null;
  if (content && content.nodes.length === (input.content as unknown[]).length && content.steps === 0 && walk.issues.length === 0) {
    walk.issues.push(custom(['content'], 'a workout must hold at least one step', input.content));
  }
  if (walk.nodes > MAX_NODES) walk.issues.push(custom(['content'], `at most ${MAX_NODES} steps, repeats, sections and notes in all (got ${walk.nodes})`, input.content));
  if (content && content.steps > MAX_EXPANDED_STEPS) {
    walk.issues.push(custom(['content'], `at most ${MAX_EXPANDED_STEPS} steps once repeats are expanded (got ${content.steps})`, input.content));
  }
  if (walk.issues.length > 0 || !fields || !content) return { swf: null, issues: walk.issues.length > 0 ? walk.issues : [custom([], 'invalid workout', input)] };
  return { swf: { title: fields.title, description: fields.description, sport: fields.sport, content: content.nodes }, issues: [] };
}

/** Every step with its path (relative to the swf), in order; repeats are not expanded. */
export function* stepsWithPaths(swf: Swf): Generator<{ step: SwfStep; path: Path }> {
  function* walk(nodes: readonly SwfNode[], path: Path): Generator<{ step: SwfStep; path: Path }> {
    for (const [index, node] of nodes.entries()) {
      if (node.type === 'step') yield { step: node, path: [...path, index] };
      else if (node.type === 'repeat' || node.type === 'section') yield* walk(node.content, [...path, index, 'content']);
    }
  }
  yield* walk(swf.content, ['content']);
}

/** gaps.md: "Only running with speed intensity is deliverable today; anything else is a 422 naming the reason". */
export function deliverabilityIssues(swf: Swf): SwfIssue[] {
  const issues: SwfIssue[] = [];
  if (swf.sport !== 'running') {
    issues.push(custom(['sport'], `${UNDELIVERABLE}: sport '${swf.sport}' is not running`, swf.sport));
  }
  for (const { step, path } of stepsWithPaths(swf)) {
    if (step.intensity && step.intensity.quantity !== 'speed') {
      issues.push(custom([...path, 'intensity', 'quantity'], `${UNDELIVERABLE}: the step at ${path.join('.')} sets its intensity in ${step.intensity.quantity}`, step.intensity.quantity));
    }
  }
  return issues;
}

/**
 * The request field: a valid, deliverable SWF (parsed), or a 422 with every issue at its exact path
 * under the field (the validate middleware maps them to `{loc, msg, type}`).
 */
export const swfSchema = z.unknown().transform((input, ctx): Swf => {
  const parsed = parseSwf(input);
  const issues = parsed.swf ? deliverabilityIssues(parsed.swf) : parsed.issues;
  for (const issue of issues) ctx.addIssue(issue);
  return issues.length > 0 ? z.NEVER : parsed.swf!;
}).meta({ description: 'SWF v0.4.0 workout: {title?, description?, sport, content: [step|repeat|section|note]}' });
