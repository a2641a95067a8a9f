/**
 * Registration rules for `webhook_endpoints` (interface §6; AUTH.md "Server-side request forgery"): an
 * endpoint is an absolute https URL without credentials or fragment, at most 2048 characters, whose host
 * is resolved at registration and refused when any address it resolves to is loopback, link-local
 * (169.254.169.254 included), private, unique-local, multicast or unspecified, in IPv4 or IPv6 form. A
 * host that does not resolve is refused too. Hosts the operator lists in WEBHOOK_ALLOWED_HOSTS skip the
 * check and may use http (a self-hosted network, a test's loopback receiver).
 *
 * Whitespace a paste leaves around an endpoint (spaces, tabs, CR LF) is dropped (`normalWebhookEndpoint`);
 * inside it, a space, a tab, a line break or any other control character is refused with its position,
 * never silently removed (the URL parser would drop tabs and line breaks, so what was stored would not
 * be what is called).
 *
 * The address rules live in domain/outbound-address.ts, which delivery (engine/events/deliver.ts) uses again
 * on every attempt: DNS can change after registration. Kept honest by test/gateway/applications-api.test.ts.
 */
import { resolvePermitted, urlHost } from '../../domain/outbound-address.js';

export const MAX_WEBHOOK_ENDPOINTS = 10;

/** An endpoint as registered: without the whitespace around it. */
export function normalWebhookEndpoint(value: string): string {
  return value.trim();
}

const NAMED_CHARACTERS: Record<string, string> = { ' ': 'a space', '\t': 'a tab', '\r': 'a line break (CR)', '\n': 'a line break (LF)' };

/** The problem with one endpoint, or null when it may be registered. */
export async function webhookEndpointProblem(value: string, allowedHosts: readonly string[]): Promise<string | null> {
  const blank = /[\s\u0000-\u001f\u007f-\u009f]/u.exec(value);
  if (blank) {
    const what = NAMED_CHARACTERS[blank[0]] ?? `the character U+${blank[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `must not contain ${what} (at character ${blank.index + 1})${blank[0] === ' ' ? '; a space inside a URL is written %20' : ''}`;
  }
  if (value.length > 2048 || !URL.canParse(value)) return 'must be an absolute https URL of at most 2048 characters';
  const url = new URL(value);
  if (url.username || url.password || url.hash || value.includes('#')) return 'must not carry credentials or a fragment';
  const host = urlHost(url);
  if (allowedHosts.includes(host)) return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must be an https URL';
  if (url.protocol !== 'https:') return 'must be an https URL';
  const resolution = await resolvePermitted(host, allowedHosts);
  return resolution.ok ? null : resolution.problem;
}
