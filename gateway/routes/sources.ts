/**
 * Uploads and their sources: `POST /api/v1/activities/upload` (multipart, repeated `files`, up to 10;
 * "Each file gets its own 202 response entry with status processing") and the source listing under
 * /profile/sources/ where processing outcomes show.
 */
import { z } from 'zod';
import type { SourceRecord } from '../../storage/store.js';
import { readMultipartFiles } from '../multipart.js';
import { presentSource } from '../presenters/source.js';
import { Source } from '../schemas/resources.js';
import { pageParameters, queryString } from '../schemas/query.js';
import { listSources as sourcesOf, MAX_FILES_PER_UPLOAD, ownSource } from '../services/sources.js';
import { acceptSource } from '../../storage/sources.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const UploadBody = z.object({
  files: z.array(z.string().meta({ format: 'binary' })).min(1).max(MAX_FILES_PER_UPLOAD).describe(`FIT or CSV files, up to ${MAX_FILES_PER_UPLOAD}`),
});

const ListQuery = z.object({
  status: queryString(z.enum(['processing', 'processed', 'failed'])).optional().describe('Only sources in this state'),
  origin: queryString(z.enum(['manual_upload', 'garmin_connect', 'intervals_icu', 'wahoo'])).optional().describe('Only sources that came this way: uploaded by hand, or from that provider'),
  ...pageParameters({ default: 50, max: 1000 }),
});

const SourceParams = z.object({ source_id: z.string().min(1).max(64).describe("The upload source's id (each file's entry in the upload's 202 answer)") });

export function sourceRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'post', path: '/api/v1/activities/upload', operationId: 'uploadActivities', tag: 'activities',
      summary: 'Upload FIT or CSV files; each becomes a source processed in the background',
      auth: 'bearer', scope: 'activities:write',
      body: UploadBody, bodyMediaType: 'multipart/form-data',
      responses: {
        202: { description: 'One source per file, status processing (or the existing source of a file uploaded before)', schema: z.object({ sources: z.array(Source) }) },
        413: { description: `A file is larger than the limit (MAX_UPLOAD_BYTES, default 64 MiB)` },
      },
    },
    async function uploadActivities(ctx) {
      const files = await readMultipartFiles(ctx, { field: 'files', maxFiles: MAX_FILES_PER_UPLOAD, maxFileBytes: deps.config.maxUploadBytes });
      const sources: SourceRecord[] = [];
      for (const file of files) {
        sources.push(await acceptSource(deps.store, ctx.state.auth.userId, file, { applicationId: ctx.state.auth.applicationId }));
      }
      deps.wakeJobs?.();
      ctx.status = 202;
      ctx.body = { sources: sources.map(presentSource) };
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/profile/sources/', operationId: 'listSources', tag: 'profile',
      summary: 'Upload sources, newest first', auth: 'bearer', scope: 'activities:read', query: ListQuery,
      responses: { 200: { description: 'Sources', schema: z.array(Source) } },
    },
    async function listSources(ctx) {
      const input = ctx.state.input as z.output<typeof ListQuery>;
      const records = await sourcesOf(deps.store, ctx.state.auth.userId, input);
      ctx.body = records.map(presentSource);
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/profile/sources/{source_id}', operationId: 'getSource', tag: 'profile',
      summary: 'One upload source with its status, activity ids and error', auth: 'bearer', scope: 'activities:read', params: SourceParams,
      responses: { 200: { description: 'The source', schema: Source }, 404: { description: 'Unknown source' } },
    },
    async function getSource(ctx) {
      const record = await ownSource(deps.store, ctx.state.auth.userId, ctx.state.input.source_id);
      ctx.body = presentSource(record);
    },
  );
}
