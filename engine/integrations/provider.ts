/**
 * The provider adapter: what the integration framework (connect, refresh, backfill, push, disconnect)
 * needs from one training platform, and nothing about how it speaks HTTP. Garmin Connect, intervals.icu
 * and Wahoo each implement it (engine/integrations/<provider>/adapter.ts); the framework never branches
 * on a provider's name. Facts per provider are in shared/spec/providers.md:
 *
 * - OAuth: intervals.icu has no PKCE and no refresh token (tokens last until revoked); Garmin requires
 *   PKCE S256 and rotates both tokens on every refresh; Wahoo supports PKCE, and its old pair dies once
 *   the new access token is used, so a refreshed pair must be stored before it is used.
 * - History: intervals.icu pages by moving a date window's `newest` back; Wahoo by page number; Garmin
 *   answers a backfill window with 202 and delivers later by push/ping. All three hide behind an
 *   opaque `cursor` string the framework persists after every page and hands back unchanged.
 * - Push: Garmin has no signature (check the `garmin-client-id` header); intervals.icu puts `secret` in
 *   the envelope; Wahoo puts `webhook_token` in the body. Garmin also pushes permission changes, which
 *   the framework stores on the connection (domain/provider-permissions.ts gates the work).
 *
 * Deliberately not here: storage, sealing (credentials.ts), scheduling, retries (the framework's
 * back-off reads `RateLimited`). Kept honest by test/engine/integrations/*.test.ts against stand-ins.
 */
import type { ProviderTokens } from './credentials.js';
import type { Provider } from '../../domain/providers.js';
import type { ProviderConfig } from '../../domain/integration-settings.js';

/** Everything an adapter is configured with (domain/integration-settings.ts, via engine/config.ts). */
export type ProviderSettings = ProviderConfig;

/** One HTTP answer the adapter could not use because the provider is throttling. */
export class RateLimited extends Error {
  constructor(
    readonly provider: Provider,
    /** When to try again, Unix ms, from `Retry-After` or a reset header; null: none given, back off with jitter. */
    readonly retryAt: number | null,
    /** True when a daily quota is spent (the wait is long; keep the place and pause). */
    readonly daily = false,
  ) {
    super(`${provider}: rate limited${retryAt === null ? '' : ` until ${new Date(retryAt).toISOString()}`}`);
    this.name = 'RateLimited';
  }
}

/** The provider refused the token (revoked, deauthorized, expired refresh): the user must reconnect. */
export class AuthorizationRevoked extends Error {
  constructor(readonly provider: Provider, detail: string) {
    super(`${provider}: authorization refused: ${detail}`);
    this.name = 'AuthorizationRevoked';
  }
}

/** Anything else the provider answered that the adapter cannot use (5xx, malformed body). Retried later. */
export class ProviderError extends Error {
  constructor(readonly provider: Provider, message: string, readonly status: number | null = null) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderError';
  }
}

/**
 * A refusal that asking again cannot change: the provider will not serve this request (a 4xx other than
 * 401/403 and 429) or the user did not grant what it needs (412). Reported at once, never retried.
 */
export class ProviderRefused extends ProviderError {
  constructor(provider: Provider, message: string, status: number | null = null) {
    super(provider, message, status);
    this.name = 'ProviderRefused';
  }
}

/** The start of an authorization: where to send the browser, and what to keep until the callback. */
export interface AuthorizationStart {
  url: string;
  /** PKCE verifier to keep beside the state, or null when the provider takes no PKCE. */
  codeVerifier: string | null;
}

/**
 * Who the provider says the person is, for a sign-in through it (gateway: `integration` on authorize):
 * what a new account is created with. Every field is null when the provider documents none.
 */
export interface ProviderProfile {
  /** Only where the provider documents one for our app (Wahoo, with the `email` scope). */
  email: string | null;
  firstName: string | null;
  lastName: string | null;
}

/** One activity in a provider's history listing. */
export interface RemoteActivity {
  /** The provider's activity id: the de-duplication key (one import per id, ever). */
  id: string;
  /** Start, Unix ms. */
  start: number;
  /** What to fetch the original file with; null when the provider has no file (a Strava stub). */
  file: string | null;
}

/** One page of history, newest first. */
export interface HistoryPage {
  activities: RemoteActivity[];
  /** Where the next (older) page starts, or null when the history is exhausted. */
  next: string | null;
  /**
   * Only for providers that deliver history asynchronously (Garmin's 202 backfill): the page was a
   * request, and its activities will arrive by push. The framework then counts the window as loaded.
   */
  deferred?: boolean;
  /**
   * The provider withholds history (Garmin's backfill 403 without HISTORICAL_DATA_EXPORT): the walk stops
   * here and keeps its place, to resume once the user grants it; the text says so, for the user.
   */
  withheld?: string;
}

/** A push the provider sent, parsed and verified. Several users' items may share one body. */
export type PushItem =
  | { kind: 'activity'; externalUserId: string; activity: RemoteActivity }
  | { kind: 'activity_deleted'; externalUserId: string; activityId: string }
  | { kind: 'dailies'; externalUserId: string; dailies: RemoteDaily[] }
  | { kind: 'deauthorized'; externalUserId: string }
  /** The provider says what the user grants changed (Garmin `userPermissionsChange`); `changedAt` Unix ms, null when not dated. */
  | { kind: 'permissions'; externalUserId: string; changedAt: number | null }
  | { kind: 'ignored'; reason: string };

/** One daily value from a provider (providers.md "Dailies and wellness"), in the interface's units. */
export interface RemoteDaily {
  /** Local date `YYYY-MM-DD`. */
  date: string;
  /** A daily measure name as domain/daily-measures.ts spells it (body_mass kg, resting_hr bpm …). */
  measure: string;
  value: number;
}

/** A push request as the gateway received it (headers lower-cased, body raw). */
export interface PushRequest {
  headers: Record<string, string | undefined>;
  body: Uint8Array;
}

export interface ProviderAdapter {
  readonly provider: Provider;

  /**
   * The URL to send the browser to; `redirectUri` is our callback, `state` binds it to the session.
   * `signIn`: the person signs in through the provider, so also ask for what identifies them where the
   * provider has a scope for it (Wahoo's `email`).
   */
  authorizationUrl(input: { redirectUri: string; state: string; signIn?: boolean }): AuthorizationStart;

  /**
   * Exchanges the callback's code for tokens (within the provider's code lifetime: 2 min on intervals.icu),
   * with the provider's user id when the exchange tells it and the person's profile where the provider has one.
   */
  exchangeCode(input: { code: string; redirectUri: string; codeVerifier: string | null }): Promise<ProviderTokens & { externalUserId: string | null; profile?: ProviderProfile }>;

  /**
   * New tokens from the refresh token, or null when the provider's tokens never expire. Garmin and Wahoo
   * rotate the refresh token too: the caller stores the result before using it.
   */
  refresh(tokens: ProviderTokens): Promise<ProviderTokens | null>;

  /** The provider's stable id of the token's user (Garmin `userId`, intervals.icu athlete id, Wahoo user id). */
  identity(tokens: ProviderTokens): Promise<string>;

  /**
   * What the user grants now, read from the provider (Garmin `user/permissions`), for a provider with
   * permissions (domain/provider-permissions.ts). A pushed permission change is only the cue to read it.
   */
  permissions?(tokens: ProviderTokens): Promise<string[]>;

  /**
   * One page of history newest first. `cursor` null starts at `newest`; `oldest` bounds the walk (Unix ms,
   * 5 years back for a backfill). The returned `next` is opaque and resumable after a restart.
   */
  listHistory(tokens: ProviderTokens, input: { cursor: string | null; oldest: number; newest: number }): Promise<HistoryPage>;

  /** The original file bytes of one activity (gunzipped when the provider gzips them). Null: gone (404/410). */
  download(tokens: ProviderTokens, activity: RemoteActivity): Promise<Uint8Array | null>;

  /** Parses and verifies a push; throws `PushRejected` when it does not carry our secret. */
  parsePush(request: PushRequest): PushItem[];

  /** Daily measures between two local dates, when the provider has any (intervals.icu wellness). */
  dailies?(tokens: ProviderTokens, input: { oldest: string; newest: string }): Promise<RemoteDaily[]>;

  /** Revokes the token at the provider, where it documents how; a token already refused is not an error. */
  revoke?(tokens: ProviderTokens): Promise<void>;
}

/** A push that does not carry our secret or client id: answered 401/403, never processed. */
export class PushRejected extends Error {
  constructor(readonly provider: Provider, detail: string) {
    super(`${provider} push: ${detail}`);
    this.name = 'PushRejected';
  }
}

/** Back-off with full jitter when the provider gave no hint: attempt 1 → up to `baseMs`, doubling, capped. */
export function backoffMs(attempt: number, baseMs = 1000, capMs = 15 * 60_000, random = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
