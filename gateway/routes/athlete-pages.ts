/**
 * The athlete's pages (issue 16 item 4), signed in by the browser session, in the account pages' frame and
 * security (pages/layout.ts: no-store, no-referrer, frame-ancestors 'none', a CSP whose only script is the
 * gateway's own file):
 *
 *   GET  /training                         activities, newest first, filtered and paged
 *   GET  /training/activities/:id          one activity: summary, training numbers, time in zones (?zone_system),
 *                                          route, series over time, mean-max, laps, and the corrections form
 *                                          (its posts: routes/activity-correction-pages.ts)
 *   GET  /training/season                  longitudinal mean-max (with `after` states), model and map
 *   GET  /training/upload                  drop zone / file form and recent uploads
 *   POST /training/upload                  acceptSource per file → 303 (form) or 202 JSON (script)
 *   GET  /training/upload/status?id=…      the sources as the API presents them (the script's polling)
 *   GET  /training/assets/athlete-….js     the enhancement script (client-script.ts)
 *
 * Every number comes through the services and presenters the API routes use (services/activity-listing.ts,
 * activities.ts, analyses.ts, profile-listings.ts, sources.ts) for the signed-in user as a personal token
 * would see it. Pages answer 303 /signin without a signed-in session; another user's activity is a 404;
 * the upload form carries the session's CSRF token. Kept honest by test/gateway/athlete-pages.test.ts and
 * test/browser/athlete-pages.test.ts.
 */
import type { Context, Middleware } from 'koa';
import type { SessionRecord } from '../../storage/store.js';
import { canonicalSport } from '../../domain/sport.js';
import { parseDate } from '../../domain/time.js';
import { Sessions } from '../auth/sessions.js';
import type { GatewayDeps } from '../deps.js';
import { HttpError, NotFoundError, ValidationError } from '../errors.js';
import { readMultipartForm } from '../multipart.js';
import { sendPage } from '../pages/layout.js';
import { seeOther } from '../pages/forms.js';
import { forbiddenPage } from '../pages/messages.js';
import { activityListPage, type ListedActivity, type ListFilters } from '../pages/athlete/activity-list.js';
import { activityPage } from '../pages/athlete/activity-page.js';
import { activityView } from '../pages/athlete/activity-view.js';
import { correctionsForm } from '../pages/athlete/activity-corrections.js';
import { seasonPage } from '../pages/athlete/season-page.js';
import { uploadPage, type SourceView } from '../pages/athlete/upload-page.js';
import { queryValue, queryValues, seasonView, signedInHandler, type SignedInHandler } from '../pages/athlete/page-handlers.js';
import { CLIENT_SCRIPT, SCRIPT_PATH } from '../pages/athlete/client-script.js';
import { presentSource } from '../presenters/source.js';
import { ownActivity, personalPrincipal } from '../services/activities.js';
import { activityListJson } from '../services/activity-listing.js';
import { userSports, userTags } from '../services/profile-listings.js';
import { listSources, MAX_FILES_PER_UPLOAD, ownSource } from '../services/sources.js';
import { acceptSource } from '../../storage/sources.js';
import type { RouteTable } from '../route-table.js';

const PAGE_SIZE = 20;
const RECENT_SOURCES = 20;
/** How long the no-script upload answer keeps refreshing itself while a source it sent is processing. */
const REFRESH_WINDOW_MS = 3 * 60_000;
/** The sports each model is offered for (routes/physiological-models.ts CURVES and MAPS). */
const NOTICES = new Map([['uploaded', 'Upload received. Each file is read in the background; its status shows below.']]);





export function athletePageRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store, sessions } = deps;

  const signedInPage = (handler: SignedInHandler): Middleware => signedInHandler(deps, handler);

  table.page({ method: 'get', path: SCRIPT_PATH, name: 'athleteScript' }, async function athleteScript(ctx) {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = CLIENT_SCRIPT;
  });

  table.page({ method: 'get', path: '/training', name: 'trainingActivities' }, signedInPage(async (ctx, { user }) => {
    const problems: string[] = [];
    const date = (name: string): string => {
      const value = queryValue(ctx, name);
      if (value && parseDate(value) === null) problems.push(`“${value}” is not a date (YYYY-MM-DD), so it was left out.`);
      return value && parseDate(value) !== null ? value : '';
    };
    const filters: ListFilters = { start: date('start'), end: date('end'), sport: '', tag: queryValue(ctx, 'tags') };
    const sport = queryValue(ctx, 'sport');
    if (sport) {
      const canonical = canonicalSport(sport);
      if (canonical) filters.sport = canonical;
      else problems.push(`“${sport}” is not a sport, so it was left out.`);
    }
    const pageNumber = Math.min(10_000, Math.max(1, Number.parseInt(queryValue(ctx, 'page'), 10) || 1));
    const [json, sports, tags] = await Promise.all([
      activityListJson(deps, personalPrincipal(user.id), {
        start: filters.start || undefined, end: filters.end || undefined, limit: PAGE_SIZE + 1, offset: (pageNumber - 1) * PAGE_SIZE,
        sports: filters.sport ? [filters.sport] : [], tags: filters.tag ? [filters.tag] : undefined,
      }),
      userSports(store, user.id, false),
      userTags(store, user.id),
    ]);
    const activities = JSON.parse(json.toString()) as ListedActivity[];
    sendPage(ctx, 200, activityListPage({
      activities: activities.slice(0, PAGE_SIZE), filters, sports, tags, page: pageNumber, hasOlder: activities.length > PAGE_SIZE, problems,
      notice: queryValue(ctx, 'notice') === 'deleted' ? 'The activity was deleted.' : null,
    }));
  }));

  table.page({ method: 'get', path: '/training/activities/:id', name: 'trainingActivity' }, signedInPage(async (ctx, { user, session }) => {
    const id = String(ctx.params.id ?? '');
    if (id.length > 64) throw new NotFoundError('Activity not found');
    const record = await ownActivity(deps, id, user.id);
    sendPage(ctx, 200, activityPage({
      ...(await activityView(deps, ctx, record, personalPrincipal(user.id), `/training/activities/${record.id}`)),
      notes: record.notes ?? null,
      corrections: correctionsForm(record, session.csrf_token),
      notice: queryValue(ctx, 'notice') === 'saved' ? 'Saved.' : null,
    }));
  }));

  table.page({ method: 'get', path: '/training/season', name: 'trainingSeason' }, signedInPage(async (ctx, { user }) => {
    sendPage(ctx, 200, seasonPage(await seasonView(deps, ctx, user.id)));
  }));

  table.page({ method: 'get', path: '/training/upload', name: 'trainingUpload' }, signedInPage(async (ctx, { user, session }) => {
    const recent = (await listSources(store, user.id, { limit: RECENT_SOURCES, offset: 0 })).map(presentSource) as SourceView[];
    const notice = NOTICES.get(queryValue(ctx, 'notice')) ?? null;
    sendUploadPage(ctx, 200, session, recent, { notice });
    // Without script, the answer to the form follows its sources by reloading itself, for a while.
    const now = Date.now();
    if (notice && recent.some((source) => source.status === 'processing' && now - Date.parse(source.created_at) < REFRESH_WINDOW_MS)) ctx.set('Refresh', '2');
  }));

  table.page({ method: 'post', path: '/training/upload', name: 'trainingUploadFiles', parseBody: (_ctx, next) => next() }, async function uploadFiles(ctx) {
    const wantsJson = ctx.accepts('html', 'json') === 'json';
    const found = await sessions.signedInUser(ctx);
    if (!found) {
      if (wantsJson) return json(ctx, 401, { detail: 'Sign in first.' });
      return seeOther(ctx, '/signin');
    }
    let form: Awaited<ReturnType<typeof readMultipartForm>>;
    try {
      form = await readMultipartForm(ctx, { field: 'files', maxFiles: MAX_FILES_PER_UPLOAD, maxFileBytes: deps.config.maxUploadBytes });
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const detail = error instanceof ValidationError ? (error.issues[0]?.msg ?? 'The form was not readable.') : error.message;
      const message = /Field required/.test(detail) ? 'Choose at least one file to upload.' : detail;
      if (wantsJson) return json(ctx, error.status, { detail: message });
      const recent = (await listSources(store, found.user.id, { limit: RECENT_SOURCES, offset: 0 })).map(presentSource) as SourceView[];
      return sendUploadPage(ctx, error.status, found.session, recent, { error: message });
    }
    if (!Sessions.csrfMatches(found.session, form.fields.csrf)) {
      if (wantsJson) return json(ctx, 403, { detail: 'This form has expired. Reload the page and try again.' });
      return sendPage(ctx, 403, forbiddenPage());
    }
    const sources = [];
    for (const file of form.files) sources.push(await acceptSource(store, found.user.id, file, { applicationId: null }));
    deps.wakeJobs?.();
    if (wantsJson) return json(ctx, 202, { sources: sources.map(presentSource) });
    seeOther(ctx, '/training/upload?notice=uploaded');
  });

  table.page({ method: 'get', path: '/training/upload/status', name: 'trainingUploadStatus' }, async function uploadStatus(ctx) {
    const found = await sessions.signedInUser(ctx);
    if (!found) return json(ctx, 401, { detail: 'Sign in first.' });
    const ids = queryValues(ctx, 'id').slice(0, MAX_FILES_PER_UPLOAD).filter((id) => id.length <= 64);
    const sources = await Promise.all(ids.map((id) => ownSource(store, found.user.id, id).then(presentSource, (error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    })));
    json(ctx, 200, sources.filter((source) => source !== null));
  });

  function sendUploadPage(ctx: Context, status: number, session: SessionRecord, recent: SourceView[], messages: { notice?: string | null; error?: string | null }): void {
    sendPage(ctx, status, uploadPage({
      csrfToken: session.csrf_token, recent, maxFiles: MAX_FILES_PER_UPLOAD, maxMiB: Math.round((deps.config.maxUploadBytes / 1048576) * 10) / 10, ...messages,
    }));
  }
}


function json(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}


