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
  /** The scope the token must carry; omitted when a valid token alone is enough. */
  scope?: Scope;
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

  add(spec: RouteSpec, handler: Middleware): this {
    const chain: Middleware[] = [];
    if (spec.auth === 'bearer') chain.push(this.steps.authenticate);
    if (spec.refuseDelegated) chain.push(this.steps.refuseDelegated);
    if (spec.scope) chain.push(this.steps.requireScope(spec.scope));
    // A multipart body is parsed (and limited) by its handler; its schema only documents it.
    const multipart = spec.bodyMediaType === 'multipart/form-data';
    if (spec.body && !multipart) chain.push(spec.parseBody ?? this.steps.parseBody);
    const body = multipart || spec.selfValidated ? undefined : spec.body;
    if (spec.params || spec.query || body) chain.push(validate({ params: spec.params, query: spec.query, body }));
    chain.push(handler);
    this.router.register(koaPath(spec.path), [spec.method.toUpperCase()], chain, { name: spec.operationId });
    this.routes.push(spec);
    return this;
  }

  /** Mounts an HTML page or form target (its handler reads and validates its own input). */
  page(spec: PageSpec, ...handlers: Middleware[]): this {
    const chain = spec.method === 'post' ? [spec.parseBody ?? this.steps.parseBody, ...handlers] : handlers;
    this.router.register(spec.path, [spec.method.toUpperCase()], chain, { name: spec.name });
    this.pages.push(spec);
    return this;
  }
}

/** `/activities/{activity_id}` → `/activities/:activity_id`. */
export function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}
