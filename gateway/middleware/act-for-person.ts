/**
 * The applications and pages endpoints act for the person, never through another party's app (gaps.md
 * "Pages", safety rules): a delegated token → 403; a token of an application the caller does not own →
 * 403, unless the operator marked that application first-party. A personal token and a token of one of
 * the caller's own applications pass. Kept honest by test/gateway/applications-api.test.ts.
 */
import type { Context, Next } from 'koa';
import type { Store } from '../../storage/store.js';
import { ForbiddenError } from '../errors.js';

export function actForPerson(store: Store) {
  return async function requirePersonalToken(ctx: Context, next: Next): Promise<void> {
    const auth = ctx.state.auth as { userId: string; actorId: string | null; applicationId: string | null };
    if (auth.actorId) throw new ForbiddenError('This endpoint does not accept a delegated token');
    if (auth.applicationId) {
      const application = await store.applications.get(auth.applicationId);
      if (!application || (application.user_id !== auth.userId && application.first_party !== true)) {
        throw new ForbiddenError('Applications and pages are managed by their owner: use a personal token or a token of one of your own applications');
      }
    }
    await next();
  };
}
