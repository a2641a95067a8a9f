/**
 * Helpers for OAuth tests: applications with or without a secret, codes issued straight through
 * `issueCode` (as the authorize flow does after consent), PKCE pairs, and token requests.
 *
 * `tokenRequest` sends each request from its own loopback address (127.0.0.2 … 127.0.0.251, in turn)
 * unless `from` pins one: the token endpoint counts failures per client address, and a suite that
 * tests failures on purpose would otherwise lock itself out. Pin `from` to test that limit.
 */
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { ApplicationRecord, ClientSecretRecord, UserRecord } from '../../storage/store.js';
import { addClientSecret, createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import { issueCode } from '../../gateway/auth/authorization-codes.js';
import type { TestStack } from './stack.js';

export interface TestApp {
  app: ApplicationRecord;
  owner: UserRecord;
  /** The client secret in clear; null for an application without one (PKCE only). */
  secret: string | null;
  secretRecord: ClientSecretRecord | null;
}

/** An application owned by a new user; with a client secret unless `secret: false`. */
export async function makeApp(stack: TestStack, options: { secret?: boolean; redirectUris?: string[]; createdAt?: number } = {}): Promise<TestApp> {
  const owner = await makeUser(stack);
  const app = await createApplication(stack.store, owner.id, { name: 'Test app', redirect_uris: options.redirectUris ?? ['https://app.example.com/callback'] }, options.createdAt);
  if (options.secret === false) return { app, owner, secret: null, secretRecord: null };
  const { record, secret } = await addClientSecret(stack.store, app, 'test');
  return { app, owner, secret, secretRecord: record };
}

/** A new user with a random email (and names when given). */
export function makeUser(stack: TestStack, names: { first_name?: string | null; last_name?: string | null; email?: string | null } = {}): Promise<UserRecord> {
  return createUser(stack.store, { email: names.email === undefined ? `${randomBytes(6).toString('hex')}@example.com` : names.email, first_name: names.first_name, last_name: names.last_name });
}

export interface CodeRequest {
  app: ApplicationRecord;
  /** The user who consents; a new one when omitted. */
  userId?: string;
  scopes: string[];
  /** Default: the application's first redirect URI. */
  redirectUri?: string;
  codeChallenge?: string | null;
  nonce?: string | null;
  /** When the user signed in, epoch ms; default now. */
  authTime?: number;
  /** Issue time, epoch ms (a past instant makes an expired code). */
  now?: number;
}

/** What consent does: the grant gains the scopes (unionGrant), then a code is issued under it. */
export async function codeFor(stack: TestStack, request: CodeRequest): Promise<{ code: string; userId: string; grantId: string; redirectUri: string; authTime: number }> {
  const userId = request.userId ?? (await makeUser(stack)).id;
  const grant = await unionGrant(stack.store, userId, request.app.id, request.scopes);
  const redirectUri = request.redirectUri ?? request.app.redirect_uris[0]!;
  const authTime = request.authTime ?? Date.now();
  const code = await issueCode(stack.store, {
    userId, applicationId: request.app.id, grantId: grant.id, redirectUri, scopes: request.scopes,
    codeChallenge: request.codeChallenge ?? null, nonce: request.nonce ?? null, authTime,
  }, request.now);
  return { code, userId, grantId: grant.id, redirectUri, authTime };
}

/** A PKCE S256 pair (RFC 7636 §4.1–4.2), computed here independently of the server's code. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier, 'ascii').digest('base64url') };
}

/** RFC 6749 §2.3.1: `Basic base64(urlencode(id) ":" urlencode(secret))`. */
export function basicAuth(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(secret)}`, 'utf8').toString('base64')}`;
}

/** application/x-www-form-urlencoded encoding of one value. */
export function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

export type Form = Record<string, string> | [string, string][] | string;

let lastAddress = 1;

/** The next loopback address of the rotation (127.0.0.2 … 127.0.0.251). */
export function nextLoopbackAddress(): string {
  lastAddress = lastAddress >= 251 ? 2 : lastAddress + 1;
  return `127.0.0.${lastAddress}`;
}

/**
 * POSTs a token request (form-encoded unless `headers` set another content type) and returns a fetch
 * `Response`. `from`: the client address to send from; `path`: default `/api/v1/oauth/token`.
 */
export async function tokenRequest(stack: Pick<TestStack, 'baseUrl'>, form: Form, headers: Record<string, string> = {}, options: { from?: string; path?: string } = {}): Promise<Response> {
  const body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
  return send(stack, options.path ?? '/api/v1/oauth/token', { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body, options.from ?? nextLoopbackAddress());
}

/** node:http, because fetch cannot choose its local address. */
function send(stack: Pick<TestStack, 'baseUrl'>, urlPath: string, headers: Record<string, string>, body: string | Buffer, localAddress: string): Promise<Response> {
  const port = Number(new URL(stack.baseUrl).port);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path: urlPath, method: 'POST', localAddress, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
            else if (value !== undefined) responseHeaders.set(name, value);
          }
          resolve(new Response(Buffer.concat(chunks), { status: response.statusCode!, headers: responseHeaders }));
        });
      },
    );
    // A server refusing a large body may close the socket before reading it; the answer already came.
    request.on('error', reject);
    request.end(body);
  });
}
