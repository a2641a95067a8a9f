/**
 * A webhook receiver on a loopback port for tests and the bench: records every request (raw body, headers,
 * when it arrived) and answers as the test says (a status, a redirect, or never). Also an independent
 * check of `X-Sweatstack-Signature` as an existing receiver would write it (WebCrypto HMAC-SHA256 over
 * "<t>.<raw body>", ±300 s), sharing no code with engine/events/deliver.ts, the helper that connects
 * a new user to an application with this receiver as its endpoint, and one that reads the owners' page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createApplication } from '../../gateway/services/accounts.js';
import type { TestStack } from './stack.js';
import { writeEndless, type EndlessBody, type Tallies } from './endless-answers.js';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Epoch ms when the request arrived. */
  at: number;
}

/** What to answer: a status (with headers, and a body that never ends), or 'hang' to never answer. */
export type Answer = number | { status: number; headers?: Record<string, string>; body?: EndlessBody } | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** One per answer with a never-ending body: what was written, and whether the client hung up. */
  tallies: Tallies;
  /** Decides each answer; the default answers 200. */
  answer: (request: Received, index: number) => Answer;
  /** Resolves with `received` once `ready(received)` holds; throws after `timeoutMs`. */
  waitFor(ready: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver: Receiver = {
    url: '', port: 0, received: [], tallies: [],
    answer: () => 200,
    async waitFor(ready, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!ready(receiver.received)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met after ${timeoutMs} ms (${receiver.received.length} requests)`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return receiver.received;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: Received = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      receiver.received.push(received);
      const answer = receiver.answer(received, receiver.received.length - 1);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      const { status, headers, body } = typeof answer === 'number' ? { status: answer, headers: {}, body: undefined } : answer;
      response.writeHead(status, headers);
      if (body) writeEndless(response, body, receiver.tallies);
      else response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}

/** Whether `header` signs `body` with `secret` within ±300 s of `nowMs`, as a receiver checks it. */
export async function verifySignature(header: string | undefined, body: string, secret: string, nowMs = Date.now()): Promise<boolean> {
  if (!header) return false;
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1');
  if (!Number.isInteger(t) || !v1 || Math.abs(nowMs / 1000 - t) > 300) return false;
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const mac = Uint8Array.from(v1.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16));
  return crypto.subtle.verify('HMAC', key, mac, new TextEncoder().encode(`${parts.get('t')}.${body}`));
}

export interface Subscriber {
  appId: string;
  secret: string;
  userId: string;
  /** The user's token for the application (grant with `scopes`). */
  token: string;
}

/** A new application whose endpoints are `endpoints` (signed with a fresh secret), and a new user who granted it `scopes`. */
export async function subscribe(stack: TestStack, endpoints: string[], scopes = ['activities:read', 'activities:write'], options: { secret?: boolean; userId?: string } = {}): Promise<Subscriber> {
  const owner = await stack.userWithToken([]);
  const app = await createApplication(stack.store, owner.userId, { name: 'Webhook app' });
  const secret = `whsec_${randomBytes(16).toString('hex')}`;
  await stack.store.applications.updateOne({ id: app.id }, { set: { webhook_endpoints: endpoints, webhook_secret: options.secret === false ? null : secret } });
  const user = await stack.userWithToken(scopes, { appId: app.id, ...(options.userId && { userId: options.userId }) });
  return { appId: app.id, secret, userId: user.userId, token: user.token };
}

/**
 * GET /account/webhooks with an owner's session cookie until its HTML matches `pattern`; fails after 10 s
 * with the last page. A receiver sees an attempt before the dispatcher's next round records its outcome.
 */
export async function webhooksPageUntil(stack: TestStack, cookie: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${stack.baseUrl}/account/webhooks`, { headers: { cookie } });
    const html = await response.text();
    if (response.status === 200 && pattern.test(html)) return html;
    if (Date.now() > deadline) throw new Error(`/account/webhooks answered ${response.status} without ${pattern} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
