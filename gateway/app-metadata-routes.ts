/**
 * `PUT` and `DELETE …/{id}/app-metadata` on one kind of record (interface §2 "App metadata"): the calling
 * app's own object, set or removed through services/app-metadata.ts. "Only an app token may read or write
 * it" (403 otherwise); an unknown or another user's record is a 404; limits per §8 (413, 422). Declared once
 * here for activities, traces and tests.
 */
import type { z } from 'zod';
import type { Collection } from '../storage/store.js';
import { AppMetadataBody, putAppMetadata, requireAppToken, type WithMetadata } from './services/app-metadata.js';
import type { RouteTable } from './route-table.js';

export interface RecordMetadataSpec<T extends WithMetadata> {
  /** The record's path, e.g. `/api/v1/traces/{trace_id}`. */
  path: string;
  /** Names the operations: `put${noun}AppMetadata`, `delete${noun}AppMetadata`; lowercased in summaries. */
  noun: string;
  tag: string;
  params: z.ZodType;
  collection: Collection<T>;
  /** The caller's record named by the path, or a NotFoundError. */
  load(input: Record<string, string>, userId: string): Promise<T>;
  maxBytes: number;
}

export function recordAppMetadataRoutes<T extends WithMetadata>(table: RouteTable, spec: RecordMetadataSpec<T>): void {
  const noun = spec.noun.toLowerCase();
  const kb = `${spec.maxBytes / 1024} KB`;
  table.add(
    {
      method: 'put', path: `${spec.path}/app-metadata`, operationId: `put${spec.noun}AppMetadata`, tag: spec.tag,
      summary: `Replace the calling app's metadata on ${article(noun)} ${noun} (app tokens only; at most ${kb}, 32 levels)`,
      auth: 'bearer', scope: 'activities:write', params: spec.params, body: AppMetadataBody,
      responses: {
        200: { description: "The app's metadata as stored", schema: AppMetadataBody },
        403: { description: 'Not an app token' },
        404: { description: `Unknown ${noun}` },
        413: { description: `Metadata larger than ${kb}` },
      },
    },
    async function putRecordMetadata(ctx) {
      const applicationId = requireAppToken(ctx.state.auth);
      const record = await spec.load(ctx.state.input, ctx.state.auth.userId);
      ctx.body = await putAppMetadata(spec.collection, record, applicationId, ctx.state.body, { maxBytes: spec.maxBytes });
    },
  );

  table.add(
    {
      method: 'delete', path: `${spec.path}/app-metadata`, operationId: `delete${spec.noun}AppMetadata`, tag: spec.tag,
      summary: `Remove the calling app's metadata from ${article(noun)} ${noun} (app tokens only)`,
      auth: 'bearer', scope: 'activities:write', params: spec.params,
      responses: { 204: { description: 'Removed' }, 403: { description: 'Not an app token' }, 404: { description: `Unknown ${noun}` } },
    },
    async function deleteRecordMetadata(ctx) {
      const applicationId = requireAppToken(ctx.state.auth);
      const record = await spec.load(ctx.state.input, ctx.state.auth.userId);
      await putAppMetadata(spec.collection, record, applicationId, null, { maxBytes: spec.maxBytes });
      ctx.status = 204;
    },
  );
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? 'an' : 'a';
}
