/**
 * Hostile input at every extension path (/api/v1/ext/…): empty, huge, malformed and prototype-polluting
 * queries and bodies get a 4xx that names what is wrong, never a 5xx, and a refused correction changes
 * nothing.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { csvActivity, uploadProcessed } from '../support/uploads.js';

interface Context { stack: TestStack; token: string; id: string }
const hostile = suite<Context>('extension paths under hostile input');

hostile.before(async (context) => {
  context.stack = await startStack();
  context.token = (await context.stack.userWithToken(['activities:read', 'activities:write'])).token;
  const source = await uploadProcessed(context.stack, context.token, 'ride.csv', csvActivity());
  context.id = source.activity_ids[0]!;
});
hostile.after(async (context) => {
  await context.stack?.close();
});

async function send(context: Context, method: string, path: string, body?: string, type = 'application/json'): Promise<{ status: number; text: string }> {
  const response = await fetch(`${context.stack.baseUrl}${path}`, {
    method, headers: { authorization: `Bearer ${context.token}`, ...(body !== undefined && { 'content-type': type }) }, body,
  });
  return { status: response.status, text: await response.text() };
}

function refused(answer: { status: number; text: string }, what: string): void {
  assert.ok(answer.status >= 400 && answer.status < 500, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
  assert.ok(answer.text.length > 0, `${what}: says what is wrong`);
}

hostile('training load: bad, empty, huge and repeated query values are 4xx', async (context) => {
  const long = 'x'.repeat(5_000);
  for (const query of [
    'start=', 'start=2024-02-30', 'start=2024-13-01', 'start=-1', `start=${long}`, 'end=9999999-01-01',
    'start=2024-05-01&end=2024-04-01', 'start=1900-01-01&end=2100-01-01', 'format=xml', 'format=', 'sport=', `sport=${long}`,
    'sport=%00',
  ]) refused(await send(context, 'GET', `/api/v1/ext/training-load?${query}`), `training-load?${query.slice(0, 60)}`);
  // Unknown parameters are ignored, as on the interface's routes; a polluting one pollutes nothing.
  assert.is((await send(context, 'GET', '/api/v1/ext/training-load?__proto__[x]=1&constructor[prototype][y]=2')).status, 200);
  assert.is(({} as Record<string, unknown>).x, undefined);
  assert.is(({} as Record<string, unknown>).y, undefined);
});

hostile('activity numbers and corrections: odd ids are 404 or 422, never 5xx', async (context) => {
  for (const id of ['x'.repeat(5_000), '%00', '..', '%2e%2e', 'nope']) {
    for (const path of [`/api/v1/ext/activities/${id}/numbers`, `/api/v1/ext/activities/${id}`]) refused(await send(context, 'GET', path), `GET ${path.slice(0, 60)}`);
    refused(await send(context, 'DELETE', `/api/v1/ext/activities/${id}`), `DELETE ${id.slice(0, 20)}`);
  }
  refused(await send(context, 'GET', `/api/v1/ext/activities/${context.id}/numbers?zone_system=${'z'.repeat(10_000)}`), 'zone_system huge');
});

hostile('corrections: malformed, empty, huge and polluting bodies are 4xx and change nothing', async (context) => {
  const path = `/api/v1/ext/activities/${context.id}`;
  const before = await send(context, 'GET', path);
  assert.is(before.status, 200);
  const bodies: [string, string, string?][] = [
    ['empty', ''], ['not JSON', '{"sport":'], ['array', '[]'], ['null', 'null'], ['number', '42'], ['empty object', '{}'],
    ['unknown key', '{"color":"red"}'], ['bad sport', '{"sport":"not a sport at all"}'], ['sport number', '{"sport":7}'],
    ['tags not a list', '{"tags":"race"}'], ['tag too long', JSON.stringify({ tags: ['t'.repeat(10_000)] })],
    ['too many tags', JSON.stringify({ tags: Array.from({ length: 1_000 }, (_, i) => `t${i}`) })],
    ['tag with control', JSON.stringify({ tags: ['a\u0000b'] })], ['notes huge', JSON.stringify({ notes: 'n'.repeat(100_000) })],
    ['notes with bidi override', JSON.stringify({ notes: 'a\u202eb' })], ['__proto__', '{"__proto__":{"sport":"running"}}'],
    ['huge body', JSON.stringify({ notes: 'n'.repeat(3_000_000) })], ['text body', 'sport=running', 'text/plain'],
  ];
  for (const [what, body, type] of bodies) refused(await send(context, 'PATCH', path, body, type), `PATCH ${what}`);
  assert.is((await send(context, 'GET', path)).text, before.text, 'nothing changed');
  // A form body is read as every API route reads one (the default JSON-or-form parser), and validated alike.
  refused(await send(context, 'PATCH', path, 'sport=not+a+sport', 'application/x-www-form-urlencoded'), 'PATCH form body, bad sport');
  assert.is(({} as Record<string, unknown>).sport, undefined, 'no prototype polluted');
});

hostile.run();
