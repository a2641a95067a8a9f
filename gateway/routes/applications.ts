/**
 * POST/GET /api/v1/applications and PUT /api/v1/applications/{application_id}/page (interface §4
 * "Applications"). No scope: the caller acts for themself (middleware/act-for-person.ts). Another
 * person's application is a 404. Ensure-page answers 400 for a validation failure and 409 for a
 * different slug or a slug of another application, as interface §7 says. Kept honest by
 * test/gateway/applications-api.test.ts.
 */
import type { z } from 'zod';
import type { Context } from 'koa';
import type { ApplicationRecord } from '../../storage/store.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { HttpError, NotFoundError } from '../errors.js';
import { actForPerson } from '../middleware/act-for-person.js';
import { presentApplication, presentApplicationListItem, presentPage } from '../presenters/application.js';
import { Application, ApplicationIdParams, ApplicationListItem, CreateApplicationBody, EnsurePageBody, Page } from '../schemas/applications.js';
import { createDevApplication } from '../services/applications.js';
import { attachPage, slugOrThrow } from '../services/pages.js';

export function applicationRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store, config } = deps;
  const rules = { pagesBase: config.pagesBase, webhookAllowedHosts: config.webhookAllowedHosts };
  const forPerson = actForPerson(store);

  table.add(
    {
      method: 'post', path: '/api/v1/applications', operationId: 'createApplication', tag: 'applications',
      summary: 'Creates a private application for development', auth: 'bearer', body: CreateApplicationBody,
      responses: {
        200: { description: 'The application; client_secret only when generate_secret was true', schema: Application },
        400: { description: 'The page slug is invalid or taken' },
        403: { description: 'A delegated token, or a token of another person\'s application' },
        422: { description: 'Validation failed (name, description, redirect URIs, webhook endpoints, …)' },
      },
    },
    forPerson,
    async function createApplication(ctx) {
      const body = ctx.state.body as z.output<typeof CreateApplicationBody>;
      const { application, clientSecret } = await createDevApplication(store, ctx.state.auth.userId, body, rules);
      ctx.body = presentApplication(application, clientSecret, { pagesBase: config.pagesBase, baseUrl: config.baseUrl });
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/applications', operationId: 'listApplications', tag: 'applications',
      summary: "The caller's applications, newest first", auth: 'bearer',
      responses: { 200: { description: 'Application list items', schema: ApplicationListItem.array() }, 403: { description: 'A delegated token, or a token of another person\'s application' } },
    },
    forPerson,
    async function listApplications(ctx) {
      const owned = await store.applications.find({ user_id: ctx.state.auth.userId }, { sort: { created_at: -1 } });
      ctx.body = owned.map(presentApplicationListItem);
    },
  );

  table.add(
    {
      method: 'put', path: '/api/v1/applications/{application_id}/page', operationId: 'ensureApplicationPage', tag: 'applications',
      summary: 'Idempotently ensures the application has a page', auth: 'bearer', params: ApplicationIdParams, body: EnsurePageBody, selfValidated: true,
      responses: {
        200: { description: 'The page', schema: Page },
        400: { description: 'Validation failed (slug missing or invalid)' },
        403: { description: 'A delegated token, or a token of another person\'s application' },
        404: { description: 'No such application of the caller' },
        409: { description: 'The application has a different page, or the slug belongs to another application' },
      },
    },
    forPerson,
    async function ensurePage(ctx) {
      const application = await ownApplication(ctx, String(ctx.state.input.application_id));
      const body = (ctx.request as { body?: unknown }).body;
      const raw = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).slug : undefined;
      if (typeof raw !== 'string') throw new HttpError(400, 'slug is required (a string)', { code: 'invalid_slug' });
      const slug = slugOrThrow(raw);
      const linked = await attachPage(store, application, slug, 'ensure', config.pagesBase);
      ctx.body = presentPage(linked.application, config.pagesBase);
    },
  );

  async function ownApplication(ctx: Context, id: string): Promise<ApplicationRecord> {
    const application = await store.applications.get(id);
    if (!application || application.user_id !== ctx.state.auth.userId) throw new NotFoundError('Application not found');
    return application;
  }
}
