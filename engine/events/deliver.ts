/**
 * One webhook attempt: check the endpoint's address again (DNS may have changed since registration), POST
 * the signed body to exactly the address checked, and report what came back. gaps.md "Events": the header
 * is `X-Sweatstack-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(webhook_secret, "<t>.<raw body>")>`, and
 * "receivers must answer 2xx within 2 s".
 *
 * Deliberately: no redirect is followed (a 3xx is a failed attempt, AUTH.md "Server-side request forgery");
 * the connection goes to the checked IP address with the URL's host in `Host` and, for https, in SNI and the
 * certificate check, so a second DNS answer can never steer the request (no DNS rebinding). The status
 * decides the attempt; the body is not needed: at most WEBHOOK_ANSWER_MAX_BYTES of it are read, within the
 * attempt's one deadline (`timeoutMs` covers the status line and the body), through engine/outbound-read.ts,
 * and then the stream is destroyed (a body that ended in time leaves the socket to the keep-alive pool), so a
 * receiver that streams forever or trickles costs neither memory nor more than the deadline.
 * Kept honest by test/engine/webhooks.test.ts.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { resolvePermitted, urlHost } from '../../domain/outbound-address.js';
import { readPrefix } from '../outbound-read.js';

export const SIGNATURE_HEADER = 'X-Sweatstack-Signature';

/** Of a receiver's answer body, at most this much is read (and dropped): enough to end an "ok" or a small JSON reply. */
export const WEBHOOK_ANSWER_MAX_BYTES = 1024;

/** The signature header's value for `body` signed at `unixSeconds`. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

export interface AttemptOutcome {
  /** The receiver's status, or null when none came. */
  statusCode: number | null;
  /** Why the attempt failed (null for a 2xx). Never holds the secret. */
  error: string | null;
  durationMs: number;
}

export interface DeliverOptions {
  allowedHosts: readonly string[];
  timeoutMs: number;
  /** Keep-alive agents; sockets are pooled per checked IP address. */
  agents: { http: http.Agent; https: https.Agent };
}

export function keepAliveAgents(maxSockets: number): { http: http.Agent; https: https.Agent } {
  return {
    http: new http.Agent({ keepAlive: true, maxSockets, timeout: 10_000 }),
    https: new https.Agent({ keepAlive: true, maxSockets, timeout: 10_000 }),
  };
}

export async function deliver(endpoint: string, body: string, secret: string, options: DeliverOptions, now = Date.now()): Promise<AttemptOutcome> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  if (!URL.canParse(endpoint)) return { statusCode: null, error: 'endpoint is not a URL', durationMs: 0 };
  const url = new URL(endpoint);
  const host = urlHost(url);
  const secure = url.protocol === 'https:';
  if (!secure && !(url.protocol === 'http:' && options.allowedHosts.includes(host))) {
    return { statusCode: null, error: 'endpoint must be an https URL', durationMs: 0 };
  }
  const resolution = await resolvePermitted(host, options.allowedHosts);
  if (!resolution.ok) return { statusCode: null, error: `endpoint refused: ${resolution.problem}`, durationMs: took() };
  const headers = {
    host: url.host,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'user-agent': 'Threshold-Webhooks/1',
    [SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(now / 1000), body),
  };
  const request = {
    host: resolution.address,
    family: resolution.family,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers,
    ...(secure && host !== resolution.address && { servername: host }),
  };
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', late);
      resolve({ ...outcome, durationMs: took() });
    };
    const req = secure ? https.request({ ...request, agent: options.agents.https }) : http.request({ ...request, agent: options.agents.http });
    // One deadline for the status line and the body (readPrefix watches it for the body).
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const late = () => {
      settle({ statusCode: null, error: `no answer within ${options.timeoutMs} ms` });
      req.destroy();
    };
    deadline.addEventListener('abort', late, { once: true });
    req.on('response', (res) => {
      void readPrefix(res, { maxBytes: WEBHOOK_ANSWER_MAX_BYTES, signal: deadline, timeoutMs: options.timeoutMs, what: 'webhook answer' });
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) settle({ statusCode: status, error: null });
      else if (status >= 300 && status < 400) settle({ statusCode: status, error: 'redirect not followed' });
      else settle({ statusCode: status, error: `answered ${status}` });
    });
    req.on('error', (error: NodeJS.ErrnoException) => settle({ statusCode: null, error: `connection failed (${error.code ?? error.message})` }));
    req.end(body);
  });
}
