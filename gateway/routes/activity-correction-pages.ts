/**
 * The posts of an activity's corrections form and its deletion (issue 28 item 5), for the signed-in person
 * in the browser, through the services the API uses (services/activity-corrections.ts, with the person's
 * own authority, as a personal token has it):
 *
 *   POST /training/activities/:id/corrections   sport, tags (comma-separated), notes → 303 to the page, or
 *                                               the form again with what was refused (422)
 *   GET  /training/activities/:id/delete        the confirmation step
 *   POST /training/activities/:id/delete        → 303 /training
 *
 * Every post carries the session's CSRF token (a missing or foreign one: 403, nothing changed); a signed-out
 * browser goes to sign in; another person's activity is the 404 page. The form is read field by field as
 * single strings (pages/forms.ts) and checked by the API's own schema (schemas/activity-corrections.ts).
 * Kept honest by test/gateway/athlete-pages.test.ts and test/browser/activity-corrections.test.ts.
 */
import type { Context } from 'koa';
import type { SessionRecord, UserRecord } from '../../storage/store.js';
import type { GatewayDeps } from '../deps.js';
import { formatLocal } from '../../domain/time.js';
import { HttpError, NotFoundError } from '../errors.js';
import { Sessions } from '../auth/sessions.js';
import { formBody, seeOther, signInFirst, stringField } from '../pages/forms.js';
import { sendPage } from '../pages/layout.js';
import { forbiddenPage } from '../pages/messages.js';
import { correctionsErrorPage, correctionsForm, deleteActivityPage } from '../pages/athlete/activity-corrections.js';
import { athleteNotFound } from '../pages/athlete/frame.js';
import { ActivityCorrectionWrite } from '../schemas/activity-corrections.js';
import { applyCorrection, removeActivity } from '../services/activity-corrections.js';
import { ownActivity, personalPrincipal } from '../services/activities.js';
import type { RouteTable } from '../route-table.js';

/** Longest tags field accepted from the form, characters (100 tags of 200 characters and their commas). */
const MAX_TAGS_FIELD = 20_200;
const FIELD_NAMES: Record<string, string> = { sport: 'Sport', tags: 'Tags', notes: 'Notes' };

type Found = { user: UserRecord; session: SessionRecord };

export function activityCorrectionPageRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { sessions } = deps;

  /** Signed in (else to sign-in), the activity's id bounded, and an unknown or foreign activity as the 404 page. */
  function activityPage(handler: (ctx: Context, found: Found, id: string) => Promise<void>) {
    return async (ctx: Context) => {
      const found = await sessions.signedInUser(ctx);
      if (!found) return signInFirst(ctx);
      const id = String(ctx.params.id ?? '');
      try {
        if (id.length > 64) throw new NotFoundError('Activity not found');
        await handler(ctx, found, id);
      } catch (error) {
        if (error instanceof NotFoundError) return sendPage(ctx, 404, athleteNotFound());
        throw error;
      }
    };
  }

  /** The posted form's CSRF token matches the session's; otherwise the 403 page is sent and false answered. */
  function csrfHolds(ctx: Context, session: SessionRecord): boolean {
    if (Sessions.csrfMatches(session, formBody(ctx).csrf)) return true;
    sendPage(ctx, 403, forbiddenPage());
    return false;
  }

  table.page({ method: 'post', path: '/training/activities/:id/corrections', name: 'trainingActivityCorrections' }, activityPage(async (ctx, { user, session }, id) => {
    if (!csrfHolds(ctx, session)) return;
    const record = await ownActivity(deps, id, user.id);
    const body = formBody(ctx);
    const typed = { sport: stringField(body, 'sport') ?? record.sport, tags: stringField(body, 'tags') ?? '', notes: stringField(body, 'notes') ?? '' };
    const refuse = (errors: string[]) => sendPage(ctx, 422, correctionsErrorPage({ ...correctionsForm(record, session.csrf_token), ...typed, errors }));
    if (typed.tags.length > MAX_TAGS_FIELD) return refuse([`Tags: at most ${MAX_TAGS_FIELD} characters in all.`]);
    const parsed = ActivityCorrectionWrite.safeParse({
      sport: typed.sport, tags: typed.tags.split(',').map((tag) => tag.trim()).filter((tag) => tag.length > 0), notes: typed.notes,
    });
    if (!parsed.success) {
      return refuse(parsed.error.issues.map((issue) => `${FIELD_NAMES[String(issue.path[0])] ?? 'The form'}: ${issue.message}.`));
    }
    try {
      await applyCorrection(deps, personalPrincipal(user.id), id, parsed.data);
    } catch (error) {
      if (error instanceof HttpError && error.status === 409) return refuse([`${error.message}.`]);
      throw error;
    }
    seeOther(ctx, `/training/activities/${encodeURIComponent(id)}?notice=saved`);
  }));

  table.page({ method: 'get', path: '/training/activities/:id/delete', name: 'trainingActivityDeleteConfirm' }, activityPage(async (ctx, { user, session }, id) => {
    const record = await ownActivity(deps, id, user.id);
    sendPage(ctx, 200, deleteActivityPage({ activityId: record.id, csrfToken: session.csrf_token, sport: record.sport, startLocal: formatLocal(record.start, record.offset) }));
  }));

  table.page({ method: 'post', path: '/training/activities/:id/delete', name: 'trainingActivityDelete' }, activityPage(async (ctx, { user, session }, id) => {
    if (!csrfHolds(ctx, session)) return;
    await removeActivity(deps, personalPrincipal(user.id), id);
    seeOther(ctx, '/training?notice=deleted');
  }));
}
