/**
 * Provider connections: starting an authorization (state bound to the browser that asked, PKCE where the
 * provider takes it), completing it (code exchange, tokens sealed with the integration key, the backfill
 * queued in the same batch as the connection, what the user granted kept in plain for the gates of
 * domain/provider-permissions.ts), handing out usable tokens (refreshed and stored before
 * expiry: Garmin and Wahoo rotate the refresh token, and Wahoo's old pair dies once the new one is used),
 * and disconnecting (revoked at the provider where it documents how; tokens dropped).
 *
 * A sign-in through a provider (authorize's `integration` for a signed-out person) is an authorization
 * started for no user: at completion the provider's user id decides the account. The account already
 * linked to that provider account signs in (its connection renewed); otherwise a new account is created
 * with the connection in one batch, unless the provider's email belongs to an account already, which is
 * never merged: the person signs in to it first and connects there. A provider account is linked to one
 * account only through this path: when several accounts hold it, nobody is signed in.
 *
 * Deliberately not here: HTTP to the user (the gateway's routes), provider protocols (the adapters).
 * test/engine/integrations/connections.test.ts and test/gateway/integrations.test.ts keep it honest.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Provider } from '../../domain/providers.js';
import { permissionsFromScope } from '../../domain/provider-permissions.js';
import { DuplicateKeyError, type BatchOp, type ConnectionRecord, type JobRecord, type ProviderAuthorizationRecord, type Store, type UserRecord } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { newJob } from '../../storage/jobs.js';
import { openCredentials, sealCredentials, type ProviderTokens } from './credentials.js';
import type { Adapters } from './adapters.js';
import type { ProviderAdapter, ProviderProfile } from './provider.js';
import { Serializer } from './token-keeper.js';
import { pollSchedule } from './poll-schedule.js';

/** The `user_id` of an authorization started for a sign-in: the account is decided at completion. */
const SIGN_IN = '';

/** How long an authorization may take at the provider, milliseconds. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;
/** Refresh this long before the access token expires ("≥ 600 s before expiry" on Garmin), milliseconds. */
export const REFRESH_MARGIN_MS = 10 * 60_000;
/** "On connection, 5 years of history are ingested." */
export const BACKFILL_YEARS = 5;
export const BACKFILL_JOB = 'provider_backfill';

export interface ConnectionDeps {
  store: Store;
  adapters: Adapters;
  /** The integration key (integration-key.ts); null only when no provider is configured. */
  key: Uint8Array | null;
  wake?: () => void;
}

export class ConnectionError extends Error {
  constructor(readonly code: 'not_configured' | 'state_unknown' | 'provider_refused' | 'no_connection', message: string) {
    super(message);
    this.name = 'ConnectionError';
  }
}

export function adapterFor(deps: Pick<ConnectionDeps, 'adapters'>, provider: string): ProviderAdapter {
  const adapter = deps.adapters[provider as Provider];
  if (!adapter) throw new ConnectionError('not_configured', `integrations: ${provider} is not configured on this server`);
  return adapter;
}

const hash = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * What a sign-in through the provider came to: `signed_in` (the linked account), `created` (a new account,
 * linked), `email_taken` (the provider's email belongs to an account not linked to it: nothing stored),
 * `ambiguous` (several accounts hold this provider account: nothing stored), `refused` (the person refused
 * or cancelled at the provider).
 */
export type SignInOutcome = 'signed_in' | 'created' | 'email_taken' | 'ambiguous' | 'refused';

/** Starts an authorization: the provider URL to send the browser to. `userId` null: a sign-in through the provider. */
export async function beginConnection(deps: ConnectionDeps, input: { userId: string | null; provider: string; redirectUri: string; binding: string; returnTo: string }): Promise<{ url: string }> {
  const adapter = adapterFor(deps, input.provider);
  const state = randomBytes(24).toString('base64url');
  const start = adapter.authorizationUrl({ redirectUri: input.redirectUri, state, signIn: input.userId === null });
  const now = Date.now();
  const record: ProviderAuthorizationRecord = {
    id: newId(), user_id: input.userId ?? SIGN_IN, provider: adapter.provider, state_hash: hash(state), binding: input.binding,
    code_verifier: start.codeVerifier, return_to: input.returnTo, expires_at: now + AUTHORIZATION_TTL_MS, consumed_at: null, created_at: now,
  };
  await deps.store.provider_authorizations.insert(record);
  await deps.store.provider_authorizations.deleteMany({ expires_at: { $lt: now - AUTHORIZATION_TTL_MS } });
  return { url: start.url };
}

/**
 * Completes an authorization from the provider's callback. The state must be live, unused and bound to
 * the same browser (`binding`); it is consumed whatever the outcome. With `error` (the user refused at
 * the provider) nothing is connected and `connected` is false.
 */
export async function completeConnection(
  deps: ConnectionDeps,
  input: { provider: string; state: string; binding: string; code: string | null; error: string | null; redirectUri: string },
): Promise<{ userId: string; returnTo: string; connected: boolean; signIn: SignInOutcome | null }> {
  const adapter = adapterFor(deps, input.provider);
  const now = Date.now();
  const pending = await deps.store.provider_authorizations.updateOne(
    { state_hash: hash(input.state), provider: adapter.provider, binding: input.binding, consumed_at: null, expires_at: { $gt: now } },
    { set: { consumed_at: now } },
  );
  if (!pending) throw new ConnectionError('state_unknown', 'integrations: this authorization is unknown, used, expired or from another browser');
  const signingIn = pending.user_id === SIGN_IN;
  if (input.error !== null || input.code === null) return { userId: pending.user_id, returnTo: pending.return_to, connected: false, signIn: signingIn ? 'refused' : null };
  let tokens: ProviderTokens & { externalUserId: string | null; profile?: ProviderProfile };
  try {
    tokens = await adapter.exchangeCode({ code: input.code, redirectUri: input.redirectUri, codeVerifier: pending.code_verifier });
  } catch (error) {
    throw new ConnectionError('provider_refused', `integrations: ${adapter.provider} refused the code (${error instanceof Error ? error.message : String(error)})`);
  }
  const { externalUserId, profile, ...stored } = tokens;
  const external = externalUserId ?? (await adapter.identity(stored));
  if (signingIn) {
    const outcome = await signInWith(deps, adapter.provider, external, profile ?? null, stored, now);
    if (outcome.userId !== SIGN_IN) deps.wake?.();
    return { userId: outcome.userId, returnTo: pending.return_to, connected: true, signIn: outcome.signIn };
  }
  await connect(deps, pending.user_id, adapter.provider, external, stored, now);
  deps.wake?.();
  return { userId: pending.user_id, returnTo: pending.return_to, connected: true, signIn: null };
}

/**
 * The account a provider account signs in to: the one linked to it (renewed as a reconnect would), or a
 * new one created with the connection in one batch. A connection the user disconnected still names
 * its account (signing in reconnects it) unless another account holds the provider account live.
 */
async function signInWith(
  deps: ConnectionDeps, provider: Provider, externalUserId: string, profile: ProviderProfile | null, tokens: ProviderTokens, now: number,
): Promise<{ userId: string; signIn: SignInOutcome }> {
  const links = await deps.store.connections.find({ provider, external_user_id: externalUserId });
  const live = links.filter((link) => link.status !== 'disconnected');
  const holders = new Set((live.length > 0 ? live : links).map((link) => link.user_id));
  if (holders.size > 1) return { userId: SIGN_IN, signIn: 'ambiguous' };
  const [holder] = holders;
  if (holder !== undefined) {
    const current = links.find((link) => link.user_id === holder && link.status === 'connected');
    // A live connection keeps its backfill and sync state: only the tokens the provider just issued are
    // stored (Wahoo counts unrevoked tokens, at most 10 per user: each sign-in through Wahoo mints a pair,
    // and the one it replaces dies unrevoked after 60 days; intervals.icu [unverified]: re-authorizing
    // replaces the app's token). A disconnected or refused one is reconnected as a connect does.
    if (current) await renewTokens(deps, current, tokens, now);
    else await connect(deps, holder, provider, externalUserId, tokens, now);
    return { userId: holder, signIn: 'signed_in' };
  }
  const email = emailOf(profile?.email ?? null);
  if (email !== null && (await deps.store.users.findOne({ email }))) return { userId: SIGN_IN, signIn: 'email_taken' };
  const user: UserRecord = {
    id: newId(), email, first_name: nameOf(profile?.firstName ?? null), last_name: nameOf(profile?.lastName ?? null),
    password_hash: null, admin: false, managed_by: null, registered_at: now, app_metadata: {},
  };
  try {
    await deps.store.batch([{ collection: 'users', insert: user }, ...connectionOps(deps, user.id, provider, externalUserId, tokens, null, now)]);
  } catch (error) {
    // The email was taken meanwhile (users.email is unique): nothing was written.
    if (error instanceof DuplicateKeyError) return { userId: SIGN_IN, signIn: 'email_taken' };
    throw error;
  }
  return { userId: user.id, signIn: 'created' };
}

/** Stores freshly issued tokens (and what they grant) on a live connection, leaving its backfill as it is. */
async function renewTokens(deps: ConnectionDeps, connection: ConnectionRecord, tokens: ProviderTokens, now: number): Promise<void> {
  await deps.store.connections.updateOne({ id: connection.id }, {
    set: {
      credentials: sealCredentials(requireKey(deps), tokens),
      permissions: permissionsFromScope(connection.provider, tokens.scope), permissions_at: now,
      updated_at: Math.max(now, connection.updated_at + 1),
    },
  });
}

/** A provider's email as accounts keep it (lowercased), or null when it is not a plausible address. */
function emailOf(value: string | null): string | null {
  const email = value?.trim().toLowerCase() ?? '';
  return /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/.test(email) ? email : null;
}

/** A provider's name as accounts keep it: trimmed, at most 100 characters (gateway/services/accounts.ts). */
function nameOf(value: string | null): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed.length > 0 ? trimmed.slice(0, 100) : null;
}

/** Stores the connection (new or renewed) and queues its backfill, in one batch. */
async function connect(deps: ConnectionDeps, userId: string, provider: Provider, externalUserId: string, tokens: ProviderTokens, now: number): Promise<void> {
  const existing = await deps.store.connections.findOne({ user_id: userId, provider });
  await deps.store.batch(connectionOps(deps, userId, provider, externalUserId, tokens, existing, now));
}

/** The writes that store a connection (`existing` renewed, or a new one) and queue its backfill. */
function connectionOps(deps: ConnectionDeps, userId: string, provider: Provider, externalUserId: string, tokens: ProviderTokens, existing: ConnectionRecord | null, now: number): BatchOp[] {
  const credentials = sealCredentials(requireKey(deps), tokens);
  // What the user granted, in plain beside the sealed tokens (a permission change updates it), true as of now.
  const permissions = { permissions: permissionsFromScope(provider, tokens.scope), permissions_at: now, backfill_withheld: false };
  const fresh = { external_user_id: externalUserId, credentials, status: 'connected' as const, backfill_loaded_until: null, backfill_done: false, backfill_cursor: null, sync_error: null, ...permissions, updated_at: now };
  const id = existing?.id ?? newId();
  const job = backfillJob(userId, id, now);
  if (existing) {
    return [
      { collection: 'connections', update: { id }, change: { set: fresh } },
      { collection: 'jobs', delete: { key: job.key } },
      { collection: 'jobs', insert: job },
    ];
  }
  const record: ConnectionRecord = { id, user_id: userId, provider, ...fresh, newest_seen: null, created_at: now };
  // Its poll schedule comes with it (poll.ts): it waits until the backfill is done, then polls every interval.
  return [{ collection: 'connections', insert: record }, { collection: 'jobs', insert: job }, { collection: 'jobs', insert: pollSchedule(record, now) }];
}

/** The backfill of one connection: 5 years back from the moment of connecting, newest first. */
export function backfillJob(userId: string, connectionId: string, now: number): JobRecord {
  const oldest = new Date(now);
  oldest.setUTCFullYear(oldest.getUTCFullYear() - BACKFILL_YEARS);
  return newJob(BACKFILL_JOB, userId, `${BACKFILL_JOB}:${connectionId}`, { connection_id: connectionId, oldest: oldest.getTime(), newest: now }, now);
}

/** Usable tokens for a connection: refreshed (and stored first) when they expire within REFRESH_MARGIN_MS. */
/** One refresh at a time per connection in this process (Wahoo: never refresh concurrently; Garmin: single-use refresh tokens). */
const refreshes = new Serializer();

/**
 * The connection's tokens, refreshed first when they expire within REFRESH_MARGIN_MS. Refreshes of one
 * connection run one at a time, and each re-reads the connection first: a refresh another job finished
 * meanwhile is used instead of spending the refresh token again. The new pair is stored, conditionally
 * on nobody having stored one since, before it is used (Wahoo revokes the old pair once the new access
 * token is used). Across processes a lost race is settled the same way: the refresh that stored first
 * wins, and the loser re-reads and uses the stored pair. A write of other fields meanwhile (the backfill's
 * progress, a status) moves the record's version too; the new pair is then stored against the version
 * found, never dropped: the refresh token it replaced is spent (single use at Garmin and Wahoo).
 */
export async function tokensFor(deps: ConnectionDeps, connection: ConnectionRecord): Promise<ProviderTokens> {
  const key = requireKey(deps);
  const fresh = (tokens: ProviderTokens) => tokens.expires_at === null || tokens.expires_at - REFRESH_MARGIN_MS > Date.now();
  const tokens = openCredentials(key, connection.credentials);
  if (fresh(tokens)) return tokens;
  return refreshes.run(connection.id, async () => {
    const current = (await deps.store.connections.get(connection.id)) ?? connection;
    const stored = openCredentials(key, current.credentials);
    if (fresh(stored)) return stored;
    let refreshed: ProviderTokens | null;
    try {
      refreshed = await adapterFor(deps, current.provider).refresh(stored);
    } catch (error) {
      const after = await deps.store.connections.get(connection.id);
      if (after && !sameCredentials(after, current)) return openCredentials(key, after.credentials);
      throw error;
    }
    if (!refreshed) return stored;
    const sealed = sealCredentials(key, refreshed);
    for (let base = current; ;) {
      const saved = await deps.store.connections.updateOne(
        { id: base.id, updated_at: base.updated_at },
        { set: { credentials: sealed, updated_at: Math.max(Date.now(), base.updated_at + 1) } },
      );
      if (saved) return refreshed;
      const after = await deps.store.connections.get(connection.id);
      if (!after) return refreshed;
      // Another refresh stored its pair first: use that one. Otherwise only other fields changed.
      if (!sameCredentials(after, current)) return openCredentials(key, after.credentials);
      base = after;
    }
  });
}

/** Whether two reads of a connection hold the same sealed tokens (every seal has its own nonce). */
function sameCredentials(a: ConnectionRecord, b: ConnectionRecord): boolean {
  return JSON.stringify(a.credentials) === JSON.stringify(b.credentials);
}

/** Revokes at the provider (best effort), drops the tokens and stops the backfill. */
export async function disconnect(deps: ConnectionDeps, userId: string, provider: string): Promise<boolean> {
  const adapter = adapterFor(deps, provider);
  const connection = await deps.store.connections.findOne({ user_id: userId, provider: adapter.provider });
  if (!connection || connection.status === 'disconnected') return false;
  if (adapter.revoke && deps.key && Object.keys(connection.credentials).length > 0) {
    try {
      await adapter.revoke(openCredentials(deps.key, connection.credentials));
    } catch {
      // The provider may be down; the tokens are dropped here all the same and the user can revoke there.
    }
  }
  await deps.store.batch([
    { collection: 'connections', update: { id: connection.id }, change: { set: { status: 'disconnected', credentials: {}, backfill_cursor: null, updated_at: Date.now() } } },
    { collection: 'jobs', delete: { key: `${BACKFILL_JOB}:${connection.id}`, status: { $in: ['queued', 'done', 'failed'] } } },
    // The poll schedule goes too (a running poll finds the connection disconnected and ends it).
    { collection: 'jobs', delete: { key: pollSchedule(connection, 0).key, status: { $in: ['queued', 'done', 'failed'] } } },
  ]);
  return true;
}

/** The provider refused the token: the user must reconnect. */
export async function markActionRequired(store: Store, connectionId: string, message: string): Promise<void> {
  const now = Date.now();
  await store.connections.updateOne({ id: connectionId, status: 'connected' }, { set: { status: 'action_required', sync_error: { code: 'authorization_revoked', message, at: now }, updated_at: now } });
}

function requireKey(deps: ConnectionDeps): Uint8Array {
  if (!deps.key) throw new Error('integrations: no integration key (INTEGRATION_KEY)');
  return deps.key;
}
