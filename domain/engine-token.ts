/**
 * ENGINE_TOKEN, as the engine (where it listens) and the gateway (where it calls) read it. The engine serves
 * whoever presents the token, for any user, so an engine reachable beyond loopback without a token, or with a
 * published example one, is a start-up problem in both processes. On loopback (127.0.0.0/8, ::1, `localhost`)
 * the token stays optional: only this machine reaches the engine there, as `threshold serve` runs it.
 * test/engine/config.test.ts and test/gateway/config.test.ts keep it honest.
 */
import { BlockList, isIP } from 'node:net';
import type { Env } from './env.js';
import { parseEngineTarget } from './engine-target.js';

/** Placeholders that were shipped in compose.yaml and examples: public, so never a secret. */
export const EXAMPLE_ENGINE_TOKENS: readonly string[] = ['change-me-to-a-long-random-secret'];

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** ENGINE_TOKEN, or null when unset or empty; it travels in an HTTP/2 header, so printable ASCII without spaces. */
export function readEngineToken(env: Env, problems: string[]): string | null {
  const value = env['ENGINE_TOKEN'];
  if (value === undefined || value === '') return null;
  if (!/^[\x21-\x7e]+$/.test(value)) {
    problems.push('ENGINE_TOKEN must be printable ASCII without spaces');
    return null;
  }
  return value;
}

/** True for 127.0.0.0/8, ::1 and `localhost` (RFC 6761: `*.localhost` too); a bracketed IPv6 host is accepted. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const family = isIP(name);
  return family !== 0 && LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6');
}

/** The hosts an ENGINE_ADDRESS target names (none when it is malformed: that problem is reported on its own). */
export function engineTargetHosts(raw: string): string[] {
  const target = parseEngineTarget(raw, 'ENGINE_ADDRESS');
  if (typeof target === 'string') return [];
  if (target.kind === 'dns') return [target.host];
  const addresses = target.kind === 'single' ? [target.address] : target.addresses;
  return addresses.map((address) => address.slice(0, address.lastIndexOf(':')));
}

/**
 * The start-up problem with `token` for an engine that `listens on` or `is reached at` `address` (whose
 * `hosts` are given), or null when the engine stays on loopback or the token is one of the operator's own.
 */
export function exposedEngineProblem(token: string | null, role: 'listens on' | 'is reached at', address: string, hosts: string[]): string | null {
  if (hosts.every(isLoopbackHost)) return null;
  const where = `when the engine ${role} ${address} (beyond loopback)`;
  const generate = 'generate one: openssl rand -hex 32';
  if (token === null) return `ENGINE_TOKEN must be set ${where}: without it, anyone who reaches the engine acts as any user (${generate})`;
  if (EXAMPLE_ENGINE_TOKENS.includes(token)) return `ENGINE_TOKEN must not be the published example '${token}' ${where}: anyone can read it (${generate})`;
  return null;
}
