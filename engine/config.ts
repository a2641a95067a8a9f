/**
 * The engine's configuration: the only place the engine reads the environment. Every problem is
 * collected and reported at once in one `ConfigError`. Libraries inside the engine take options
 * objects built from this and never look at `process.env`.
 */
import { availableParallelism } from 'node:os';
import { ConfigError } from '../domain/config-error.js';
import { LOG_LEVELS, type LogLevel } from '../domain/logger.js';
import { readStoreConfig, type StoreConfig } from '../storage/config.js';

export interface EngineConfig {
  /** ENGINE_ADDRESS: host:port the gRPC server binds (loopback by default: the engine trusts its callers). */
  engineAddress: string;
  /** ENGINE_THREADS: worker threads in the compute pool. */
  engineThreads: number;
  /** ENGINE_TOKEN: when set, every call must carry `authorization: Bearer <token>`. */
  engineToken: string | null;
  /** LOG_LEVEL */
  logLevel: LogLevel;
  /** MONGODB_URI, DATA_DIR, … as read by storage/config.ts. */
  store: StoreConfig;
}

export const ENGINE_DEFAULTS = {
  engineAddress: '127.0.0.1:50051', // loopback: expose it deliberately, with ENGINE_TOKEN
  engineThreads: availableParallelism(), // one worker per available core
  engineToken: null, // no token: callers on loopback are trusted
  logLevel: 'info',
} as const satisfies Omit<EngineConfig, 'store'>;

type Env = Record<string, string | undefined>;

export function loadEngineConfig(env: Env): EngineConfig {
  const problems: string[] = [];
  const engineAddress = readAddress(env, problems);
  const engineThreads = readThreads(env, problems);
  const engineToken = readToken(env, problems);
  const logLevel = readLogLevel(env, problems);
  const store = readStoreConfig(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { engineAddress, engineThreads, engineToken, logLevel, store };
}

function present(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function readAddress(env: Env, problems: string[]): string {
  const value = present(env, 'ENGINE_ADDRESS');
  if (value === undefined) return ENGINE_DEFAULTS.engineAddress;
  if (!isHostPort(value)) {
    problems.push(`ENGINE_ADDRESS must be host:port with a port from 0 to 65535 (got '${value}')`);
  }
  return value;
}

/** `host:port`, `[ipv6]:port`; the port 0–65535. */
export function isHostPort(value: string): boolean {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(value);
  return match !== null && Number(match[2]) <= 65535;
}

function readThreads(env: Env, problems: string[]): number {
  const value = present(env, 'ENGINE_THREADS');
  if (value === undefined) return ENGINE_DEFAULTS.engineThreads;
  const threads = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(threads) || threads < 1) {
    problems.push(`ENGINE_THREADS must be a positive integer (got '${value}')`);
    return ENGINE_DEFAULTS.engineThreads;
  }
  return threads;
}

function readToken(env: Env, problems: string[]): string | null {
  const value = env['ENGINE_TOKEN'];
  if (value === undefined || value === '') return ENGINE_DEFAULTS.engineToken;
  // The token travels in an HTTP/2 header: printable ASCII without spaces keeps it intact.
  if (!/^[\x21-\x7e]+$/.test(value)) {
    problems.push('ENGINE_TOKEN must be printable ASCII without spaces');
    return null;
  }
  return value;
}

function readLogLevel(env: Env, problems: string[]): LogLevel {
  const value = present(env, 'LOG_LEVEL');
  if (value === undefined) return ENGINE_DEFAULTS.logLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got '${value}')`);
    return ENGINE_DEFAULTS.logLevel;
  }
  return value as LogLevel;
}
