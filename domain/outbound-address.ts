/**
 * Where an outbound request may go (AUTH.md "Server-side request forgery"): an address is refused when it
 * is loopback, link-local (169.254.169.254 included), private, unique-local, multicast or unspecified, in
 * IPv4 or IPv6 form; a host name is resolved and refused when any address it resolves to is. Hosts the
 * operator lists (WEBHOOK_ALLOWED_HOSTS) skip the range check but are still resolved.
 *
 * Shared by webhook registration (gateway/services/webhook-endpoints.ts) and delivery
 * (engine/events/deliver.ts), which connects to the very address checked here (no DNS rebinding between
 * the check and the connection). It does not decide schemes or URL shapes. Kept honest by
 * test/gateway/applications-api.test.ts and test/engine/webhooks.test.ts.
 */
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) REFUSED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) REFUSED.addSubnet(network, prefix, 'ipv6');

/** How long a resolution may take, milliseconds. */
export const LOOKUP_TIMEOUT_MS = 3000;

/** Whether an address is one an outbound request may never reach (IPv4-mapped IPv6 is judged as its IPv4). */
export function isRefusedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return REFUSED.check(mapped[1]!, 'ipv4');
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address); // what URL parsing makes of ::ffff:127.0.0.1
  if (mappedHex) {
    const high = Number.parseInt(mappedHex[1]!, 16);
    const low = Number.parseInt(mappedHex[2]!, 16);
    return REFUSED.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  const family = isIP(address);
  if (family === 0) return true;
  return REFUSED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** WEBHOOK_ALLOWED_HOSTS as both processes read it: comma-separated host names, lowercased. */
export function parseAllowedHosts(text: string | undefined): string[] {
  return (text ?? '').split(',').map((host) => host.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter(Boolean);
}

/** The host of a URL as compared with the allow list: lowercased, IPv6 brackets removed. */
export function urlHost(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
}

export type Resolution = { ok: true; address: string; family: 4 | 6 } | { ok: false; problem: string };

/**
 * Resolves `host` and checks every address it resolves to; answers the first one (the one to connect to).
 * An allowed host is resolved but not range-checked; `localhost` and `*.localhost` are refused unless allowed.
 */
export async function resolvePermitted(host: string, allowedHosts: readonly string[]): Promise<Resolution> {
  const allowed = allowedHosts.includes(host);
  if (!allowed && (host === 'localhost' || host.endsWith('.localhost'))) return { ok: false, problem: 'must not point at this machine (loopback)' };
  const literal = isIP(host);
  if (literal !== 0) {
    if (!allowed && isRefusedAddress(host)) return { ok: false, problem: `must not point at a loopback, private, link-local, multicast or unspecified address (${host})` };
    return { ok: true, address: host, family: literal as 4 | 6 };
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS).unref()),
    ]);
  } catch {
    return { ok: false, problem: `host ${host} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, problem: `host ${host} does not resolve` };
  const refused = allowed ? undefined : addresses.find((entry) => isRefusedAddress(entry.address));
  if (refused) return { ok: false, problem: `host ${host} resolves to a loopback, private, link-local, multicast or unspecified address (${refused.address})` };
  const first = addresses[0]!;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
