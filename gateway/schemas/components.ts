/**
 * Named schemas: the resources the OpenAPI document lists under `components.schemas` and refers to by
 * `$ref`, so client generators (openapi-typescript, openapi-generator) give them names of their own
 * instead of anonymous inline types. A schema is named where it is defined, `named('Activity', z.object(…))`;
 * a name is taken once (a second, different schema under the same name is a programming error, thrown at
 * start-up). test/gateway/openapi-types.test.ts generates TypeScript from the document and compiles a
 * client against it.
 */
import { z } from 'zod';

export const apiSchemas = z.registry<{ id: string }>();
const byName = new Map<string, z.ZodType>();

export function named<T extends z.ZodType>(id: string, schema: T): T {
  const taken = byName.get(id);
  if (taken !== undefined && taken !== schema) throw new Error(`schema name ${id} is taken by another schema`);
  byName.set(id, schema);
  apiSchemas.add(schema, { id });
  return schema;
}

export function isNamed(id: string): boolean {
  return byName.has(id);
}

/**
 * The schema named `id`, for a getter in a shape (`get traces() { return z.array(namedSchema('Trace')) }`),
 * read when the shape is first used: a schema that holds one defined in a module importing its own (an
 * activity's traces, each a Trace that holds an activity) without an import cycle.
 */
export function namedSchema(id: string): z.ZodType {
  const schema = byName.get(id);
  if (schema === undefined) throw new Error(`schema ${id} is not named (is its module loaded?)`);
  return schema;
}

/**
 * zod → JSON Schema as the OpenAPI document converts it (gateway/openapi.ts), and as the JSON writer reads
 * it (presenters/json-writer.ts: `number` fields written as floats), so both read one declaration alike.
 */
export const JSON_SCHEMA_OPTIONS = { io: 'input', unrepresentable: 'any', reused: 'inline', cycles: 'ref' } as const;
