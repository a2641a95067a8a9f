/**
 * Delegation (interface §5 "Delegated tokens", AUTH.md "scope algebra"): who may mint a token that acts
 * for another user, and which scopes it may carry. The scope algebra is pure; the basis lookup reads
 * the store, and the same lookup decides at minting time and again on every request (access-tokens.ts
 * `assertLive`), so a delegated token dies as soon as what it stands on goes.
 *
 * A basis is one of:
 * - self: the subject is the caller (a coach iterating `users.list()` meets themself);
 * - managed: the subject is a managed user of the caller (`users.managed_by`);
 * - team: the subject authorized a team the caller is a member of. With `team_id` that one team (the
 *   token carries `org`); without it, every such team, scopes united (no `org`), which is also what the
 *   users listing shows for a shared user.
 *
 * Deliberately not here: any scope widening. Every delegated token is bounded by the token it was minted
 * from. test/gateway/auth/delegation-scopes.test.ts and test/gateway/delegation.test.ts keep it honest.
 */
import type { Store } from '../../storage/store.js';
import { intersectScopes, isScope, sortScopes, subtractScopes, withIdentity, type Scope } from './scopes.js';

/** "never email, sharing or offline_access" */
export const NEVER_DELEGATED: readonly Scope[] = ['email', 'sharing:read', 'sharing:write', 'offline_access'];

export type DelegationBasis =
  | { kind: 'self' }
  | { kind: 'managed' }
  /** `teamIds`: the teams the subject authorized and the caller belongs to; `granted`: their scopes united. */
  | { kind: 'team'; teamIds: string[]; granted: readonly string[] };

/**
 * The scopes a delegated token may carry: for a managed account (or oneself) the minting token's scopes,
 * for a consented team authorization the authorization ∩ the minting token; then minus email, sharing
 * and offline_access; plus openid and profile ("openid and profile ride with every grant, so userinfo
 * works on a delegated token"). In the order of SCOPES.
 *
 * openid and profile are added even when the minting token lacks them: they reach only the subject's id
 * and name, which the minting token (it holds sharing:read) already sees in the users listing.
 */
export function delegableScopes(minting: Iterable<string>, basis: DelegationBasis): Scope[] {
  const held = known(minting);
  const reachable = basis.kind === 'team' ? intersectScopes(held, known(basis.granted)) : held;
  return withIdentity(subtractScopes(reachable, NEVER_DELEGATED));
}

export type Narrowed = { ok: true; scopes: Scope[] } | { ok: false; refused: string };

/**
 * Narrows the delegable scopes to the requested ones (null or absent: all of them). openid and profile
 * stay whatever is requested. A requested scope outside the delegable set is refused by name; unknown
 * scope names never get here (the request schema answers them with 422).
 */
export function narrowToRequested(delegable: readonly string[], requested: readonly string[] | null | undefined): Narrowed {
  if (requested == null) return { ok: true, scopes: sortScopes(known(delegable)) };
  const allowed = new Set<string>(delegable);
  const refused = requested.find((scope) => !allowed.has(scope));
  if (refused !== undefined) return { ok: false, refused };
  return { ok: true, scopes: withIdentity(known(requested)) };
}

/**
 * Why the caller may act for the subject, or null when nothing allows it. `teamId` names the one team
 * to delegate through (the token's `org`); null means any basis. Unknown users and teams give null, the
 * same answer as an existing user the caller may not reach, so the result never reveals existence.
 */
export async function findDelegationBasis(
  store: Store,
  request: { actorId: string; subjectId: string; teamId: string | null },
): Promise<DelegationBasis | null> {
  const { actorId, subjectId, teamId } = request;
  if (teamId === null) {
    if (subjectId === actorId) return { kind: 'self' };
    const subject = await store.users.get(subjectId);
    if (!subject) return null;
    if (subject.managed_by === actorId) return { kind: 'managed' };
  }
  const memberships = await store.team_members.find(teamId === null ? { user_id: actorId } : { user_id: actorId, team_id: teamId });
  if (memberships.length === 0) return null;
  const authorizations = await store.team_authorizations.find({ user_id: subjectId, team_id: { $in: memberships.map((member) => member.team_id) } });
  if (authorizations.length === 0) return null;
  return {
    kind: 'team',
    teamIds: authorizations.map((authorization) => authorization.team_id).sort(),
    granted: sortScopes(known(authorizations.flatMap((authorization) => authorization.scopes))),
  };
}

/**
 * Whether a delegated token is still backed: its basis exists and still covers every scope it carries
 * (a team authorization narrowed after minting ends the token too). `mintingScopes` null (a token that
 * did not record them) bounds by the token's own scopes.
 */
export async function delegationHolds(
  store: Store,
  token: { actorId: string; userId: string; org: string | null; scopes: ReadonlySet<string>; mintingScopes: ReadonlySet<string> | null },
): Promise<boolean> {
  const basis = await findDelegationBasis(store, { actorId: token.actorId, subjectId: token.userId, teamId: token.org });
  if (!basis) return false;
  const allowed = new Set<string>(delegableScopes(token.mintingScopes ?? token.scopes, basis));
  return [...token.scopes].every((scope) => allowed.has(scope));
}

/** Only current scope names take part: a retired name (a stored legacy grant) never reaches a delegated token. */
function known(scopes: Iterable<string>): Scope[] {
  return [...scopes].filter(isScope);
}
