import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startStack, type TestStack } from '../support/stack.js';

const api = suite<{ stack: TestStack }>('http api');

api.before(async (context) => {
  context.stack = await startStack();
});
api.after(async (context) => {
  await context.stack.close();
});

api('answers /healthz with 200', async ({ stack }) => {
  const response = await stack.get('/healthz');
  assert.is(response.status, 200);
  assert.equal(await response.json(), { status: 'ok' });
});

api('reports ready when the store and the engine answer', async ({ stack }) => {
  const response = await stack.get('/readyz');
  assert.is(response.status, 200);
  assert.equal(await response.json(), { status: 'ready', checks: { store: 'ok', engine: 'ok' } });
});

api('serves a valid OpenAPI 3.1 document with the interface version and every route', async ({ stack }) => {
  const response = await stack.get('/openapi.json');
  assert.is(response.status, 200);
  const document = (await response.json()) as { openapi: string; info: { version: string }; paths: Record<string, Record<string, { parameters: { name: string }[]; responses: Record<string, unknown> }>> };
  const result = await new Validator().validate(document as never);
  assert.ok(result.valid, JSON.stringify(result.errors));
  assert.is(document.openapi, '3.1.0');
  assert.is(document.info.version, '0.113.2');
  const list = document.paths['/api/v1/activities/']!.get!;
  assert.equal(list.parameters.map((parameter) => parameter.name).sort(), ['end', 'limit', 'offset', 'sport', 'sports', 'start', 'tags']);
  assert.ok(list.responses['401'] && list.responses['403'] && list.responses['422']);
  for (const path of ['/healthz', '/readyz', '/openapi.json', '/.well-known/jwks.json', '/.well-known/openid-configuration']) {
    assert.ok(document.paths[path], `missing ${path}`);
  }
});

api('publishes discovery metadata whose issuer is the base URL', async ({ stack }) => {
  const response = await stack.get('/.well-known/openid-configuration');
  const metadata = (await response.json()) as Record<string, unknown>;
  assert.is(metadata.issuer, stack.baseUrl);
  assert.is(metadata.jwks_uri, `${stack.baseUrl}/.well-known/jwks.json`);
  assert.equal(metadata.id_token_signing_alg_values_supported, ['RS256']);
  assert.ok((metadata.scopes_supported as string[]).includes('activities:read'));
});

api('publishes only public key members in the JWKS', async ({ stack }) => {
  const { keys } = (await (await stack.get('/.well-known/jwks.json')).json()) as { keys: Record<string, string>[] };
  assert.is(keys.length, 1);
  assert.equal(Object.keys(keys[0]!).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
  assert.is(keys[0]!.alg, 'RS256');
});

api('refuses the activity list without a token with 401 and a Bearer challenge', async ({ stack }) => {
  const response = await stack.get('/api/v1/activities/');
  assert.is(response.status, 401);
  assert.is(response.headers.get('www-authenticate'), 'Bearer');
  assert.equal(await response.json(), { detail: 'Not authenticated' });
});

api('refuses a token without activities:read with a 403 naming the scope', async ({ stack }) => {
  const { token } = await stack.userWithToken(['wellness:read']);
  const response = await stack.get('/api/v1/activities/', token);
  assert.is(response.status, 403);
  assert.equal(await response.json(), { detail: 'Missing required scope: activities:read' });
  assert.is(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="activities:read"');
});

api('lists an empty activity list for a new user with activities:read', async ({ stack }) => {
  const { token } = await stack.userWithToken(['activities:read']);
  const response = await stack.get('/api/v1/activities/', token);
  assert.is(response.status, 200);
  assert.equal(await response.json(), []);
});

api('answers a malformed query with a FastAPI-shaped 422 listing every problem', async ({ stack }) => {
  const { token } = await stack.userWithToken(['activities:read']);
  const response = await stack.get('/api/v1/activities/?limit=abc&start=2024-02-30&sport=Cycling', token);
  assert.is(response.status, 422);
  const body = (await response.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
  const locs = body.detail.map((issue) => issue.loc.join('.')).sort();
  assert.equal(locs, ['query.limit', 'query.start']);
  for (const issue of body.detail) assert.equal(Object.keys(issue).sort(), ['loc', 'msg', 'type']);
});

api('rejects a malformed sport filter with 422', async ({ stack }) => {
  const { token } = await stack.userWithToken(['activities:read']);
  const response = await stack.get('/api/v1/activities/?sport=Cycling', token);
  assert.is(response.status, 422);
  const body = (await response.json()) as { detail: { loc: unknown[] }[] };
  assert.equal(body.detail[0]!.loc, ['query', 'sport']);
});

api('answers an unknown path with a JSON 404', async ({ stack }) => {
  const response = await stack.get('/api/v1/nothing-here');
  assert.is(response.status, 404);
  assert.equal(await response.json(), { detail: 'Not Found' });
});

api('answers a wrong method with a JSON 405', async ({ stack }) => {
  const response = await fetch(`${stack.baseUrl}/healthz`, { method: 'DELETE' });
  assert.is(response.status, 405);
  assert.equal(await response.json(), { detail: 'Method Not Allowed' });
});

api('echoes a well-formed X-Request-Id and generates one otherwise', async ({ stack }) => {
  const echoed = await stack.get('/healthz', undefined, { 'x-request-id': 'abc-123' });
  assert.is(echoed.headers.get('x-request-id'), 'abc-123');
  const generated = await stack.get('/healthz', undefined, { 'x-request-id': 'bad id with spaces' });
  assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

api.run();
