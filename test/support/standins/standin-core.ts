/**
 * What every provider stand-in shares (providers.md §4 "All"): an HTTP server on an ephemeral loopback
 * port, a route table (`'GET /v1/workouts/:id'`), a request log, scripted faults (the next N matching
 * requests get a given answer), a fake clock the stand-in's tokens, windows and rate limits follow, and
 * fixed-window rate counters. Extra routes from the caller (e.g. the scheduled-workouts helper's workout
 * API handlers) are mounted before the stand-in's own. A provider stand-in (garmin.ts, wahoo.ts) is a
 * route table plus its state on top of this.
 *
 * Deliberately no timing: nothing here sleeps; time moves only when a test advances the clock.
 * Kept honest by the garmin-* and wahoo-* tests in test/engine/integrations/.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeEndless, type EndlessBody, type Tallies } from '../endless-answers.js';

export interface StandinRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /** Fake-clock time the request arrived, Unix ms. */
  at: number;
}

export interface Reply {
  status: number;
  /** An object is sent as JSON; a Buffer or string as is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Instead of `body`: one that never ends (test/support/endless-answers.ts), tallied in `Standin.tallies`. */
  endless?: EndlessBody;
}

export type RouteHandler = (request: StandinRequest) => Reply | Promise<Reply>;

/** `'METHOD /path/:param'` → handler. */
export type Routes = Record<string, RouteHandler>;

export interface Fault {
  method?: string;
  /** Matched against the path (a string must be equal, a RegExp must match). */
  path: string | RegExp;
  reply: Reply;
  /** How many matching requests get the fault; default 1. */
  times?: number;
}

export class FakeClock {
  constructor(private current = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now = (): number => this.current;
  advance(ms: number): void {
    this.current += ms;
  }
}

/** Fixed windows over the fake clock, e.g. 25 per 5 min, 100 per hour, 250 per day. */
export class RateWindows {
  private readonly counts: number[];
  private readonly starts: number[];

  constructor(readonly windows: readonly { name: string; limit: number; ms: number }[]) {
    this.counts = windows.map(() => 0);
    this.starts = windows.map(() => Number.NEGATIVE_INFINITY);
  }

  /** Counts one request at `now`; `allowed` false when a window is full (the request is then not counted). */
  take(now: number): { allowed: boolean; remaining: number[]; resetMs: number } {
    this.windows.forEach((window, index) => {
      const start = Math.floor(now / window.ms) * window.ms;
      if (start !== this.starts[index]) {
        this.starts[index] = start;
        this.counts[index] = 0;
      }
    });
    const full = this.windows.findIndex((window, index) => this.counts[index]! >= window.limit);
    if (full < 0) this.windows.forEach((_, index) => (this.counts[index]! += 1));
    const remaining = this.windows.map((window, index) => window.limit - this.counts[index]!);
    // The reset that matters: the full window's, else the first (shortest-listed first by the caller) that ran out, else the shortest.
    const spent = full >= 0 ? full : remaining.findIndex((left) => left <= 0);
    const shortest = this.windows.reduce((best, window, index) => (window.ms < this.windows[best]!.ms ? index : best), 0);
    const which = spent >= 0 ? spent : shortest;
    const resetMs = this.starts[which]! + this.windows[which]!.ms - now;
    return { allowed: full < 0, remaining, resetMs };
  }
}

export interface StandinOptions {
  routes: Routes;
  clock: FakeClock;
  /** Extra routes, tried before `routes` (e.g. a provider's workout API, written elsewhere). */
  extraRoutes?: Routes;
  /** Runs before routing; a reply short-circuits (rate limits). Faults run before this. */
  gate?: (request: StandinRequest) => Reply | null;
  /** Adds headers to every answer (rate-limit headers). */
  decorate?: (request: StandinRequest, reply: Reply) => Record<string, string>;
}

export interface Standin {
  baseUrl: string;
  clock: FakeClock;
  /** Every request, in arrival order. */
  log: StandinRequest[];
  /** One per answer with a never-ending body: what was written, and whether the client hung up. */
  tallies: Tallies;
  /** The next `times` requests matching get `reply`. */
  fault(fault: Fault): void;
  /** Requests in the log to a path (exact string or RegExp), optionally of one method. */
  requests(path: string | RegExp, method?: string): StandinRequest[];
  close(): Promise<void>;
}

export async function startStandin(options: StandinOptions): Promise<Standin> {
  const table = [...compile(options.extraRoutes ?? {}), ...compile(options.routes)];
  const log: StandinRequest[] = [];
  const tallies: Tallies = [];
  const faults: (Fault & { left: number })[] = [];
  const matches = (path: string | RegExp, actual: string) => (typeof path === 'string' ? path === actual : path.test(actual));

  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const url = new URL(incoming.url ?? '/', 'http://standin.invalid');
    const request: StandinRequest = {
      method: incoming.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: incoming.headers,
      body: Buffer.concat(chunks), params: {}, at: options.clock.now(),
    };
    log.push(request);
    try {
      const reply = await answer(request);
      write(response, reply, options.decorate?.(request, reply) ?? {}, tallies);
    } catch (error) {
      write(response, { status: 500, body: { error: `stand-in: ${error instanceof Error ? error.message : String(error)}` } }, {}, tallies);
    }
  });

  async function answer(request: StandinRequest): Promise<Reply> {
    const fault = faults.find((candidate) => candidate.left > 0 && (!candidate.method || candidate.method === request.method) && matches(candidate.path, request.path));
    if (fault) {
      fault.left -= 1;
      return fault.reply;
    }
    const gated = options.gate?.(request);
    if (gated) return gated;
    for (const route of table) {
      if (route.method !== request.method) continue;
      const found = route.pattern.exec(request.path);
      if (!found) continue;
      request.params = Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(found[index + 1]!)]));
      return route.handler(request);
    }
    return { status: 404, body: { error: `stand-in: no route for ${request.method} ${request.path}` } };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    clock: options.clock,
    log,
    tallies,
    fault: (fault) => faults.push({ ...fault, left: fault.times ?? 1 }),
    requests: (path, method) => log.filter((entry) => matches(path, entry.path) && (!method || entry.method === method)),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function compile(routes: Routes) {
  return Object.entries(routes).map(([key, handler]) => {
    const [method, path] = key.split(' ') as [string, string];
    const names: string[] = [];
    const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    return { method, pattern: new RegExp(`^${source}$`), names, handler };
  });
}

function write(response: ServerResponse, reply: Reply, extra: Record<string, string>, tallies: Tallies): void {
  const headers: Record<string, string> = { ...extra, ...reply.headers };
  if (reply.endless) {
    response.writeHead(reply.status, headers);
    writeEndless(response, reply.endless, tallies);
    return;
  }
  let payload: Buffer | string | undefined;
  if (reply.body === undefined) payload = undefined;
  else if (Buffer.isBuffer(reply.body) || reply.body instanceof Uint8Array) payload = Buffer.from(reply.body as Uint8Array);
  else if (typeof reply.body === 'string') payload = reply.body;
  else {
    payload = JSON.stringify(reply.body);
    headers['content-type'] ??= 'application/json';
  }
  response.writeHead(reply.status, headers);
  response.end(payload);
}

/** The body of a form POST or a query string, as fields. */
export function formOf(request: StandinRequest): URLSearchParams {
  return new URLSearchParams(request.body.toString('utf8'));
}

/** The bearer token of a request, or null. */
export function bearerOf(request: StandinRequest): string | null {
  const header = request.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : null;
}

/** POSTs JSON to a receiver (a provider's push to us); answers the status, or 0 when nothing answered within `timeoutMs`. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<number> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
