/**
 * Tests, the fitness assessments (gaps.md "Tests"): the list (newest first, `limit` ≤ 50), create, details
 * (`?traces=auto|linked`, the overlapping activities, derived LT1/LT2), replace, delete, and the calling
 * app's metadata on a test. Each write records its outbox event (`test_created`, `test_updated`,
 * `test_deleted`) in the same batch. Deleting a test unlinks its traces (their `test_id` becomes null; the
 * traces stay, as measurements in their own right). Kept honest by test/gateway/tests-records.test.ts.
 */
import { z } from 'zod';
import { BatchConditionError, type Filter, type TestRecord } from '../../storage/store.js';
import { dateSchema } from '../../domain/time.js';
import { newEvent } from '../../storage/events.js';
import { sportFilters, sportParameters } from '../schemas/activity-filters.js';
import { pageParameters, queryArray, queryString } from '../schemas/query.js';
import { TestDetails, TestSummary, TestWrite, type TestInput } from '../schemas/records.js';
import { completeResults, presentTestSummary } from '../presenters/test-record.js';
import { presentActivitySummary } from '../presenters/activity.js';
import { overlappingActivities, ownTest, testFromInput, testTraces } from '../services/test-records.js';
import { presentTraces } from '../services/traces.js';
import { tracesByActivity } from '../services/activity-traces.js';
import { deriveLactateResults } from '../services/lactate-results.js';
import { sportPage } from '../services/sport-page.js';
import { recordAppMetadataRoutes } from '../app-metadata-routes.js';
import { HttpError } from '../errors.js';
import type { Principal } from '../auth/access-tokens.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

/** gaps.md: "`limit` up to … 50 for tests … Defaults: … tests 50". */
export const TEST_PAGE = { default: 50, max: 50 } as const;

const ListQuery = z.object({
  start: queryString(dateSchema).optional().describe("Earliest local date of the test's start (inclusive)"),
  end: queryString(dateSchema).optional().describe("Latest local date of the test's start (inclusive)"),
  ...sportParameters,
  tags: queryArray(z.string().max(200)).optional().describe('The test must carry all of them'),
  created_by: queryString(z.string().min(1).max(64)).optional().describe("Only tests written by this application id ('user': with a personal token)"),
  ...pageParameters(TEST_PAGE),
});

const TestParams = z.object({ test_id: z.string().min(1).max(64).describe("The test's id") });
const DetailsQuery = z.object({
  traces: queryString(z.enum(['auto', 'linked'])).default('auto')
    .describe('auto: traces in the time range plus traces linked to this test minus traces linked to another; linked: only linked ones'),
});
const NEWEST_FIRST = { start: -1 } as const;

export function testRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;

  table.add(
    {
      method: 'get', path: '/api/v1/tests/', operationId: 'listTests', tag: 'tests',
      summary: 'List tests, newest first', auth: 'bearer', scope: 'activities:read', query: ListQuery,
      responses: { 200: { description: 'Test summaries', schema: z.array(TestSummary) } },
    },
    async function listTests(ctx) {
      const input = ctx.state.input as z.output<typeof ListQuery>;
      const filter: Filter<TestRecord> = { user_id: ctx.state.auth.userId };
      if (input.start || input.end) filter.local_date = { ...(input.start && { $gte: input.start }), ...(input.end && { $lte: input.end }) };
      if (input.tags?.length) filter.tags = { $all: input.tags };
      if (input.created_by) filter.created_by = input.created_by;
      const sports = sportFilters(input.sport ?? [], input.sports);
      const page = await sportPage(store.tests, filter, sports, { sort: NEWEST_FIRST, limit: input.limit, offset: input.offset });
      const records = await store.tests.find(page.filter, page.options);
      ctx.body = records.map((record) => presentTestSummary(record, ctx.state.auth));
    },
  );

  table.add(
    {
      method: 'post', path: '/api/v1/tests/', operationId: 'createTest', tag: 'tests',
      summary: 'Create a test (end defaults to start + 3 h)', auth: 'bearer', scope: 'activities:write', body: TestWrite,
      responses: { 200: { description: 'The created test', schema: TestSummary } },
    },
    async function createTest(ctx) {
      const record = testFromInput(ctx.state.auth.userId, ctx.state.body as TestInput, ctx.state.auth, null);
      await store.batch([{ collection: 'tests', insert: record }, { collection: 'events', insert: newEvent(record.user_id, 'test_created', record.id) }]);
      deps.wakeEvents?.();
      ctx.body = presentTestSummary(record, ctx.state.auth);
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/tests/{test_id}', operationId: 'getTest', tag: 'tests',
      summary: 'One test with its traces and the activities overlapping it', auth: 'bearer', scope: 'activities:read',
      params: TestParams, query: DetailsQuery,
      responses: { 200: { description: 'Test details', schema: TestDetails }, 404: { description: 'Unknown test' } },
    },
    async function getTest(ctx) {
      const input = ctx.state.input as z.output<typeof DetailsQuery> & { test_id: string };
      const test = await ownTest(store, input.test_id, ctx.state.auth.userId);
      ctx.body = await testDetails(deps, test, input.traces, ctx.state.auth);
    },
  );

  table.add(
    {
      method: 'put', path: '/api/v1/tests/{test_id}', operationId: 'replaceTest', tag: 'tests',
      summary: 'Replace every field of a test; an omitted field is cleared (end: start + 3 h)',
      auth: 'bearer', scope: 'activities:write', params: TestParams, body: TestWrite,
      responses: { 200: { description: 'The test as stored', schema: TestSummary }, 404: { description: 'Unknown test' } },
    },
    async function replaceTest(ctx) {
      const existing = await ownTest(store, ctx.state.input.test_id, ctx.state.auth.userId);
      const record = testFromInput(existing.user_id, ctx.state.body as TestInput, ctx.state.auth, existing);
      const { id: _id, user_id: _owner, ...fields } = record; // the filter names both; a change may not move a record between users
      // Conditional on the version read: a concurrent write in between is a 409, and then no event is written.
      try {
        await store.batch([
          { collection: 'tests', update: { id: existing.id, user_id: existing.user_id, updated_at: existing.updated_at }, change: { set: fields }, expect: 1 },
          { collection: 'events', insert: newEvent(record.user_id, 'test_updated', record.id) },
        ]);
      } catch (error) {
        if (error instanceof BatchConditionError) throw new HttpError(409, 'the test changed while it was replaced; retry', { code: 'conflict' });
        throw error;
      }
      deps.wakeEvents?.();
      ctx.body = presentTestSummary(record, ctx.state.auth);
    },
  );

  table.add(
    {
      method: 'delete', path: '/api/v1/tests/{test_id}', operationId: 'deleteTest', tag: 'tests',
      summary: 'Delete a test; its linked traces stay, unlinked', auth: 'bearer', scope: 'activities:write', params: TestParams,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown test' } },
    },
    async function deleteTest(ctx) {
      const test = await ownTest(store, ctx.state.input.test_id, ctx.state.auth.userId);
      await store.batch([
        { collection: 'traces', update: { user_id: test.user_id, test_id: test.id }, change: { set: { test_id: null } } },
        { collection: 'tests', delete: { id: test.id, user_id: test.user_id } },
        { collection: 'events', insert: newEvent(test.user_id, 'test_deleted', test.id) },
      ]);
      deps.wakeEvents?.();
      ctx.status = 204;
    },
  );

  recordAppMetadataRoutes(table, {
    path: '/api/v1/tests/{test_id}', noun: 'Test', tag: 'tests', params: TestParams,
    collection: store.tests, maxBytes: 1024,
    load: (input, userId) => ownTest(store, input.test_id!, userId),
  });
}

/** Details: the summary (LT1/LT2 derived from the linked traces where the results give none), traces, activities. */
async function testDetails(deps: GatewayDeps, test: TestRecord, mode: 'auto' | 'linked', principal: Principal) {
  const { store } = deps;
  const [traces, activities] = await Promise.all([testTraces(store, test, mode), overlappingActivities(store, test)]);
  const linked = traces.filter((trace) => trace.test_id === test.id);
  const [results, presentedTraces, activityTraces] = await Promise.all([
    deriveLactateResults(deps, test, completeResults(test.results), linked),
    presentTraces(store, test.user_id, traces, principal),
    tracesByActivity(store, test.user_id, activities, principal),
  ]);
  return {
    ...presentTestSummary(test, principal, results),
    traces: presentedTraces,
    activities: activities.map((activity) => presentActivitySummary(activity, principal, activityTraces.get(activity.id) ?? [])),
  };
}

