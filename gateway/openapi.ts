/**
 * The OpenAPI 3.1 document, generated from the route table's declarations (zod → JSON Schema
 * draft 2020-12, which OpenAPI 3.1 uses natively). Errors every route can answer are added from the
 * route's own properties: 401 for bearer routes, 403 when a scope is required, 422 when it validates.
 */
import { z } from 'zod';
import { routeScopes, type RouteSpec } from './route-table.js';

export const INTERFACE_VERSION = '0.113.2';

type JsonSchema = Record<string, unknown>;

const ErrorDetail = z.object({ detail: z.string() });
const ValidationIssueSchema = z
  .object({ loc: z.array(z.union([z.string(), z.number().int()])), msg: z.string(), type: z.string() })
  ;
const HttpValidationError = z.object({ detail: z.array(ValidationIssueSchema) });

export function buildOpenApi(routes: RouteSpec[], options: { baseUrl: string }): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Threshold',
      version: INTERFACE_VERSION,
      description: 'Training-data service: activities, analyses and an OAuth 2.0 / OpenID Connect provider.',
    },
    servers: [{ url: options.baseUrl }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        basic: { type: 'http', scheme: 'basic' },
      },
    },
  };
}

function operation(route: RouteSpec): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
    responses: responses(route),
  };
  if (route.deprecated) op.deprecated = true;
  if (route.auth === 'bearer') {
    // Alternatives: one of them, as the description says which.
    const scopes = routeScopes(route.scope);
    op.security = scopes.length > 0 ? scopes.map((scope) => ({ bearer: [scope] })) : [{ bearer: [] }];
    if (route.scope) op.description = scopeDescription(route);
  } else {
    op.security = [];
  }
  if (route.body) {
    op.requestBody = { required: true, content: { [route.bodyMediaType ?? 'application/json']: { schema: toSchema(route.body) } } };
  }
  return op;
}

function scopeDescription(route: RouteSpec): string {
  const scope = route.scope!;
  if (typeof scope === 'string') return `Requires the \`${scope}\` scope.`;
  const cases = Object.entries(scope.cases).map(([value, needed]) => `when \`${scope.param}\` is \`${value}\`, \`${needed}\``);
  return `Requires the \`${scope.otherwise}\` scope; ${cases.join('; ')} instead (neither implies the other).`;
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  const json = toSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, deprecated, ...rest } = property as JsonSchema & { description?: string; deprecated?: boolean };
    const parameter: Record<string, unknown> = { name, in: where, required: where === 'path' || required.has(name), schema: rest };
    if (description) parameter.description = description;
    if (deprecated) parameter.deprecated = true;
    if (rest.type === 'array') {
      parameter.style = 'form';
      parameter.explode = true;
    }
    return parameter;
  });
}

function responses(route: RouteSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const mediaType = response.mediaType ?? 'application/json';
    out[status] = response.schema || response.mediaType
      ? { description: response.description, content: { [mediaType]: { schema: response.schema ? toSchema(response.schema) : {} } } }
      : { description: response.description };
  }
  const errorBody = { content: { 'application/json': { schema: toSchema(ErrorDetail) } } };
  if (route.auth === 'bearer') out['401'] ??= { description: 'Missing, invalid or expired access token', ...errorBody };
  if (route.scope) {
    const description = typeof route.scope === 'string'
      ? `The token lacks the ${route.scope} scope`
      : `The token lacks the scope the ${route.scope.param} needs (${routeScopes(route.scope).join(' or ')})`;
    out['403'] ??= { description, ...errorBody };
  }
  if (route.params || route.query || (route.body && !route.selfValidated)) {
    out['422'] ??= { description: 'Validation error', content: { 'application/json': { schema: toSchema(HttpValidationError) } } };
  }
  return out;
}

/** JSON Schema (2020-12) of the request side of a schema, inlined, without the `$schema` key. */
export function toSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', reused: 'inline', cycles: 'ref' }) as JsonSchema;
  delete json.$schema;
  return json;
}
