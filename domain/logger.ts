/**
 * Structured JSON logs (pino) for every process. Secrets never reach a log line: the known secret-bearing
 * keys are redacted wherever they appear one or two levels deep.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const SECRET_KEYS = [
  'authorization', 'cookie', 'password', 'client_secret', 'refresh_token', 'access_token', 'code',
  'code_verifier', 'token', 'id_token', 'secret',
];

export function createLogger(options: { level: LogLevel; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]), censor: '[redacted]' },
  });
}
