/**
 * Traces (interface §4 "Traces"): the list (newest first), create, read, replace, delete, and the calling
 * app's metadata on a trace. Reads resolve `lap`, `activity`, `test` and `test_match` (services/trace-links.ts).
 * Kept honest by test/gateway/traces.test.ts.
 */
import { z } from 'zod';
import type { Filter, TraceRecord } from '../../storage/store.js';
import { dateSchema } from '../../domain/time.js';
import { sportFilters, sportParameters } from '../schemas/activity-filters.js';
import { pageParameters, queryArray, queryString } from '../schemas/query.js';
import { Trace, TraceWrite, type TraceInput } from '../schemas/records.js';
import { ownTrace, presentTraces, traceFromInput, traceListJson } from '../services/traces.js';
import { sportPage } from '../services/sport-page.js';
import { replaceRecord } from '../services/replace-record.js';
import { recordAppMetadataRoutes } from '../app-metadata-routes.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

/** gaps.md: "`limit` up to at least 100 for activities and traces … Defaults: … traces 100". */
export const TRACE_PAGE = { default: 100, max: 1000 } as const;

const ListQuery = z.object({
  start: queryString(dateSchema).optional().describe("Earliest local date of the trace's timestamp (inclusive)"),
  end: queryString(dateSchema).optional().describe("Latest local date of the trace's timestamp (inclusive)"),
  ...pageParameters(TRACE_PAGE),
  ...sportParameters,
  tags: queryArray(z.string().max(200)).optional().describe('The trace must carry all of them'),
});

const TraceParams = z.object({ trace_id: z.string().min(1).max(64).describe("The trace's id") });
const NEWEST_FIRST = { timestamp: -1 } as const;

export function traceRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;

  table.add(
    {
      method: 'get', path: '/api/v1/traces/', operationId: 'listTraces', tag: 'traces',
      summary: 'List traces, newest first', auth: 'bearer', scope: 'activities:read', query: ListQuery,
      responses: { 200: { description: 'Traces', schema: z.array(Trace) } },
    },
    async function listTraces(ctx) {
      const input = ctx.state.input as z.output<typeof ListQuery>;
      const userId = ctx.state.auth.userId;
      const filter: Filter<TraceRecord> = { user_id: userId };
      if (input.start || input.end) filter.local_date = { ...(input.start && { $gte: input.start }), ...(input.end && { $lte: input.end }) };
      if (input.tags?.length) filter.tags = { $all: input.tags };
      const sports = sportFilters(input.sport ?? [], input.sports);
      const page = await sportPage(store.traces, filter, sports, { sort: NEWEST_FIRST, limit: input.limit, offset: input.offset });
      ctx.body = await traceListJson(store, userId, await store.traces.find(page.filter, page.options), ctx.state.auth);
      ctx.type = 'application/json';
    },
  );

  table.add(
    {
      method: 'post', path: '/api/v1/traces/', operationId: 'createTrace', tag: 'traces',
      summary: 'Create a trace', auth: 'bearer', scope: 'activities:write', body: TraceWrite,
      responses: { 200: { description: 'The created trace', schema: Trace }, 404: { description: 'Unknown test_id' } },
    },
    async function createTrace(ctx) {
      const userId = ctx.state.auth.userId;
      const record = await traceFromInput(store, userId, ctx.state.body as TraceInput, null);
      await store.traces.insert(record);
      ctx.body = (await presentTraces(store, userId, [record], ctx.state.auth))[0];
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/traces/{trace_id}', operationId: 'getTrace', tag: 'traces',
      summary: 'One trace', auth: 'bearer', scope: 'activities:read', params: TraceParams,
      responses: { 200: { description: 'The trace', schema: Trace }, 404: { description: 'Unknown trace' } },
    },
    async function getTrace(ctx) {
      const userId = ctx.state.auth.userId;
      const record = await ownTrace(store, ctx.state.input.trace_id, userId);
      ctx.body = (await presentTraces(store, userId, [record], ctx.state.auth))[0];
    },
  );

  table.add(
    {
      method: 'put', path: '/api/v1/traces/{trace_id}', operationId: 'replaceTrace', tag: 'traces',
      summary: 'Replace every field of a trace; an omitted field is cleared, test_id included',
      auth: 'bearer', scope: 'activities:write', params: TraceParams, body: TraceWrite,
      responses: { 200: { description: 'The trace as stored', schema: Trace }, 404: { description: 'Unknown trace or test_id' } },
    },
    async function replaceTrace(ctx) {
      const userId = ctx.state.auth.userId;
      const existing = await ownTrace(store, ctx.state.input.trace_id, userId);
      const record = await traceFromInput(store, userId, ctx.state.body as TraceInput, existing);
      await replaceRecord(store.traces, existing, record);
      ctx.body = (await presentTraces(store, userId, [record], ctx.state.auth))[0];
    },
  );

  table.add(
    {
      method: 'delete', path: '/api/v1/traces/{trace_id}', operationId: 'deleteTrace', tag: 'traces',
      summary: 'Delete a trace', auth: 'bearer', scope: 'activities:write', params: TraceParams,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown trace' } },
    },
    async function deleteTrace(ctx) {
      const record = await ownTrace(store, ctx.state.input.trace_id, ctx.state.auth.userId);
      await store.traces.deleteMany({ id: record.id, user_id: record.user_id });
      ctx.status = 204;
    },
  );

  recordAppMetadataRoutes(table, {
    path: '/api/v1/traces/{trace_id}', noun: 'Trace', tag: 'traces', params: TraceParams,
    collection: store.traces, maxBytes: 1024,
    load: (input, userId) => ownTrace(store, input.trace_id!, userId),
  });
}
