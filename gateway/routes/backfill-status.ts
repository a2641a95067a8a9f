/**
 * `GET /api/v1/activities/backfill-status` (interface §4, §8): NDJSON, one complete JSON object per line,
 * a line at once and then every BACKFILL_STATUS_INTERVAL_MS ("about every few seconds"), closing after
 * BACKFILL_STATUS_DURATION_MS ("the stream closes after 60 seconds"; clients may reconnect). Scope: the
 * activities read scope.
 *
 * Update item: `{"backfill_loaded_until": "2024-05-01T07:30:00"}`, "a timestamp (no UTC offset) of the
 * earliest activity date loaded so far", written in UTC; while several providers backfill, the one that has
 * come least far back speaks (the date up to which every connected history is loaded); once none is
 * backfilling, the earliest activity date any of them loaded (a finished backfill reports its earliest
 * activity, not the history horizon); null before anything is loaded, with no connection, or when no
 * history held an activity.
 * Error item (its fields are ours: interface §4 shows none): `{"error": {"provider", "code", "message",
 * "at"}}`, written once per problem a connection's sync met (codes rate_limited, download_failed,
 * authorization_revoked, backfill_failed, permission_missing — history skipped because the user did not
 * grant it at the provider, Garmin's HISTORICAL_DATA_EXPORT; `at` a UTC timestamp without offset, like the
 * update item).
 * Kept honest by test/gateway/backfill-status.test.ts and test/gateway/backfill-crash.test.ts.
 */
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import type { ConnectionRecord } from '../../storage/store.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const UpdateItem = z.object({ backfill_loaded_until: z.string().nullable().describe('Earliest activity date loaded so far, UTC, no offset (YYYY-MM-DDTHH:MM:SS)') });
const ErrorItem = z.object({
  error: z.object({
    provider: z.string(), code: z.string().describe('rate_limited, download_failed, authorization_revoked, backfill_failed or permission_missing (history skipped: a permission not granted at the provider)'),
    message: z.string(), at: z.string().describe('When it happened, UTC, no offset'),
  }),
});

export function backfillStatusRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/activities/backfill-status', operationId: 'backfillStatus', tag: 'activities',
      summary: 'NDJSON stream of the history backfill: an update every few seconds, error items when a sync meets a problem; closes after 60 s',
      auth: 'bearer', scope: 'activities:read',
      responses: { 200: { description: 'One JSON object per line: update items and error items', mediaType: 'application/x-ndjson', schema: z.union([UpdateItem, ErrorItem]) } },
    },
    async function backfillStatus(ctx) {
      const userId: string = ctx.state.auth.userId;
      const stream = new PassThrough();
      const sent = new Map<string, number>();
      let closed = false;
      const tick = async (): Promise<void> => {
        const connections = await deps.store.connections.find({ user_id: userId });
        if (closed) return;
        for (const connection of connections) {
          const problem = connection.sync_error;
          if (problem && sent.get(connection.id) !== problem.at) {
            sent.set(connection.id, problem.at);
            stream.write(`${JSON.stringify({ error: { provider: connection.provider, code: problem.code, message: problem.message, at: naive(problem.at) } })}\n`);
          }
        }
        stream.write(`${JSON.stringify({ backfill_loaded_until: loadedUntil(connections) })}\n`);
      };
      const finish = (): void => {
        if (closed) return;
        closed = true;
        clearInterval(timer);
        clearTimeout(stop);
        stream.end();
      };
      const safeTick = () => void tick().catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'backfill-status: reading connections failed');
        finish();
      });
      const timer = setInterval(safeTick, deps.config.backfillStatusIntervalMs);
      const stop = setTimeout(finish, deps.config.backfillStatusDurationMs);
      ctx.req.once('close', finish);
      ctx.status = 200;
      ctx.type = 'application/x-ndjson';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = stream;
      safeTick();
    },
  );
}

/**
 * While live connections backfill: the date every one of them is loaded back to (the latest of their
 * loaded-until dates; null while one has loaded nothing yet). A finished backfill is loaded back to its
 * horizon whatever its earliest activity, so it holds none of them back; once none is backfilling, the
 * earliest activity date loaded.
 */
function loadedUntil(connections: ConnectionRecord[]): string | null {
  const live = connections.filter((connection) => connection.status !== 'disconnected');
  const backfilling = live.filter((connection) => !connection.backfill_done);
  if (backfilling.length > 0) {
    if (backfilling.some((connection) => connection.backfill_loaded_until === null)) return null;
    return naive(Math.max(...backfilling.map((connection) => connection.backfill_loaded_until!)));
  }
  const loaded = live.flatMap((connection) => (connection.backfill_loaded_until === null ? [] : [connection.backfill_loaded_until]));
  return loaded.length === 0 ? null : naive(Math.min(...loaded));
}

/** UTC, ISO 8601 without offset or fraction: `2024-05-01T07:30:00`. */
function naive(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}
