/**
 * Structured JSON logs (pino) for every process. Secrets never reach a log line, and nothing else is
 * hidden with them:
 *
 * - keys that only ever hold a secret (passwords, tokens, client secrets, cookies, authorization headers)
 *   are redacted wherever they appear, up to three levels deep;
 * - `code` is an OAuth authorization code only inside a request's query or body, so it is redacted there
 *   (by path) and kept everywhere else: an error's `code` (`EADDRINUSE`) and a process's exit `code` stay;
 * - a secret carried as a parameter inside a string (a URL's query string, a form body, an error message
 *   that quotes a URL) is replaced in place: `…/callback?code=[redacted]&state=xyz`.
 *
 * Kept honest by test/domain/logger.test.ts.
 */
import type { Writable } from 'node:stream';
import { pino, stdSerializers, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Keys that hold nothing but a secret, whatever they sit under. */
const SECRET_KEYS = [
  'authorization', 'cookie', '["set-cookie"]', 'password', 'client_secret', 'refresh_token', 'access_token',
  'code_verifier', 'token', 'id_token', 'secret',
];
/** Where an OAuth authorization code travels: a request's query string or body (parsed). */
const CODE_PATHS = ['query.code', 'body.code', 'params.code', 'form.code'];

/** `path` at the top and under one to `levels` levels of any key (pino's redact paths). */
const underAny = (path: string, levels: number): string[] =>
  Array.from({ length: levels + 1 }, (_, level) => `${'*.'.repeat(level)}${path}`.replace('.[', '['));

const REDACT_PATHS = [...SECRET_KEYS.flatMap((key) => underAny(key, 3)), ...CODE_PATHS.flatMap((path) => underAny(path, 2))];

const CENSOR = '[redacted]';
/** A secret-bearing parameter in a query string or form body: `code=…`, `access_token=…`, `password=…`. */
const SECRET_PARAMETER = /(^|[?&#;\s])(code|code_verifier|access_token|refresh_token|id_token|token|client_secret|password|secret)=[^&#\s"'<>]*/gi;

/** `text` with every secret parameter's value replaced by `[redacted]`. */
export function scrubSecretParameters(text: string): string {
  return text.includes('=') ? text.replace(SECRET_PARAMETER, `$1$2=${CENSOR}`) : text;
}

/** `value` with secret parameters scrubbed from its strings, `depth` levels of plain objects down; copies only what changes. */
function scrubStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubSecretParameters(value);
  if (depth === 0 || value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  let copy: Record<string, unknown> | null = null;
  for (const [key, inner] of Object.entries(value)) {
    const scrubbed = scrubStrings(inner, depth - 1);
    if (scrubbed !== inner) (copy ??= { ...(value as Record<string, unknown>) })[key] = scrubbed;
  }
  return copy ?? value;
}

/** pino's error serializer, with secret parameters scrubbed from the message, the stack and the causes. */
function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return scrubStrings(error, 3);
  // The serialized error is no plain object (pino's error prototype): read it back as one to walk it.
  return scrubStrings(JSON.parse(JSON.stringify(stdSerializers.err(error))), 4);
}

export function createLogger(options: { level: LogLevel; name: string; destination?: Writable }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    serializers: { err: serializeError, msg: (message: unknown) => (typeof message === 'string' ? scrubSecretParameters(message) : message) },
    formatters: { log: (object) => scrubStrings(object, 3) as Record<string, unknown> },
  }, options.destination);
}
