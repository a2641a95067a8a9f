/**
 * The OpenAPI 3.1 document, generated from the route table's declarations (zod → JSON Schema
 * draft 2020-12, which OpenAPI 3.1 uses natively). Errors every route can answer are added from the
 * route's own properties: 401 for bearer routes, 403 when a scope is required, 422 when it validates.
 * Resources named in schemas/components.ts appear once under `components.schemas` and are referred to
 * by `$ref`; file and stream responses (Parquet, NDJSON, text) are typed as strings of their media type.
 * Deliberate departures from common lint rules (the interface's trailing slashes) are recorded in
 * `redocly.yaml`, which test/gateway/openapi-types.test.ts applies.
 */
import { z } from 'zod';
import { routeScopes, type RouteSpec } from './route-table.js';
import { apiSchemas, isNamed, JSON_SCHEMA_OPTIONS, named } from './schemas/components.js';

export const INTERFACE_VERSION = '0.113.2';
/** Where the release notes are served (routes/changelog.ts); the document and so /docs link to them. */
export const CHANGELOG_PATH = '/changelog';

type JsonSchema = Record<string, unknown>;

const ErrorDetail = named('Error', z.object({ detail: z.string() }));
const ValidationIssueSchema = named('ValidationIssue', z.object({ loc: z.array(z.union([z.string(), z.number().int()])), msg: z.string(), type: z.string() }));
const HttpValidationError = named('ValidationError', z.object({ detail: z.array(ValidationIssueSchema) }));
const COMPONENT_REF = '#/components/schemas/';

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
      // "Dated release notes exist for changes of the API" (interface §9): Swagger UI shows this link on /docs.
      description: 'Training-data service: activities, analyses and an OAuth 2.0 / OpenID Connect provider.\n\n'
        + `What changed for clients, dated and newest first: [Release notes](${CHANGELOG_PATH}) (also [as Markdown](${CHANGELOG_PATH}.md)).`,
    },
    externalDocs: { description: 'Release notes: dated changes of the API', url: `${options.baseUrl}${CHANGELOG_PATH}` },
    servers: [{ url: options.baseUrl }],
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        basic: { type: 'http', scheme: 'basic', description: 'Client authentication at the token endpoint: client_id and client_secret (RFC 6749 §2.3.1)' },
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
  if (route.extension) op['x-threshold-extension'] = true;
  if (route.auth === 'bearer') {
    // Alternatives: one of them, as the description says which.
    const scopes = routeScopes(route.scope);
    op.security = scopes.length > 0 ? scopes.map((scope) => ({ bearer: [scope] })) : [{ bearer: [] }];
    if (route.scope) op.description = scopeDescription(route);
  } else if (route.clientAuth) {
    // HTTP Basic, or client_id/client_secret in the form, or neither for a public client with PKCE.
    op.security = [{ basic: [] }, {}];
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
    // The schema's own description, deprecation and examples belong to the parameter object.
    const { description, deprecated, examples, ...rest } = property as JsonSchema & { description?: string; deprecated?: boolean; examples?: unknown[] };
    const parameter: Record<string, unknown> = { name, in: where, required: where === 'path' || required.has(name), schema: rest };
    if (description) parameter.description = description;
    if (deprecated) parameter.deprecated = true;
    if (examples?.length === 1) parameter.example = examples[0];
    else if (examples && examples.length > 1) parameter.examples = Object.fromEntries(examples.map((value, index) => [`example${index + 1}`, { value }]));
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
      ? { description: response.description, content: { [mediaType]: { schema: response.schema ? toSchema(response.schema) : fileSchema(mediaType) } } }
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

/**
 * The metadata the document carries: each schema's own (`.describe()`, `.meta()`: description, examples,
 * deprecated, in zod's global registry) with the component names of schemas/components.ts on top. Passing
 * `apiSchemas` alone would drop the former.
 */
const documentMetadata = z.registry<Record<string, unknown>>();
documentMetadata.get = (schema) => {
  const own = z.globalRegistry.get(schema);
  const name = apiSchemas.get(schema);
  return own || name ? { ...own, ...name } : undefined;
};

/**
 * Zod leaves out `examples` and `default` of a schema that transforms when it writes the request side;
 * the query parameters all transform (a string becomes a number, one value an array), and their
 * examples and defaults are as a client sends them, so they are put back.
 */
function keepExamplesAndDefaults({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema }): void {
  const examples = z.globalRegistry.get(zodSchema)?.examples;
  if (examples !== undefined && jsonSchema.examples === undefined) jsonSchema.examples = examples;
  const def = zodSchema._zod.def;
  if (def.type === 'default' && jsonSchema.default === undefined) jsonSchema.default = (def as z.core.$ZodDefaultDef).defaultValue;
}

/**
 * JSON Schema (2020-12) of the request side of a schema, without the `$schema` key: named schemas
 * become `$ref`s to `components.schemas`, everything else is inlined.
 */
export function toSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { ...JSON_SCHEMA_OPTIONS, metadata: documentMetadata, override: keepExamplesAndDefaults }) as JsonSchema;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, unknown>;
  delete json.$defs;
  for (const id of Object.keys(defs)) {
    if (!isNamed(id)) throw new Error(`openapi: ${id} is shared but not named; name it in schemas/components.ts`);
  }
  return JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', `"${COMPONENT_REF}`)) as JsonSchema;
}

/** Every named schema, as `components.schemas` lists them. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(apiSchemas, { ...JSON_SCHEMA_OPTIONS, uri: (id) => `${COMPONENT_REF}${id}` }) as { schemas: Record<string, JsonSchema> };
  return Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)).map(([id, schema]) => {
    const { $id: _id, $schema: _schema, ...rest } = schema;
    // The name as a title too: viewers (Swagger UI) show it where the schema is used.
    return [id, { title: id, ...rest }];
  }));
}

/** A body that is a file or a stream, not JSON: a string of its media type (Parquet and others binary). */
function fileSchema(mediaType: string): JsonSchema {
  return mediaType.startsWith('text/') || mediaType.includes('ndjson') ? { type: 'string' } : { type: 'string', format: 'binary' };
}
