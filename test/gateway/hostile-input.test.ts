/**
 * Input that a person would not type (issue 26 item 8), on the real stack: names with control and
 * invisible characters refused on every name field (API, account pages, command line) with a 422 naming
 * the field, the code point and its position; size caps on record fields, stated in /openapi.json;
 * workout `parameters` only as named numbers; `__proto__` and `constructor.prototype` keys answered with
 * the interface's 422 and never polluting a prototype; an app token deleting only the workouts its own
 * application scheduled, while every app still reads them all.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, sendJson, validationIssueAt, type JsonClient } from '../support/json-api.js';
import { CookieJar, signIn } from '../support/browser-session.js';
import { runCli } from '../support/processes.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import type { ApplicationRecord } from '../../storage/store.js';

interface Context {
  stack: TestStack;
  app: ApplicationRecord;
  otherApp: ApplicationRecord;
  firstPartyApp: ApplicationRecord;
  owner: { id: string; jar: CookieJar };
}

const input = suite<Context>('input a person would not type');
const PASSWORD = 'correct horse battery staple';

/** Each refused character with its code point as the 422 names it. */
const REFUSED: [string, string][] = [
  ['\u0000', 'U+0000'], ['\u001b', 'U+001B'], ['\t', 'U+0009'], ['\u0085', 'U+0085'], ['\u202e', 'U+202E'], ['\u202a', 'U+202A'],
  ['\u2066', 'U+2066'], ['\u2069', 'U+2069'], ['\u200e', 'U+200E'], ['\u200f', 'U+200F'], ['\u200b', 'U+200B'], ['\u200c', 'U+200C'],
  ['\u200d', 'U+200D'], ['\u2060', 'U+2060'], ['\ufeff', 'U+FEFF'],
];

input.before(async (context) => {
  context.stack = await startStack();
  const user = await createUser(context.stack.store, { email: 'hostile-owner@example.com', password: PASSWORD });
  context.app = await createApplication(context.stack.store, user.id, { name: 'Coach app' });
  context.otherApp = await createApplication(context.stack.store, user.id, { name: 'Other app' });
  context.firstPartyApp = await createApplication(context.stack.store, user.id, { name: 'Official client' });
  await context.stack.store.applications.updateOne({ id: context.firstPartyApp.id }, { set: { first_party: true } });
  context.owner = { id: user.id, jar: await signIn(context.stack, 'hostile-owner@example.com', PASSWORD) };
});
input.after(async (context) => {
  await context.stack?.close();
});

async function personal(context: Context, scopes: string[]): Promise<{ userId: string; api: JsonClient }> {
  const { userId, token } = await context.stack.userWithToken(scopes);
  return { userId, api: jsonClient(context.stack, token) };
}

// ---------------------------------------------------------------------------------------------------------
// Names

input('a managed user\'s names refuse every control and invisible character, naming the field, the code point and its position', async (context) => {
  const { api } = await personal(context, ['sharing:read', 'sharing:write']);
  for (const [character, codePoint] of REFUSED) {
    const first = await api.post('/api/v1/users/', { first_name: `Ann${character}${character}a`, last_name: null });
    assert.match(validationIssueAt(first, ['body', 'first_name']), `${codePoint} at character 4`, codePoint);
    const last = await api.post('/api/v1/users/', { first_name: 'Ann', last_name: `${character}Lee` });
    assert.match(validationIssueAt(last, ['body', 'last_name']), `${codePoint} at character 1`, codePoint);
  }
  const accepted = await api.post('/api/v1/users/', { first_name: 'Zoë-Łucja 山田', last_name: "O'Brien 👩🏽" });
  assert.is(accepted.status, 200, JSON.stringify(accepted.body));
  // The joiners pass between two visible characters: a Persian non-joiner, an emoji sequence.
  const joined = await api.post('/api/v1/users/', { first_name: 'Mi\u200cNa', last_name: 'Runner \u{1F3C3}\u200d\u2640\ufe0f' });
  assert.is(joined.status, 200, JSON.stringify(joined.body));
  assert.is(accepted.body.first_name, 'Zoë-Łucja 山田');

  const renamed = await fetch(`${context.stack.baseUrl}/api/v1/users/${accepted.body.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${(await context.stack.userWithToken(['sharing:write'], { userId: await managerOf(context, accepted.body.id) })).token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ first_name: 'Evil\u202egnp.exe' }),
  });
  assert.is(renamed.status, 422);
  const detail = ((await renamed.json()) as { detail: { loc: string[]; msg: string }[] }).detail;
  assert.equal(detail[0]!.loc, ['body', 'first_name']);
  assert.match(detail[0]!.msg, 'U+202E at character 5');
});

async function managerOf(context: Context, userId: string): Promise<string> {
  return (await context.stack.store.users.get(userId))!.managed_by!;
}

input('an application name refuses control and invisible characters on the API, in the settings form and on the command line', async (context) => {
  const { api } = await personal(context, []);
  for (const [character, codePoint] of REFUSED) {
    const refused = await api.post('/api/v1/applications', { name: `Pacer${character}`, description: null, redirect_uris: null, page: null, generate_secret: false });
    assert.match(validationIssueAt(refused, ['body', 'name']), `${codePoint} at character 6`, codePoint);
  }
  // A trailing BOM is refused, not trimmed away.
  assert.match(validationIssueAt(await api.post('/api/v1/applications', { name: 'Pacer\ufeff' }), ['body', 'name']), 'U+FEFF');
  assert.is((await api.post('/api/v1/applications', { name: '  Pacer Ø  ' })).status, 200);

  const { jar } = context.owner;
  const path = `/account/applications/${context.app.id}`;
  const form = {
    name: 'Coach\u2066app', description: '', url: '', image: '', privacy_statement: '', redirect_uris: 'http://localhost',
    webhook_endpoints: '', webhook_secret: '', capabilities: 'activities',
  };
  const saved = await jar.post(`${path}/settings`, { ...form, csrf: await jar.csrf(path) });
  assert.is(saved.status, 422);
  assert.match(await saved.text(), 'U+2066 at character 6');
  assert.is((await context.stack.store.applications.get(context.app.id))!.name, 'Coach app');

  const env = { DATA_DIR: context.stack.dataDir, BASE_URL: context.stack.baseUrl };
  const cli = runCli(['app', 'create', '--owner', context.owner.id, '--name', 'Pacer\u200bX'], env);
  assert.is(cli.status, 1, cli.stdout);
  assert.match(cli.stderr, 'U+200B at character 6');
  const user = runCli(['user', 'create', '--email', 'esc@example.com', '--first-name', 'A\u001b[31mred'], env);
  assert.is(user.status, 1, user.stdout);
  assert.match(user.stderr, /first_name.*U\+001B at character 2/);
});

input('sign-up refuses a name with a control or invisible character and creates no account', async (context) => {
  const jar = new CookieJar(context.stack.baseUrl);
  const email = 'rtl-signup@example.com';
  const refused = await jar.post('/signup', { email, password: PASSWORD, first_name: 'Ada', last_name: 'Love\u202ecal', csrf: await jar.csrf('/signup') });
  assert.is(refused.status, 422);
  assert.match(await refused.text(), 'U+202E at character 5');
  assert.equal(await context.stack.store.users.find({ email }), []);
});

input('a team name refuses control and invisible characters on the account page', async (context) => {
  const { jar } = context.owner;
  const links = { url: 'https://riders.example', image: 'https://riders.example/logo.png', privacy_statement: 'https://riders.example/privacy' };
  const refused = await jar.post('/account/teams', { name: 'Riders\u202e', description: '', ...links, csrf: await jar.csrf('/account/teams') });
  assert.is(refused.status, 422);
  assert.match(await refused.text(), 'U+202E at character 7');
  assert.equal(await context.stack.store.teams.find({ user_id: context.owner.id }), []);
});

// ---------------------------------------------------------------------------------------------------------
// Size caps

const TIMESTAMP = '2026-03-01T08:00:00+01:00';

input('record fields have size caps: a 10 KB sport, 10 000 result keys and a marker of 10 000 keys are 422s', async (context) => {
  const { api } = await personal(context, ['activities:read', 'activities:write', 'workouts:write']);
  const longSport = `cycling.${'a'.repeat(10_000)}`;
  assert.match(validationIssueAt(await api.post('/api/v1/traces/', { timestamp: TIMESTAMP, sport: longSport }), ['body', 'sport']), /128/);
  assert.match(validationIssueAt(await api.post('/api/v1/tests/', { sport: longSport, start: TIMESTAMP }), ['body', 'sport']), /128/);
  const manyKeys = Object.fromEntries(Array.from({ length: 10_000 }, (_, index) => [`k${index}`, index]));
  assert.match(validationIssueAt(await api.post('/api/v1/tests/', { sport: 'running', start: TIMESTAMP, results: manyKeys }), ['body', 'results']), 'at most 32 keys');
  assert.match(validationIssueAt(await api.post('/api/v1/tests/', { sport: 'running', start: TIMESTAMP, results: { lt1: manyKeys } }), ['body', 'results', 'lt1']), 'at most 32 keys');
  const swf = { sport: longSport, content: [{ type: 'step', effort: 'work', volume: { quantity: 'duration', value: 600 }, intensity: { quantity: 'speed', value: 3 } }] };
  validationIssueAt(await api.post('/api/v1/workouts/schedule', { swf, start: new Date(Date.now() + 86_400_000).toISOString() }), ['body', 'swf', 'sport']);
  const apps = await personal(context, []);
  validationIssueAt(await apps.api.post('/api/v1/applications', { name: 'Long', redirect_uris: [`https://example.com/${'a'.repeat(3000)}`] }), ['body', 'redirect_uris', 0]);

  // The cap is the CSV decoder's: 128 characters pass, 129 do not.
  assert.is((await api.post('/api/v1/traces/', { timestamp: TIMESTAMP, sport: `cycling.${'b'.repeat(120)}` })).status, 200);
  validationIssueAt(await api.post('/api/v1/traces/', { timestamp: TIMESTAMP, sport: `cycling.${'b'.repeat(121)}` }), ['body', 'sport']);

  // What real use sends still passes: a sport newer than the taxonomy, known results with an extra key.
  const created = await api.post('/api/v1/tests/', { sport: 'running.ultra_trail+stationary', start: TIMESTAMP, results: { vo2max: 4200, lt1: { power: 250, note: 'x' }, comment: 'kept out' } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.is(created.body.results.vo2max, 4200);
  assert.is(created.body.results.lt1.power, 250);
});

input('/openapi.json states the caps: sport maxLength, results maxProperties, parameters as named numbers', async (context) => {
  const document = await (await fetch(`${context.stack.baseUrl}/openapi.json`)).json() as any;
  const body = (path: string) => document.paths[path].post.requestBody.content['application/json'].schema;
  const resolve = (schema: any) => (schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema);
  const nonNull = (schema: any) => schema.anyOf?.find((option: any) => option.type !== 'null') ?? schema;
  const trace = resolve(body('/api/v1/traces/'));
  assert.is(nonNull(trace.properties.sport).maxLength, 128);
  const test = resolve(body('/api/v1/tests/'));
  assert.is(nonNull(test.properties.results).maxProperties, 32);
  const schedule = resolve(body('/api/v1/workouts/schedule'));
  const parameters = schedule.properties.parameters;
  assert.is(parameters.maxProperties, 50);
  assert.equal(nonNull(parameters).additionalProperties, { type: 'number' });
});

// ---------------------------------------------------------------------------------------------------------
// Workouts

function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString();
}
const SWF = { sport: 'running', content: [{ type: 'step', effort: 'work', volume: { quantity: 'duration', value: 600 }, intensity: { quantity: 'speed', value: 3.5 } }] };

input('workout parameters are named finite numbers; anything else is a 422 at the offending name', async (context) => {
  const { api } = await personal(context, ['workouts:read', 'workouts:write']);
  const post = (parameters: unknown) => api.post('/api/v1/workouts/schedule', { swf: SWF, start: inDays(2), parameters });
  validationIssueAt(await post({ ftp: '300' }), ['body', 'parameters', 'ftp']);
  validationIssueAt(await post({ zones: { z1: 1 } }), ['body', 'parameters', 'zones']);
  validationIssueAt(await post({ on: true }), ['body', 'parameters', 'on']);
  validationIssueAt(await post({ none: null }), ['body', 'parameters', 'none']);
  validationIssueAt(await post({ list: [1, 2] }), ['body', 'parameters', 'list']);
  validationIssueAt(await post([1, 2]), ['body', 'parameters']);
  assert.match(validationIssueAt(await post(Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`p${index}`, index]))), ['body', 'parameters']), 'at most 50');
  const accepted = await post({ threshold_speed: 4.2, ftp: 300 });
  assert.is(accepted.status, 200, JSON.stringify(accepted.body));
  assert.equal(accepted.body.parameters, { threshold_speed: 4.2, ftp: 300 });
});

input('an app token deletes only the workouts its own application scheduled (404 otherwise), yet reads them all', async (context) => {
  const scopes = ['workouts:read', 'workouts:write'];
  const { userId, api: person } = await personal(context, scopes);
  const appToken = async (appId: string) => jsonClient(context.stack, (await context.stack.userWithToken(scopes, { appId, userId })).token);
  const coach = await appToken(context.app.id);
  const other = await appToken(context.otherApp.id);
  const official = await appToken(context.firstPartyApp.id);
  const schedule = async (client: JsonClient) => {
    const created = await client.post('/api/v1/workouts/schedule', { swf: SWF, start: inDays(3), parameters: null });
    assert.is(created.status, 200, JSON.stringify(created.body));
    return created.body.id as string;
  };

  const coachs = await schedule(coach);
  const stranger = await other.del(`/api/v1/workouts/schedule/${coachs}`);
  assert.is(stranger.status, 404);
  assert.equal(await other.del('/api/v1/workouts/schedule/no-such-workout').then((unknown) => [unknown.status, unknown.body]), [404, stranger.body], 'the same answer as an unknown id');
  assert.is((await other.get(`/api/v1/workouts/schedule/${coachs}`)).body.application_name, 'Coach app');
  assert.ok((await other.get('/api/v1/workouts/schedule')).body.some((workout: { id: string }) => workout.id === coachs));
  assert.is((await coach.del(`/api/v1/workouts/schedule/${coachs}`)).status, 200);

  const personal1 = await schedule(person);
  assert.is((await coach.del(`/api/v1/workouts/schedule/${personal1}`)).status, 404, "a personal token's workout is no app's");
  assert.is((await person.del(`/api/v1/workouts/schedule/${personal1}`)).status, 200);

  const coachs2 = await schedule(coach);
  assert.is((await person.del(`/api/v1/workouts/schedule/${coachs2}`)).status, 200, 'a personal token acts for the person');
  const coachs3 = await schedule(coach);
  assert.is((await official.del(`/api/v1/workouts/schedule/${coachs3}`)).status, 200, 'a first-party application acts for the person');
});

// ---------------------------------------------------------------------------------------------------------
// Prototype keys

input('a __proto__ key anywhere in a JSON body is the interface\'s 422 at that key, and nothing is polluted', async (context) => {
  const { stack } = context;
  const { token } = await stack.userWithToken(['activities:read', 'activities:write'], { appId: context.app.id });
  const top = await sendJson(stack, 'POST', '/api/v1/traces/', token, `{"timestamp":"${TIMESTAMP}","__proto__":{"polluted":true}}`);
  assert.match(validationIssueAt(top, ['body', '__proto__']), '__proto__');
  const nested = await sendJson(stack, 'PUT', '/api/v1/profile/app-metadata', token, '{"a":[{"b":1},{"__proto__":{"polluted":true}}]}');
  validationIssueAt(nested, ['body', 'a', 1, '__proto__']);
  const constructor = await sendJson(stack, 'PUT', '/api/v1/profile/app-metadata', token, '{"constructor":{"prototype":{"polluted":true}}}');
  validationIssueAt(constructor, ['body', 'constructor', 'prototype']);
  // A key merely named constructor or prototype is data.
  const plain = await sendJson(stack, 'PUT', '/api/v1/profile/app-metadata', token, '{"constructor":"a name","prototype":{"v":1}}');
  assert.is(plain.status, 200, JSON.stringify(plain.body));

  const { token: sharing } = await stack.userWithToken(['sharing:write']);
  const managed = await sendJson(stack, 'POST', '/api/v1/users/', sharing, { first_name: 'Kid', last_name: null });
  const form = await fetch(`${stack.baseUrl}/api/v1/users/${managed.body.id}`, {
    method: 'PUT', headers: { authorization: `Bearer ${sharing}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: '__proto__[polluted]=1&constructor[prototype][polluted]=1&first_name=Kid',
  });
  assert.is(form.status, 200);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  assert.is((Object.prototype as Record<string, unknown>).polluted, undefined);
});

input.run();
