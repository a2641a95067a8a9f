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
