/**
 * Issue 23 item 9: the README states the app-metadata limits the server enforces (it said 4 KB for
 * traces and tests, which the server refuses above 1 KB). The limits are read from the README's rows and
 * probed at their edge on every record kind: an object of exactly the stated bytes (compact UTF-8 JSON)
 * is stored, one byte more is 413; whitespace the client sends does not count. Interface §8 "Limits":
 * "App metadata on an activity or trace: at most 1 KB"; "on a user: at most 4 KB".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, type JsonClient } from '../support/json-api.js';
import { insertActivity } from '../support/activities.js';
import { REPO_ROOT } from '../support/paths.js';
import { createApplication } from '../../gateway/services/accounts.js';

let stack: TestStack;
/** One user's personal token (writes the records) and an app token (writes the metadata). */
let user: { userId: string; personal: JsonClient; appToken: string; app: JsonClient };

test.before(async () => {
  stack = await startStack();
  const scopes = ['activities:read', 'activities:write'];
  const personal = await stack.userWithToken(scopes);
  const application = await createApplication(stack.store, personal.userId, { name: 'Metadata app' });
  const { token: appToken } = await stack.userWithToken(scopes, { appId: application.id, userId: personal.userId });
  user = { userId: personal.userId, personal: jsonClient(stack, personal.token), appToken, app: jsonClient(stack, appToken) };
});
test.after(async () => {
  await stack.close();
});

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

/** The KB the README row of `route` states, after `phrase` (e.g. "at most 1 KB on each activity"). */
function statedBytes(route: string, phrase: RegExp): number {
  const row = README.split('\n').find((line) => line.startsWith('|') && line.includes(route));
  assert.ok(row, `README has a row for ${route}`);
  const match = phrase.exec(row);
  assert.ok(match, `the row of ${route} states ${phrase}`);
  return Number(match[1]) * 1024;
}

/** A JSON object whose compact form is exactly `bytes` long (UTF-8). */
function objectOf(bytes: number): Record<string, string> {
  const value = { note: '' };
  value.note = 'x'.repeat(bytes - Buffer.byteLength(JSON.stringify(value)));
  return value;
}

/** The limit holds to the byte at `path`: `bytes` stored, `bytes + 1` refused (413); pretty-printed whitespace is free. */
async function assertLimit(metadataPath: string, bytes: number): Promise<void> {
  const exact = objectOf(bytes);
  const stored = await user.app.put(metadataPath, exact);
  assert.is(stored.status, 200, `${metadataPath}: ${bytes} bytes`);
  const over = await user.app.put(metadataPath, objectOf(bytes + 1));
  assert.is(over.status, 413, `${metadataPath}: ${bytes + 1} bytes`);
  assert.match(over.body.detail, `the limit is ${bytes}`);
  const pretty = await fetch(`${stack.baseUrl}${metadataPath}`, {
    method: 'PUT', headers: { authorization: `Bearer ${user.appToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(exact, null, 8),
  });
  assert.is(pretty.status, 200, `${metadataPath}: the whitespace sent counted (${await pretty.text()})`);
}

test('activities, traces and tests: the README states 1 KB, and the server enforces that to the byte', async () => {
  const bytes = statedBytes('/api/v1/{activities\\|traces\\|tests}/{id}/app-metadata', /at most (\d+) KB on each activity, trace and test/);
  assert.is(bytes, 1024, 'interface §8: at most 1 KB on an activity or trace');
  const activity = await insertActivity(stack.store, user.userId, { sport: 'cycling', start: Date.UTC(2024, 3, 1, 9), series: { rows: 3, metrics: { power: (i) => 200 + i } } });
  const trace = (await user.personal.post('/api/v1/traces/', {
    timestamp: '2024-02-01T10:00:00+01:00', test_id: null, lactate: 2.1, rpe: null, notes: null, power: null, speed: null, heart_rate: null, vo2: null, tags: null, sport: null,
  })).body;
  const record = (await user.personal.post('/api/v1/tests/', { title: null, sport: 'cycling', start: '2024-04-01T09:00:00+02:00', end: null, results: null, tags: null })).body;
  for (const recordPath of [`/api/v1/activities/${activity.id}`, `/api/v1/traces/${trace.id}`, `/api/v1/tests/${record.id}`]) {
    await assertLimit(`${recordPath}/app-metadata`, bytes);
  }
});

test('the user: the README states 4 KB, and the server enforces that to the byte', async () => {
  const bytes = statedBytes('/api/v1/profile/app-metadata', /at most (\d+) KB on the user/);
  assert.is(bytes, 4096, 'interface §8: at most 4 KB on a user');
  await assertLimit('/api/v1/profile/app-metadata', bytes);
});

test.run();
