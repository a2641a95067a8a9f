import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { toFastApi } from '../../gateway/middleware/validate.js';
import { queryArray, queryBool, queryInt } from '../../gateway/schemas/query.js';
import { redirectUriProblem } from '../../gateway/auth/redirect-uris.js';

function issues(schema: z.ZodType, value: unknown, origin: 'query' | 'body' = 'body') {
  const result = schema.safeParse(value);
  assert.not.ok(result.success);
  return result.error!.issues.flatMap((issue) => toFastApi(issue, origin, value));
}

test('reports a missing field as FastAPI does', () => {
  assert.equal(issues(z.object({ name: z.string() }), {}), [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
  assert.equal(issues(z.object({ kind: z.enum(['a', 'b']) }), {}), [{ loc: ['body', 'kind'], msg: 'Field required', type: 'missing' }], 'an enum too');
});

test('reports wrong types, lengths and enums with their pydantic types', () => {
  const schema = z.object({ name: z.string().max(3), count: z.number().int(), kind: z.enum(['a', 'b']), items: z.array(z.string()).max(1) });
  const types = issues(schema, { name: 'long', count: 'x', kind: 'c', items: ['a', 'b'] }).map((issue) => [issue.loc.join('.'), issue.type]);
  assert.equal(types, [['body.name', 'string_too_long'], ['body.count', 'float_type'], ['body.kind', 'enum'], ['body.items', 'too_long']]);
});

test('names each unexpected key of a strict object', () => {
  assert.equal(issues(z.strictObject({ a: z.string() }), { a: 'x', b: 1, c: 2 }).map((issue) => issue.loc), [['body', 'b'], ['body', 'c']]);
});

test('parses query integers strictly and takes the last of a repeated scalar', () => {
  const schema = z.object({ limit: queryInt({ min: 1, max: 100 }) });
  assert.equal(schema.parse({ limit: ['5', '7'] }), { limit: 7 });
  for (const bad of ['', '1.5', '1e3', ' 5', '0', '101']) assert.not.ok(schema.safeParse({ limit: bad }).success, bad);
});

test('parses query booleans and arrays', () => {
  const schema = z.object({ flag: queryBool(), sport: queryArray(z.string()) });
  assert.equal(schema.parse({ flag: 'false', sport: 'cycling' }), { flag: false, sport: ['cycling'] });
  assert.equal(schema.parse({ flag: 'TRUE', sport: ['a', 'b'] }), { flag: true, sport: ['a', 'b'] });
  assert.not.ok(schema.safeParse({ flag: 'maybe', sport: [] }).success);
});

test('accepts https, loopback http and custom-scheme redirect URIs', () => {
  for (const uri of ['https://app.example/cb', 'http://localhost:3000/cb', 'http://127.0.0.1/cb', 'com.example.app:/oauth', 'myapp://callback']) {
    assert.is(redirectUriProblem(uri), null, uri);
  }
});

test('rejects public http, fragments, userinfo, traversal and dangerous schemes at registration', () => {
  for (const uri of [
    'http://app.example/cb', 'https://app.example/cb#x', 'https://user@app.example/cb', 'https://app.example/a/../b',
    'https://app.example/a/%2e%2e/b', 'https://app.example/a%2fb', 'javascript:alert(1)', 'data:text/html,x', 'https://app.example\\@evil/',
    'not a uri', 'http://localhost.evil.example/cb',
  ]) {
    assert.type(redirectUriProblem(uri), 'string', uri);
  }
});

test.run();
