/**
 * POST /api/v1/pages, GET and DELETE /api/v1/pages/{slug}, PUT /api/v1/pages/{slug}/deploy (interface §4
 * "Pages"; gaps.md "Pages": create and deploy take multipart form data, create also JSON or a form;
 * deploy's repeated `files` field carries each part's filename as its relative path). Only the owner of
 * the page's application sees or changes it; anyone else gets 404. A taken or invalid slug on create is
 * 400. A deploy beyond PAGE_MAX_FILES or PAGE_MAX_BYTES is 413, a bad path 422, and either leaves the
 * previous deploy as it was. Kept honest by test/gateway/pages-api.test.ts.
 */
import busboy from 'busboy';
import type { Context } from 'koa';
import type { PageRecord } from '../../storage/store.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { HttpError, NotFoundError, ValidationError } from '../errors.js';
import { actForPerson } from '../middleware/act-for-person.js';
import { parseBody } from '../middleware/parse-body.js';
import { readMultipartFiles } from '../multipart.js';
import { presentPage } from '../presenters/application.js';
import { CreatePageBody, DeployBody, Page, PageSlugParams } from '../schemas/applications.js';
import { attachPage, deletePage, deployPage, livePage, slugOrThrow } from '../services/pages.js';

const FORBIDDEN = { description: 'A delegated token, or a token of another person\'s application' };

export function pageRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store, config } = deps;
  const forPerson = actForPerson(store);
  const parseJsonOrForm = parseBody();

  table.add(
    {
      method: 'post', path: '/api/v1/pages', operationId: 'createPage', tag: 'pages', summary: 'Creates a page for one of the caller\'s applications',
      auth: 'bearer', body: CreatePageBody, bodyMediaType: 'multipart/form-data',
      responses: {
        200: { description: 'The page', schema: Page }, 400: { description: 'The slug is invalid or taken, or the application already has a page' },
        403: FORBIDDEN, 404: { description: 'No such application of the caller' }, 422: { description: 'application_id or slug missing' },
      },
    },
    forPerson,
    async function createPage(ctx) {
      const fields = ctx.is('multipart/form-data') ? await readMultipartFields(ctx) : await jsonOrFormFields(ctx);
      const missing = (['application_id', 'slug'] as const).filter((name) => typeof fields[name] !== 'string');
      if (missing.length > 0) throw new ValidationError(missing.map((name) => ({ loc: ['body', name], msg: 'Field required', type: 'missing' })));
      const application = await store.applications.get(String(fields.application_id));
      if (!application || application.user_id !== ctx.state.auth.userId) throw new NotFoundError('Application not found');
      const linked = await attachPage(store, application, slugOrThrow(fields.slug), 'create', config.pagesBase);
      ctx.body = presentPage(linked.application, config.pagesBase);
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/pages/{slug}', operationId: 'getPage', tag: 'pages', summary: 'The page', auth: 'bearer', params: PageSlugParams,
      responses: { 200: { description: 'The page', schema: Page }, 403: FORBIDDEN, 404: { description: 'No such page of the caller' } },
    },
    forPerson,
    async function getPage(ctx) {
      const page = await ownPage(ctx);
      ctx.body = await pageBody(page);
    },
  );

  table.add(
    {
      method: 'delete', path: '/api/v1/pages/{slug}', operationId: 'deletePage', tag: 'pages', summary: 'Deletes the page and its assets; the slug is retired',
      auth: 'bearer', params: PageSlugParams,
      responses: { 204: { description: 'Deleted' }, 403: FORBIDDEN, 404: { description: 'No such page of the caller' } },
    },
    forPerson,
    async function removePage(ctx) {
      await deletePage(store, await ownPage(ctx));
      ctx.status = 204;
    },
  );

  table.add(
    {
      method: 'put', path: '/api/v1/pages/{slug}/deploy', operationId: 'deployPage', tag: 'pages', summary: 'Replaces all files of the page at once and publishes it',
      auth: 'bearer', params: PageSlugParams, body: DeployBody, bodyMediaType: 'multipart/form-data',
      responses: {
        200: { description: 'The page', schema: Page }, 403: FORBIDDEN, 404: { description: 'No such page of the caller' },
        409: { description: 'The page was deleted or deployed again meanwhile' },
        413: { description: 'More files or bytes than the deploy limits' },
        422: { description: 'No files, or a path that is empty, absolute, climbs out (..), is percent-encoded, too long or too deep, has a backslash, CR, LF, NUL or an empty segment' },
      },
    },
    forPerson,
    async function deploy(ctx) {
      const page = await ownPage(ctx);
      const files = await readMultipartFiles(ctx, {
        field: 'files', maxFiles: config.pageMaxFiles, maxFileBytes: config.pageMaxBytes, maxTotalBytes: config.pageMaxBytes,
        preservePath: true, tooManyFilesIs413: true, keepUnnamed: true,
      });
      const deployed = await deployPage(store, page, files.map((file) => ({ rawFilename: file.rawFilename, bytes: file.bytes })));
      ctx.body = await pageBody(deployed);
    },
  );

  async function ownPage(ctx: Context): Promise<PageRecord> {
    const slug = String(ctx.state.input.slug).toLowerCase();
    const page = await livePage(store, slug);
    if (!page || page.user_id !== ctx.state.auth.userId) throw new NotFoundError('Page not found');
    return page;
  }

  async function pageBody(page: PageRecord) {
    const application = await store.applications.get(page.application_id);
    if (!application) throw new NotFoundError('Page not found');
    return presentPage({ ...application, page_slug: page.id, page_published: page.published }, config.pagesBase);
  }

  async function jsonOrFormFields(ctx: Context): Promise<Record<string, unknown>> {
    await parseJsonOrForm(ctx, async () => {});
    const body = (ctx.request as { body?: unknown }).body;
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  }
}

/** The text fields of a small multipart form (create takes no files). */
function readMultipartFields(ctx: Context): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { files: 0, fields: 10, fieldSize: 4096, parts: 10 } });
    } catch (error) {
      reject(ValidationError.single(['body'], `malformed multipart request: ${(error as Error).message}`));
      return;
    }
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('filesLimit', () => reject(new HttpError(400, 'creating a page takes no files; deploy them afterwards')));
    parser.on('error', (error: Error) => reject(ValidationError.single(['body'], `malformed multipart request: ${error.message}`)));
    parser.on('close', () => resolve(fields));
    ctx.req.pipe(parser);
  });
}
