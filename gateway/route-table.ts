/**
 * The route table: each route is declared once — method, path, scope, request schemas, responses —
 * and that declaration both mounts the middleware chain (authenticate → require scope → parse body →
 * validate → handler) and feeds the OpenAPI document. A route cannot be served without being documented.
 * Bodies are parsed only on routes that take one, by the route's own parser or the default.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { z } from 'zod';
import { validate } from './middleware/validate.js';
import { writeJson } from './middleware/write-json.js';
import type { Scope } from './auth/scopes.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** JSON response body schema; omit for non-JSON or empty bodies. */
  schema?: z.ZodType;
  /** Media type when not JSON (e.g. application/vnd.apache.parquet). */
  mediaType?: string;
}

export interface RouteSpec {
  method: Method;
  /** OpenAPI path template, e.g. `/api/v1/activities/{activity_id}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** `bearer`: an access token is required (header or `token` cookie). */
  auth: 'bearer' | 'none';
  /** The scope the token must carry (or the path parameter that picks it); omitted when a valid token alone is enough. */
  scope?: Scope | ScopeByParam;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Request media type of `body`; default application/json. */
  bodyMediaType?: string;
  responses: Record<number, ResponseSpec>;
  deprecated?: boolean;
  /** The route acts as the signed-in user only: a delegated token gets 403 (interface §5 "Delegated tokens"). */
  refuseDelegated?: boolean;
  /** The handler validates `body` itself (the token endpoint answers RFC 6749 errors, not 422); the schema only documents it. */
  selfValidated?: boolean;
  /** Parses the body instead of the default JSON-or-form parser (the token endpoint's small forms). */
  parseBody?: Middleware;
  /** The route authenticates OAuth clients (HTTP Basic or form credentials), documented as the `basic` scheme. */
  clientAuth?: boolean;
  /**
   * Beyond the interface: the route lives under EXTENSION_PREFIX and `/openapi.json` marks it with
   * `x-threshold-extension: true`, so a client written for the interface can tell it from the contract.
   */
  extension?: boolean;
}

/** Where additions beyond the interface live; no interface path starts with it. */
export const EXTENSION_PREFIX = '/api/v1/ext/';

/**
 * A scope picked by a path parameter's value (interface §5: dailies need `wellness:*`, the cycle day
 * `reproductive_health:*`). Every value not in `cases`, an unknown one included, needs `otherwise`:
 * the check is never skipped, and runs before validation as for every route.
 */
export interface ScopeByParam {
  param: string;
  cases: Readonly<Record<string, Scope>>;
  otherwise: Scope;
}

export interface ChainSteps {
  authenticate: Middleware;
  requireScope(scope: Scope): Middleware;
  refuseDelegated: Middleware;
  /** The default body parser, for routes with a body and form targets. */
  parseBody: Middleware;
}

/** A server-rendered HTML page or form target: mounted, but not part of the API document. */
export interface PageSpec {
  method: 'get' | 'post';
  /** Koa path, e.g. `/oauth/interaction/:id`. */
  path: string;
  name: string;
  /** A form target's parser instead of the default. */
  parseBody?: Middleware;
}

export class RouteTable {
  readonly routes: RouteSpec[] = [];
  readonly pages: PageSpec[] = [];

  constructor(private readonly router: Router, private readonly steps: ChainSteps) {}

  /** Mounts a route; more than one handler runs as a chain (a route's own guard, then its handler). */
  add(spec: RouteSpec, ...handlers: Middleware[]): this {
    if (Boolean(spec.extension) !== spec.path.startsWith(EXTENSION_PREFIX)) {
      throw new Error(`route ${spec.operationId}: extensions, and only they, live under ${EXTENSION_PREFIX}`);
    }
    const chain: Middleware[] = [];
    // First in, last out: it writes the handler's body with the declared schema (floats with a decimal point).
    const writeBody = writeJson(spec.responses);
    if (writeBody) chain.push(writeBody);
    if (spec.auth === 'bearer') chain.push(this.steps.authenticate);
    if (spec.refuseDelegated) chain.push(this.steps.refuseDelegated);
    if (spec.scope) chain.push(scopeStep(spec.scope, this.steps.requireScope));
    // A multipart body is parsed (and limited) by its handler; its schema only documents it.
    const multipart = spec.bodyMediaType === 'multipart/form-data';
    if (spec.body && !multipart) chain.push(spec.parseBody ?? this.steps.parseBody);
    const body = multipart || spec.selfValidated ? undefined : spec.body;
    if (spec.params || spec.query || body) chain.push(validate({ params: spec.params, query: spec.query, body }));
    chain.push(...handlers);
    this.router.register(koaPath(spec.path), [spec.method.toUpperCase()], chain, { name: spec.operationId });
    this.routes.push(spec);
    return this;
  }

  /** Every path mounted, API routes (OpenAPI templates) and pages (Koa paths) alike. */
  paths(): string[] {
    return [...this.routes.map((route) => route.path), ...this.pages.map((page) => page.path)];
  }

  /** Mounts an HTML page or form target (its handler reads and validates its own input). */
  page(spec: PageSpec, ...handlers: Middleware[]): this {
    const chain = spec.method === 'post' ? [spec.parseBody ?? this.steps.parseBody, ...handlers] : handlers;
    this.router.register(spec.path, [spec.method.toUpperCase()], chain, { name: spec.name });
    this.pages.push(spec);
    return this;
  }
}

/** The scopes a route may need, `otherwise` first for a scope picked by a parameter. */
export function routeScopes(scope: Scope | ScopeByParam | undefined): Scope[] {
  if (scope === undefined) return [];
  if (typeof scope === 'string') return [scope];
  return [...new Set([scope.otherwise, ...Object.values(scope.cases)])];
}

function scopeStep(scope: Scope | ScopeByParam, requireScope: ChainSteps['requireScope']): Middleware {
  if (typeof scope === 'string') return requireScope(scope);
  const byValue = new Map(Object.entries(scope.cases).map(([value, needed]) => [value, requireScope(needed)]));
  const otherwise = requireScope(scope.otherwise);
  return function requireScopeOfParam(ctx, next) {
    const value = (ctx as { params?: Record<string, string> }).params?.[scope.param];
    return ((value !== undefined && byValue.get(value)) || otherwise)(ctx, next);
  };
}

/** `/activities/{activity_id}` → `/activities/:activity_id`. */
export function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
