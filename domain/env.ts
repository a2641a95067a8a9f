/**
 * Readers for configuration values, shared by every process's config.ts (the only callers). Each
 * takes the environment and a `problems` list: a bad value pushes a message naming the variable and
 * returns the default, so a process reports every problem at once.
 */
import { LOG_LEVELS, type LogLevel } from './logger.js';

export type Env = Record<string, string | undefined>;

/** The trimmed value, or undefined when unset or blank. */
export function present(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** An integer in [min, max]. */
export function readInteger(env: Env, name: string, fallback: number, range: { min: number; max: number }, problems: string[]): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < range.min || Number(raw) > range.max) {
    problems.push(`${name} must be an integer from ${range.min} to ${range.max} (got '${raw}')`);
    return fallback;
  }
  return Number(raw);
}

/** true/false, 1/0, yes/no, on/off. */
export function readBoolean(env: Env, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = present(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  problems.push(`${name} must be true or false (got '${raw}')`);
  return fallback;
}

export function readLogLevel(env: Env, problems: string[], fallback: LogLevel = 'info'): LogLevel {
  const raw = present(env, 'LOG_LEVEL');
  if (raw === undefined) return fallback;
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got '${raw}')`);
    return fallback;
  }
  return raw as LogLevel;
}

/** `host:port` or `[ipv6]:port`, port 0–65535. */
export function readAddress(env: Env, name: string, fallback: string, problems: string[]): string {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  if (!isHostPort(raw)) problems.push(`${name} must be host:port with a port from 0 to 65535 (got '${raw}')`);
  return raw;
}

export function isHostPort(value: string): boolean {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(value);
  return match !== null && Number(match[2]) <= 65535;
}
