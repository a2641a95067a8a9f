/**
 * The OpenAPI document as client generators see it (issue 16 item 2): resources are named under
 * `components.schemas`; openapi-typescript turns the served document into TypeScript, a small client
 * compiles against it (and a client that misreads a field does not), and runs against the service;
 * file and stream responses carry their media types; the document passes the lint rules in redocly.yaml.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, tempDir, type TestStack } from '../support/stack.js';
import { csvActivity, settled, upload, type SourceBody } from '../support/uploads.js';

interface Context { stack: TestStack; document: Record<string, any>; text: string }
const types = suite<Context>('OpenAPI types and lint');

types.before(async (context) => {
  context.stack = await startStack();
  context.text = await (await context.stack.get('/openapi.json')).text();
  context.document = JSON.parse(context.text) as Record<string, any>;
});
types.after(async (context) => {
  await context.stack?.close();
});

const RESOURCES = ['ActivitySummary', 'ActivityDetails', 'Lap', 'Source', 'Trace', 'TestSummary', 'TestDetails', 'Daily', 'Team', 'Application', 'Page', 'User', 'UserSummary', 'Marker', 'MaxEffort', 'Zones', 'TemplateWeek', 'AccountStatus', 'TokenResponse', 'ValidationError', 'ScheduledWorkout', 'SwfWorkout'];

types('every resource is a named schema, referred to by $ref from its operations', ({ document }) => {
  const names = Object.keys(document.components.schemas as object);
  for (const resource of RESOURCES) assert.ok(names.includes(resource), `components.schemas.${resource}`);
  assert.equal(document.paths['/api/v1/activities/'].get.responses['200'].content['application/json'].schema, { type: 'array', items: { $ref: '#/components/schemas/ActivitySummary' } });
  assert.equal(document.paths['/api/v1/activities/{activity_id}'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/ActivityDetails' });
  assert.not.match(JSON.stringify(document), '$defs');
});

types('Parquet, text and the token endpoint are described as what they are', ({ document }) => {
  assert.equal(document.paths['/api/v1/activities/{activity_id}/mean-max'].get.responses['200'].content, { 'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } } });
  assert.equal(Object.keys(document.paths['/metrics'].get.responses['200'].content), ['text/plain; version=0.0.4']);
  assert.equal(document.paths['/api/v1/oauth/token'].post.security, [{ basic: [] }, {}]);
  assert.is(document.components.securitySchemes.basic.scheme, 'basic');
});

interface Parameter { name: string; in: string; description?: string; deprecated?: boolean; example?: unknown; schema: Record<string, unknown> }

/** Every operation's parameters, as `operationId` → parameters. */
function parametersOf(document: Record<string, any>): [string, Parameter[]][] {
  return Object.values(document.paths as Record<string, Record<string, { operationId: string; parameters?: Parameter[] }>>)
    .flatMap((methods) => Object.values(methods).map((operation): [string, Parameter[]] => [operation.operationId, operation.parameters ?? []]));
}

types('every parameter says what it means; date, window_days and sports are deprecated, and nothing else is', ({ document }) => {
  const all = parametersOf(document).flatMap(([id, parameters]) => parameters.map((parameter) => ({ id, ...parameter })));
  assert.ok(all.length >= 130, `${all.length} parameters`);
  const undescribed = all.filter((parameter) => !parameter.description?.trim()).map((parameter) => `${parameter.id} ${parameter.in} ${parameter.name}`);
  assert.equal(undescribed, []);
  const deprecated = new Set(all.filter((parameter) => parameter.deprecated).map((parameter) => parameter.name));
  assert.equal([...deprecated].sort(), ['date', 'sports', 'window_days']);
  for (const parameter of all.filter((candidate) => ['sports', 'window_days'].includes(candidate.name))) assert.is(parameter.deprecated, true, `${parameter.id} ${parameter.name}`);
  // date is deprecated where it is the end of the longitudinal window, not where it is the profile's day.
  const longitudinal = Object.fromEntries(parametersOf(document));
  for (const id of ['getLongitudinalMeanMax', 'getLongitudinalAccumulatedWorkDuration']) {
    assert.is(longitudinal[id]!.find((parameter) => parameter.name === 'date')!.deprecated, true, `${id} date`);
  }
  assert.is(longitudinal.getIntensityDurationModelPower!.find((parameter) => parameter.name === 'date')!.deprecated, undefined);
});

types("a parameter carries its schema's example, default and format, and its description sits on the parameter", ({ document }) => {
  const meanMax = (document.paths['/api/v1/activities/longitudinal-mean-max'].get.parameters as Parameter[]);
  const durations = meanMax.find((parameter) => parameter.name === 'durations')!;
  assert.is(durations.example, '5,60,300,1200');
  assert.match(durations.description!, '19 default durations');
  assert.is(durations.schema.description, undefined);
  assert.is(durations.schema.examples, undefined);
  const start = meanMax.find((parameter) => parameter.name === 'start')!;
  assert.equal(start.schema, { type: 'string', format: 'date' });
  assert.is(start.example, '2026-01-01');
  const list = (document.paths['/api/v1/activities/'].get.parameters as Parameter[]);
  assert.is(list.find((parameter) => parameter.name === 'limit')!.schema.default, 50);
  assert.match(list.find((parameter) => parameter.name === 'limit')!.description!, 'default 50');
});

types('the document passes the lint rules of redocly.yaml, which record the deliberate trailing slashes', async ({ text }) => {
  const config = await loadConfig({ configPath: path.join(REPO_ROOT, 'redocly.yaml') });
  const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
  const errors = problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
  assert.equal(errors, []);
  assert.ok(Object.keys(JSON.parse(text).paths as object).some((route) => route.endsWith('/') && route !== '/'), 'the document has trailing-slash paths for the rule to allow');
});

/** Type-checks `files` (name → source) with the strict options a client project would use; returns the diagnostics. */
function compile(dir: string, files: Record<string, string>): string[] {
  for (const [name, source] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), source);
  const program = ts.createProgram(Object.keys(files).filter((name) => name.endsWith('.ts')).map((name) => path.join(dir, name)), {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], skipLibCheck: false, types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

const CLIENT = `import type { components, paths } from './api.js';

export type Activity = components['schemas']['ActivitySummary'];
type ListQuery = NonNullable<paths['/api/v1/activities/']['get']['parameters']['query']>;
type ListBody = paths['/api/v1/activities/']['get']['responses'][200]['content']['application/json'];

export async function listActivities(base: string, token: string, query: ListQuery): Promise<Activity[]> {
  const params = new URLSearchParams();
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  for (const sport of query.sport ?? []) params.append('sport', sport);
  const response = await fetch(base + '/api/v1/activities/?' + params.toString(), { headers: { authorization: 'Bearer ' + token } });
  const body = (await response.json()) as ListBody;
  return body;
}

export function describe(activity: Activity): string {
  const power = activity.summary?.['power']?.mean ?? null;
  return activity.sport + ' ' + activity.start + ' ' + activity.duration + (power === null ? '' : ' ' + power + ' W');
}
`;

types('openapi-typescript generates types a small client compiles against, and that client runs against the service', async ({ stack, document }) => {
  const dir = tempDir('threshold-openapi-client-');
  try {
    const generated = astToString(await openapiTS(document as never));
    assert.match(generated, 'ActivitySummary: {');
    assert.equal(compile(dir, { 'api.d.ts': generated, 'client.ts': CLIENT, 'package.json': '{"type":"module"}' }), []);

    const misread = CLIENT.replace("activity.sport + ' '", "activity.sports + ' '");
    const errors = compile(dir, { 'client.ts': misread });
    assert.ok(errors.some((error) => error.includes("Property 'sports' does not exist")), errors.join('\n'));
    const wrongQuery = CLIENT.replace("query.limit !== undefined", "query.limits !== undefined");
    assert.ok(compile(dir, { 'client.ts': wrongQuery }).length > 0, 'an unknown query parameter does not compile');

    // The same client, compiled to JavaScript, against the running service.
    const { token } = await stack.userWithToken(['activities:read', 'activities:write']);
    const accepted = ((await (await upload(stack, token, [{ name: 'ride.csv', bytes: csvActivity() }])).json()) as { sources: SourceBody[] }).sources;
    await settled(stack, token, accepted[0]!.id);
    const javascript = ts.transpileModule(CLIENT, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 } }).outputText;
    fs.writeFileSync(path.join(dir, 'client.mjs'), javascript);
    const client = (await import(path.join(dir, 'client.mjs'))) as { listActivities: (...args: unknown[]) => Promise<unknown[]>; describe: (activity: unknown) => string };
    const activities = await client.listActivities(stack.baseUrl, token, { limit: 5, sport: ['cycling'] });
    assert.is(activities.length, 1);
    assert.is(client.describe(activities[0]), 'cycling.road 2024-05-01T05:00:00Z PT2M 159.5 W');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

types('additions beyond the interface live under /api/v1/ext/ and are marked as extensions', ({ document }) => {
  for (const [route, operations] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(operations)) {
      assert.is(op['x-threshold-extension'] === true, route.startsWith('/api/v1/ext/'), `${method.toUpperCase()} ${route}`);
    }
  }
});

types.run();
