/**
 * Markers (gaps.md "Paths the interface leaves out" and "Shapes"): `GET /api/v1/profile/markers`
 * lists what was written and what tests measured (services/markers.ts), `POST` writes a declared or
 * external value, `DELETE /{marker_id}` removes a written one. Rules, each a 422 naming it: a root sport;
 * a known marker in a metric it admits (domain/markers.ts); value > 0; provenance `declared` or `external`
 * ("measured values come only from tests"); `pinned` only when declared. A measured row is deleted
 * through its test: DELETE on its id is a 409. Kept honest by test/gateway/markers.test.ts.
 */
import { z } from 'zod';
import { dateSchema } from '../../domain/time.js';
import { MARKER_METRICS, MARKER_NAMES, markerProblem } from '../../domain/markers.js';
import { rootSportSchema } from '../schemas/root-sport.js';
import { queryArray } from '../schemas/query.js';
import { checkDateRange, dateRangeParameters } from '../schemas/date-range.js';
import { MarkerRow, presentMarker } from '../presenters/marker.js';
import { findMarkers, writeMarker } from '../services/markers.js';
import { measuredMarkers } from '../services/measured-markers.js';
import { HttpError, NotFoundError } from '../errors.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const MEASURED_RULE = 'measured values come only from tests: write a test with results instead';

const ListQuery = z.object({
  sport: queryArray(rootSportSchema, { max: 20 }).optional().describe('Root sports; match any'),
  marker: queryArray(z.enum(MARKER_NAMES), { max: MARKER_NAMES.length }).optional().describe('Marker names; match any'),
  ...dateRangeParameters,
});

/** Clients send every key; null means absent (gaps.md "Wire conventions"). */
const MarkerWrite = z
  .object({
    sport: rootSportSchema.describe('A root sport (cycling, running, xc_skiing); sub-sports are not accepted'),
    marker: z.enum(MARKER_NAMES),
    metric: z.enum(MARKER_METRICS).describe('power (W), speed (m/s), heart_rate (bpm), vo2 (mL/min absolute); w_prime is power in kJ, d_prime speed in m'),
    value: z.number().positive().describe("In the metric's unit"),
    date: dateSchema.describe('When the value was determined (YYYY-MM-DD)'),
    provenance: z
      .enum(['declared', 'external'], { error: (issue) => (issue.input === 'measured' ? MEASURED_RULE : undefined) })
      .describe('declared (a person set it) or external (a device or another system); measured values are test results'),
    pinned: z.boolean().nullish().describe('Declared only: a pinned value never goes stale (default false)'),
  })
  .superRefine((body, ctx) => {
    const problem = markerProblem(body.marker, body.metric, body.value);
    if (problem) ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message, input: body[problem.field] });
    if (body.pinned && body.provenance !== 'declared') {
      ctx.addIssue({ code: 'custom', path: ['pinned'], message: 'pinned is allowed only with provenance declared', input: body.pinned });
    }
  });

const MarkerParams = z.object({ marker_id: z.string().min(1).max(64).describe("The written marker's id") });

export function markerRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/profile/markers', operationId: 'listMarkers', tag: 'profile',
      summary: 'Markers as written and as measured by tests (not what wins), newest first', auth: 'bearer', scope: 'activities:read', query: ListQuery,
      responses: { 200: { description: 'Marker rows by date, then creation, newest first', schema: z.array(MarkerRow) } },
    },
    async function listMarkers(ctx) {
      const input = ctx.state.input as z.output<typeof ListQuery>;
      checkDateRange(input);
      const rows = await findMarkers(deps, ctx.state.auth.userId, {
        ...(input.sport && { sports: input.sport }), ...(input.marker && { markers: input.marker }),
        ...(input.start && { start: input.start }), ...(input.end && { end: input.end }),
      });
      ctx.body = rows.map(presentMarker);
    },
  );

  table.add(
    {
      method: 'post', path: '/api/v1/profile/markers', operationId: 'createMarker', tag: 'profile',
      summary: 'Write a declared or external marker value', auth: 'bearer', scope: 'activities:write', body: MarkerWrite,
      responses: { 200: { description: 'The row as stored', schema: MarkerRow } },
    },
    async function createMarker(ctx) {
      const body = ctx.state.body as z.output<typeof MarkerWrite>;
      const record = await writeMarker(deps.store, ctx.state.auth.userId, { ...body, pinned: body.pinned ?? false }, ctx.state.auth.applicationId);
      ctx.body = presentMarker(record);
    },
  );

  table.add(
    {
      method: 'delete', path: '/api/v1/profile/markers/{marker_id}', operationId: 'deleteMarker', tag: 'profile',
      summary: 'Delete a written marker (a measured one is deleted through its test)', auth: 'bearer', scope: 'activities:write', params: MarkerParams,
      responses: {
        204: { description: 'Deleted' },
        404: { description: 'Unknown marker' },
        409: { description: "A test's result: change or delete the test instead" },
      },
    },
    async function deleteMarker(ctx) {
      const { marker_id: id } = ctx.state.input as z.output<typeof MarkerParams>;
      const userId: string = ctx.state.auth.userId;
      if ((await deps.store.markers.deleteMany({ id, user_id: userId })) > 0) {
        ctx.status = 204;
        return;
      }
      const measured = (await measuredMarkers(deps.store, userId, {}, deps.engine)).find((row) => row.id === id);
      if (measured) {
        throw new HttpError(409, `marker ${id} is measured by test ${measured.test_id}: change that test's results or delete the test`, { code: 'measured_marker' });
      }
      throw new NotFoundError('Marker not found');
    },
  );
}
