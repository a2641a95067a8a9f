/**
 * The JSON writer of API responses. gaps.md: "Float-typed fields are written with a decimal point
 * (`4998.0`), as the reference service's serializer writes them; typed clients build float columns from
 * them" — a whole 4998 in a float field breaks the official client's polars output. JSON.stringify writes
 * a whole number as `4998`, so a field's type has to come from somewhere else: from the response schema
 * (gateway/schemas/, the routes' declarations), read through the very JSON Schema conversion that writes
 * /openapi.json. A field the document types `number` is written with a decimal point, one it types
 * `integer` (and anything undeclared) exactly as JSON.stringify writes it. One declaration decides both.
 *
 * What it does not do: validate. A value that is not a number where the schema says number (null, a
 * string) is written as JSON.stringify writes it, and so is everything under a part of the schema that
 * holds no float (written by JSON.stringify in one call, so a float-free response costs nothing extra).
 * NaN and ±Infinity are written as `null`, as JSON.stringify does: the text is always valid JSON.
 *
 * Kept honest by test/gateway/float-fields.test.ts (raw bodies of single GETs and list pages) and
 * test/gateway/activity-list.test.ts (stored listings).
 */
import { z } from 'zod';
import { apiSchemas, JSON_SCHEMA_OPTIONS } from '../schemas/components.js';

/** A value as JSON text; undefined where JSON.stringify leaves the value out (undefined, a function). */
export type JsonWriter = (value: unknown) => string | undefined;

/** Where floats sit under one JSON Schema node: the shapes a value there may take, merged over `anyOf`. */
interface Plan {
  float: boolean;
  properties: Map<string, Plan>;
  /** Properties not named (`additionalProperties`: a record's values, an object's catch-all). */
  rest: Plan | null;
  items: Plan | null;
}

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema | boolean;
  prefixItems?: JsonSchema[];
  $defs?: Record<string, JsonSchema>;
};

const writers = new WeakMap<z.ZodType, (value: unknown) => string>();
/** The text of each value marked `repeated`, by the writer that wrote it (a value may sit under two schemas). */
const texts = new WeakMap<object, Map<JsonWriter, string | undefined>>();

/**
 * Marks `value` as one a response holds many times (the activity every trace of a page falls in): each
 * writer writes it once and gives the same text again. The value must not change once marked.
 */
export function repeated<T extends object>(value: T): T {
  texts.set(value, new Map());
  return value;
}
/** The writer of a schema without a float anywhere: JSON.stringify. */
const plainWriter = (value: unknown): string => stringify(value) ?? 'null';

/** The writer of values `schema` describes: JSON text, float-typed numbers with a decimal point. */
export function jsonWriter(schema: z.ZodType): (value: unknown) => string {
  let writer = writers.get(schema);
  if (writer === undefined) {
    const json = z.toJSONSchema(schema, { ...JSON_SCHEMA_OPTIONS, metadata: apiSchemas }) as JsonSchema;
    const write = build(planOf(json, { root: json, defs: json.$defs ?? {}, refs: new Map() }), new Map());
    writer = write === stringify ? plainWriter : (value) => write(value) ?? 'null';
    writers.set(schema, writer);
  }
  return writer;
}

/** Whether `schema` has a float-typed field anywhere (else its values are written by JSON.stringify). */
export function holdsFloats(schema: z.ZodType): boolean {
  return jsonWriter(schema) !== plainWriter;
}

/**
 * A float as the reference serializer writes it: `4998.0`, `0.5`, `1e+21`; `null` for NaN and ±Infinity
 * (JSON has neither). A whole number below 1e21 gains `.0`; from 1e21 on the text already has an exponent.
 */
export function floatText(value: number): string {
  if (!Number.isFinite(value)) return 'null';
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return Object.is(value, -0) ? '-0.0' : `${value}.0`;
  return String(value);
}

function emptyPlan(): Plan {
  return { float: false, properties: new Map(), rest: null, items: null };
}

/** Where `$ref`s point: the document's root (`#`) and its `$defs`, each resolved once into `refs`. */
interface Document {
  root: JsonSchema;
  defs: Record<string, JsonSchema>;
  refs: Map<string, Plan>;
}

/** The plan of a node (a recursive schema refers to its own plan). */
function planOf(node: JsonSchema | boolean | undefined, document: Document): Plan {
  const plan = emptyPlan();
  if (typeof node !== 'object') return plan;
  if (node.$ref !== undefined) {
    const known = document.refs.get(node.$ref);
    if (known) return known;
    document.refs.set(node.$ref, plan);
    const target = node.$ref === '#' ? document.root : node.$ref.startsWith('#/$defs/') ? document.defs[node.$ref.slice('#/$defs/'.length)] : undefined;
    if (target === undefined) throw new Error(`json writer: cannot resolve ${node.$ref}`);
    merge(plan, planOf(target, document));
    return plan;
  }
  for (const option of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) merge(plan, planOf(option, document));
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  if (types.includes('number')) plan.float = true;
  for (const [name, property] of Object.entries(node.properties ?? {})) plan.properties.set(name, widened(plan.properties.get(name) ?? null, planOf(property, document))!);
  if (typeof node.additionalProperties === 'object') plan.rest = widened(plan.rest, planOf(node.additionalProperties, document));
  if (typeof node.items === 'object') plan.items = widened(plan.items, planOf(node.items, document));
  for (const item of node.prefixItems ?? []) plan.items = widened(plan.items, planOf(item, document));
  return plan;
}

/**
 * `into` widened by `other` (alternatives of an `anyOf`), in place: a number is a float if either says so,
 * so an `integer | number` field is written as a float, as a typed client reading it builds a float column.
 * Parts are shared between plans (a `$ref`'s plan wherever it is used), so parts are widened as copies.
 */
function merge(into: Plan, other: Plan): Plan {
  if (into === other) return into;
  into.float ||= other.float;
  for (const [name, plan] of other.properties) into.properties.set(name, widened(into.properties.get(name) ?? null, plan)!);
  into.rest = widened(into.rest, other.rest);
  into.items = widened(into.items, other.items);
  return into;
}

/** Plans widened by others so far, so that widening two recursive plans ends. */
const widenings = new WeakMap<Plan, WeakMap<Plan, Plan>>();

/** A part widened by another: one of them when the other is absent or the same, else a new plan. */
function widened(part: Plan | null, other: Plan | null): Plan | null {
  if (other === null || part === other) return part;
  if (part === null) return other;
  let byOther = widenings.get(part);
  if (byOther === undefined) widenings.set(part, byOther = new WeakMap());
  const known = byOther.get(other);
  if (known) return known;
  const plan = emptyPlan();
  byOther.set(other, plan);
  return merge(merge(plan, part), other);
}

/** Whether a float sits anywhere under `plan`. */
function holdsFloat(plan: Plan, seen: Set<Plan>): boolean {
  if (plan.float) return true;
  if (seen.has(plan)) return false;
  seen.add(plan);
  for (const child of plan.properties.values()) if (holdsFloat(child, seen)) return true;
  return (plan.rest !== null && holdsFloat(plan.rest, seen)) || (plan.items !== null && holdsFloat(plan.items, seen));
}

/** The writer of a plan: JSON.stringify where no float sits below, a walk that writes floats elsewhere. */
function build(plan: Plan | null, built: Map<Plan, JsonWriter>): JsonWriter {
  if (plan === null || !holdsFloat(plan, new Set())) return stringify;
  const known = built.get(plan);
  if (known) return known;
  // Recursive schemas reach their own plan again: hand out the writer before building its parts.
  let write: JsonWriter = stringify;
  const writer: JsonWriter = (value) => write(value);
  built.set(plan, writer);
  const float = plan.float;
  const properties = new Map([...plan.properties].map(([name, child]) => [name, build(child, built)]));
  const names = new Map([...plan.properties.keys()].map((name) => [name, `${JSON.stringify(name)}:`]));
  const rest = build(plan.rest, built);
  const items = build(plan.items, built);
  const objects = properties.size > 0 || plan.rest !== null;
  write = (value) => {
    if (typeof value === 'number') return float ? floatText(value) : stringify(value);
    if (typeof value !== 'object' || value === null) return stringify(value);
    const kept = texts.get(value);
    if (kept !== undefined) {
      if (!kept.has(writer)) kept.set(writer, written(value));
      return kept.get(writer);
    }
    return written(value);
  };
  const written = (value: object): string | undefined => {
    if (Array.isArray(value)) return items === stringify ? stringify(value) : writeArray(value, items);
    if (!objects || typeof (value as { toJSON?: unknown }).toJSON === 'function') return stringify(value);
    return writeObject(value as Record<string, unknown>, properties, names, rest);
  };
  return writer;
}

function stringify(value: unknown): string | undefined {
  return JSON.stringify(value) as string | undefined;
}

function writeArray(values: readonly unknown[], items: JsonWriter): string {
  let out = '[';
  for (let i = 0; i < values.length; i++) out += `${i === 0 ? '' : ','}${items(values[i]) ?? 'null'}`;
  return `${out}]`;
}

/** As JSON.stringify: own enumerable keys in order, a member whose value it leaves out left out. */
function writeObject(value: Record<string, unknown>, properties: Map<string, JsonWriter>, names: Map<string, string>, rest: JsonWriter): string {
  let out = '{';
  for (const key of Object.keys(value)) {
    const text = (properties.get(key) ?? rest)(value[key]);
    if (text === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${names.get(key) ?? `${JSON.stringify(key)}:`}${text}`;
  }
  return `${out}}`;
}
