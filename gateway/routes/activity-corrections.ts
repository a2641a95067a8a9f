/**
 * Corrections of an activity, an extension beyond the interface (issue 28 item 5; route-table.ts
 * EXTENSION_PREFIX):
 *
 *   GET    /api/v1/ext/activities/{activity_id}   {activity_id, sport, tags, notes}       activities:read
 *   PATCH  /api/v1/ext/activities/{activity_id}   any of sport, tags, notes → the same     activities:write
 *   DELETE /api/v1/ext/activities/{activity_id}   the activity, its analyses, its source   activities:write
 *                                                 when no other activity uses it → 204
 *
 * The interface's own objects keep their shape: a corrected sport and tags show in the activity's `sport` and
 * `tags` everywhere, and notes only here. Each write sends `activity_updated` or `activity_deleted` as
 * webhooks and the event feed carry every change. Rules of input: schemas/activity-corrections.ts; who may
 * write: services/activity-corrections.ts. Kept honest by test/gateway/activity-corrections.test.ts.
 */
import { z } from 'zod';
import { ActivityCorrections, ActivityCorrectionWrite, type ActivityCorrectionInput } from '../schemas/activity-corrections.js';
import { applyCorrection, presentCorrections, removeActivity } from '../services/activity-corrections.js';
import { ownActivity } from '../services/activities.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const PATH = '/api/v1/ext/activities/{activity_id}';
const ActivityParams = z.object({ activity_id: z.string().min(1).max(64).describe("The activity's id") });
const WRITE_RULE = "an application's token only on activities of files that application uploaded (403 otherwise)";

export function activityCorrectionRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: PATH, operationId: 'getActivityCorrections', tag: 'activities', extension: true,
      summary: "An activity's sport, tags and notes", auth: 'bearer', scope: 'activities:read', params: ActivityParams,
      responses: { 200: { description: 'The corrections view', schema: ActivityCorrections }, 404: { description: 'Unknown activity' } },
    },
    async function getActivityCorrections(ctx) {
      ctx.body = presentCorrections(await ownActivity(deps, ctx.state.input.activity_id, ctx.state.auth.userId));
    },
  );

  table.add(
    {
      method: 'patch', path: PATH, operationId: 'correctActivity', tag: 'activities', extension: true,
      summary: `Change an activity's sport, tags or notes; ${WRITE_RULE}`,
      auth: 'bearer', scope: 'activities:write', params: ActivityParams, body: ActivityCorrectionWrite,
      responses: {
        200: { description: 'The activity as stored', schema: ActivityCorrections },
        403: { description: 'Missing scope, or an application correcting what it did not upload' },
        404: { description: 'Unknown activity' },
        409: { description: 'A concurrent write kept winning; retry' },
      },
    },
    async function correctActivity(ctx) {
      const record = await applyCorrection(deps, ctx.state.auth, ctx.state.input.activity_id, ctx.state.body as ActivityCorrectionInput);
      ctx.body = presentCorrections(record);
    },
  );

  table.add(
    {
      method: 'delete', path: PATH, operationId: 'deleteActivity', tag: 'activities', extension: true,
      summary: `Delete an activity with its series and analyses, and its source when no other activity comes from it; ${WRITE_RULE}`,
      auth: 'bearer', scope: 'activities:write', params: ActivityParams,
      responses: {
        204: { description: 'Deleted' },
        403: { description: 'Missing scope, or an application deleting what it did not upload' },
        404: { description: 'Unknown activity' },
      },
    },
    async function deleteActivity(ctx) {
      await removeActivity(deps, ctx.state.auth, ctx.state.input.activity_id);
      ctx.status = 204;
    },
  );
}
