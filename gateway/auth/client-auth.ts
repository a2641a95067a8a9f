/**
 * Client authentication at the token endpoint (AUTH.md "token"; gaps.md "Authentication details").
 *
 * A client authenticates with HTTP Basic (RFC 6749 §2.3.1: id and secret form-urlencoded, then
 * base64), with `client_id` + `client_secret` in the body, or — a public PKCE client — with `client_id`
 * alone. Using Basic and a body secret together is refused (RFC 6749 §2.3: "MUST NOT use more than one
 * authentication method in each request"). Any other Authorization scheme, a Bearer token included, is
 * ignored. A secret is checked by hashing it and looking the hash up (so the comparison is constant-time
 * by construction), then checking it belongs to the named application; an unknown client and a wrong
 * secret fail with the very same error, so the endpoint does not reveal which client ids exist.
 *
 * Every failure is an OAuthError (errors.ts), written in RFC 6749 §5.2's shape by the one error writer.
 * Kept honest by test/gateway/token-endpoint.test.ts ("Basic …", "answers an unknown client and a
 * wrong secret identically").
 */
import type { ApplicationRecord, ClientSecretRecord, Store } from '../../storage/store.js';
import { hashSecret } from './secrets.js';
import { OAuthError } from '../errors.js';

/** "If the client attempted to authenticate via the Authorization request header field, … 401 … WWW-Authenticate" (RFC 6749 §5.2). */
export function clientAuthenticationFailed(usedBasic: boolean, description = 'client authentication failed'): OAuthError {
  return new OAuthError('invalid_client', description, usedBasic ? { 'WWW-Authenticate': 'Basic realm="threshold"' } : {});
}

/** Token request parameters: single values, empty ones dropped ("treated as if they were omitted", RFC 6749 §3.2). */
export type TokenParams = ReadonlyMap<string, string>;

/** What the client claims to be, before any lookup. */
export interface ClientCredentials {
  clientId: string;
  /** The secret in clear, or null when the client sent none. */
  secret: string | null;
  /** Whether the credentials came in an `Authorization: Basic` header. */
  basic: boolean;
}

export interface AuthenticatedClient {
  application: ApplicationRecord;
  /** The verified secret, or null for a client that sent none (it must then use PKCE). */
  secret: ClientSecretRecord | null;
  method: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** Whether the client used HTTP Basic (an invalid_client answer then carries a Basic challenge). */
  basic: boolean;
}

/** Reads the credentials from the Authorization header and the body; throws OAuthError when they are malformed or contradictory. */
export function readClientCredentials(authorization: string, params: TokenParams): ClientCredentials {
  const basic = readBasic(authorization);
  const bodyId = params.get('client_id') ?? null;
  // gaps.md: "an empty `client_secret=` is absent" (empty parameters are already dropped).
  const bodySecret = params.get('client_secret') ?? null;
  if (basic) {
    if (bodySecret !== null) throw new OAuthError('invalid_request', 'use either HTTP Basic or client_secret in the body, not both');
    if (bodyId !== null && bodyId !== basic.clientId) throw new OAuthError('invalid_request', 'client_id does not match the HTTP Basic credentials');
    return { ...basic, basic: true };
  }
  if (bodyId === null) throw clientAuthenticationFailed(false, 'client_id is required');
  return { clientId: bodyId, secret: bodySecret, basic: false };
}

/** Looks the client up and verifies its secret; every failure is the same invalid_client. */
export async function verifyClient(store: Store, credentials: ClientCredentials): Promise<AuthenticatedClient> {
  const failed = clientAuthenticationFailed(credentials.basic);
  if (credentials.secret === null) {
    const application = await store.applications.get(credentials.clientId);
    if (!application) throw failed;
    return { application, secret: null, method: 'none', basic: credentials.basic };
  }
  // "hashed, constant-time": the lookup is by the hash of a 256-bit value; nothing is compared in clear.
  const secret = await store.client_secrets.findOne({ secret_hash: hashSecret(credentials.secret) });
  if (!secret || secret.application_id !== credentials.clientId) throw failed;
  const application = await store.applications.get(credentials.clientId);
  if (!application) throw failed;
  return { application, secret, method: credentials.basic ? 'client_secret_basic' : 'client_secret_post', basic: credentials.basic };
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `Basic <base64(urlencode(id):urlencode(secret))>`, or null when the header is absent or another scheme. */
function readBasic(header: string): { clientId: string; secret: string | null } | null {
  const trimmed = header.trim();
  const space = trimmed.indexOf(' ');
  const scheme = space < 0 ? trimmed : trimmed.slice(0, space);
  // gaps.md: "an `Authorization: Bearer …` header (even an expired one) is ignored".
  if (scheme.toLowerCase() !== 'basic') return null;
  const token = space < 0 ? '' : trimmed.slice(space + 1).trim();
  const malformed = clientAuthenticationFailed(true, 'malformed HTTP Basic credentials');
  if (!BASE64.test(token) || token.length % 4 !== 0) throw malformed;
  let decoded: string;
  try {
    decoded = UTF8.decode(Buffer.from(token, 'base64'));
  } catch {
    throw malformed;
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed;
  const clientId = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  if (clientId === null || secret === null || clientId === '') throw malformed;
  // An empty password is an absent secret, as an empty `client_secret=` is.
  return { clientId, secret: secret === '' ? null : secret };
}

/** application/x-www-form-urlencoded decoding of one value ("+" is a space); null when malformed. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}
