/**
 * The authorize flow's team variant (issue 14: "ordinary users authorize a team through the consent
 * screen"; interface §4 "Ordinary users authorize teams through the browser OAuth flow"): an app sends
 * the user to /oauth/authorize with `team_id`, the consent screen names the team and what it will see,
 * and approving records the app's grant as always plus the user's authorization of the team.
 *
 * What a team is given is the requested data scopes: never email, sharing or offline_access, and not
 * openid/profile (every delegated token carries those anyway). Like a grant, an authorization only grows
 * through consent: approving again unites the scopes. Narrowing or ending it is the user's Revoke on
 * /account/teams (or the portal). Deliberately not here: which screen to show (routes/authorize.ts).
 * Kept honest by test/gateway/team-consent.test.ts.
 */
import type { Store } from '../../storage/store.js';
import { authorizeTeam } from '../services/team-access.js';
import { NEVER_DELEGATED } from './delegation.js';
import { isScope, sortScopes, type Scope } from './scopes.js';

const IDENTITY: readonly string[] = ['openid', 'profile'];

/** The scopes of a request a team may be given, in SCOPES order. */
export function teamScopes(requested: readonly string[]): Scope[] {
  return sortScopes(requested.filter((scope): scope is Scope => isScope(scope) && !NEVER_DELEGATED.includes(scope) && !IDENTITY.includes(scope)));
}

/** The user's current authorization of the team covers `scopes`. */
export async function teamAuthorizationCovers(store: Store, teamId: string, userId: string, scopes: readonly string[]): Promise<boolean> {
  const existing = await store.team_authorizations.findOne({ team_id: teamId, user_id: userId });
  return existing !== null && scopes.every((scope) => existing.scopes.includes(scope));
}

/** Records the consent: the authorization becomes the union of what it had and `scopes`. */
export async function recordTeamConsent(store: Store, teamId: string, userId: string, scopes: readonly string[], now = Date.now()): Promise<void> {
  const existing = await store.team_authorizations.findOne({ team_id: teamId, user_id: userId });
  await authorizeTeam(store, teamId, userId, teamScopes([...(existing?.scopes ?? []), ...scopes]), now);
}
