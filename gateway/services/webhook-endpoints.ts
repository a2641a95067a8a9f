/**
 * Registration rules for `webhook_endpoints` (interface §6; AUTH.md "Server-side request forgery"): an
 * endpoint is an absolute https URL without credentials or fragment, at most 2048 characters, whose host
 * is resolved at registration and refused when any address it resolves to is loopback, link-local
 * (169.254.169.254 included), private, unique-local, multicast or unspecified, in IPv4 or IPv6 form. A
 * host that does not resolve is refused too. Hosts the operator lists in WEBHOOK_ALLOWED_HOSTS skip the
 * check and may use http (a self-hosted network, a test's loopback receiver).
 *
 * Delivery (issue 15) must check again on every attempt and follow no redirect: DNS can change after
 * registration. Kept honest by test/gateway/applications-api.test.ts.
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

/** How long a registration waits for DNS, milliseconds. */
const LOOKUP_TIMEOUT_MS = 3000;
export const MAX_WEBHOOK_ENDPOINTS = 10;

/** Whether an address is one a webhook may never reach (IPv4-mapped IPv6 is judged as its IPv4). */
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

/** The problem with one endpoint, or null when it may be registered. */
export async function webhookEndpointProblem(value: string, allowedHosts: readonly string[]): Promise<string | null> {
  if (value.length > 2048 || !URL.canParse(value)) return 'must be an absolute https URL of at most 2048 characters';
  const url = new URL(value);
  if (url.username || url.password || url.hash || value.includes('#')) return 'must not carry credentials or a fragment';
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (allowedHosts.includes(host)) return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must be an https URL';
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point at this machine (loopback)';
  if (isIP(host)) return isRefusedAddress(host) ? `must not point at a loopback, private, link-local, multicast or unspecified address (${host})` : null;
  let addresses: { address: string }[];
  try {
    addresses = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS).unref()),
    ]);
  } catch {
    return `host ${host} does not resolve`;
  }
  const refused = addresses.find((entry) => isRefusedAddress(entry.address));
  return refused ? `host ${host} resolves to a loopback, private, link-local, multicast or unspecified address (${refused.address})` : null;
}
