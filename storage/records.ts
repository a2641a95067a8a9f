/**
 * Record types for the whole interface, one per collection of the storage port.
 *
 * Conventions: `*_at`, `start`, `end`, `timestamp` are UTC epoch milliseconds; `*_offset` is the UTC
 * offset in minutes the source carried (local = utc + offset); `date` is a local calendar date
 * `YYYY-MM-DD`. Every record a user owns carries `user_id` — that is how deletion finds it. Secrets are
 * stored as `*_hash` (SHA-256 hex of the secret) and never in clear.
 */

/** Free JSON object, as stored for app metadata, test results and workout payloads. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** App metadata per application id: `{ [application_id]: object }`. An app sees only its own entry. */
export type AppMetadata = Record<string, JsonObject>;

export interface UserRecord {
  id: string;
  /** Lowercased; unique when set. Managed users have none. */
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  /** scrypt hash `scrypt$N$r$p$salt$hash` (base64url), or null when the user signs in by link only. */
  password_hash: string | null;
  admin: boolean;
  /** Manager's user id for a managed user (which can never sign in); null otherwise. */
  managed_by: string | null;
  registered_at: number;
  app_metadata: AppMetadata;
  /** Set by each app-metadata write (its condition); absent on a user never written since creation. */
  updated_at?: number;
}

export interface ApplicationRecord {
  id: string;
  /** Owner's user id. */
  user_id: string;
  name: string;
  description: string | null;
  image: string | null;
  url: string | null;
  redirect_uris: string[];
  privacy_statement: string | null;
  brand_color: string | null;
  webhook_endpoints: string[];
  /** Kept in clear: it signs outgoing webhooks (HMAC), so it must be recoverable. */
  webhook_secret: string | null;
  /** Purpose sentence per scope category (`activities`, `wellness`, …), 20–160 chars each. */
  purposes: Record<string, string>;
  /** Capabilities the app declares for account status (default activities, activity_history). */
  capabilities: string[];
  page_slug: string | null;
  page_published: boolean;
  created_at: number;
  /**
   * Set only by an operator (an imported client, the command line's own): its tokens may act on the
   * applications and pages endpoints for the person (gaps.md "Pages", safety rules). Missing means false.
   */
  first_party?: boolean;
}

/** One file of a page's current deploy; its bytes sit in the blob space under `PageRecord.blob_prefix + path`. */
export interface PageFileRecord {
  /** Bytes. */
  size: number;
  /** Strong validator: `"sha256:<base64url>"` of the bytes, quoted. */
  etag: string;
}

/**
 * A hosted page (interface §2 "Page"), keyed by its slug (`id` is the slug), so a slug is unique by the
 * primary key. A deleted page stays as a tombstone (`deleted_at` set, no files): its slug is retired and
 * never given to another application (gaps.md "Pages", safety rules).
 */
export interface PageRecord {
  id: string;
  application_id: string;
  /** The application owner's id (deletion reaches pages and their blobs through it). */
  user_id: string;
  /** True once a deploy has published files. */
  published: boolean;
  /** The current deploy's blob key prefix (`pages/<slug>/<deploy id>/`), null before the first deploy. */
  blob_prefix: string | null;
  /** Relative path → file, for the current deploy. */
  files: Record<string, PageFileRecord>;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

export interface ClientSecretRecord {
  id: string;
  application_id: string;
  /** The application owner's id (deletion reaches secrets through it). */
  user_id: string;
  label: string | null;
  secret_hash: string;
  /** First characters of the secret, for display ("tsk_ab12…"). */
  hint: string;
  created_at: number;
}

export interface GrantRecord {
  id: string;
  user_id: string;
  application_id: string;
  /** The union of every consented scope; never shrinks while the grant exists. */
  scopes: string[];
  created_at: number;
  updated_at: number;
  /**
   * Issuances revoked because their code was replayed (gateway/auth/issuances.ts), each kept `until`
   * (epoch ms) its last access token has expired. Absent on grants that never saw a replay.
   */
  revoked_issuances?: { id: string; until: number }[];
  /** How many times revoked_issuances was written: the condition of the next write. */
  revocations?: number;
}

export interface AuthorizationCodeRecord {
  id: string;
  code_hash: string;
  user_id: string;
  application_id: string;
  /** The grant it was issued under; revoking the grant before redemption makes the code worthless. */
  grant_id: string;
  redirect_uri: string;
  scopes: string[];
  /** PKCE S256 challenge; a code with one must be redeemed with its verifier and without a secret. */
  code_challenge: string | null;
  nonce: string | null;
  auth_time: number;
  expires_at: number;
  /** Set exactly once by the redemption that wins. */
  consumed_at: number | null;
  /** Set with `consumed_at`: the issuance id every token issued from this code carries (absent on older records). */
  issuance_id?: string | null;
  created_at: number;
}

export interface RefreshTokenRecord {
  id: string;
  token_hash: string;
  user_id: string;
  application_id: string;
  grant_id: string;
  /** The client secret the token was issued under, or null for a PKCE client. */
  client_secret_id: string | null;
  scopes: string[];
  /** When the user signed in for the flow that issued it (the ID token's `auth_time`, epoch ms). */
  auth_time: number;
  /** The issuance of the code exchange that issued it (gateway/auth/issuances.ts); absent on older records. */
  issuance_id?: string | null;
  created_at: number;
  last_used_at: number | null;
}

/**
 * A browser session. Every browser that sees a form gets one (anonymous: `user_id` null) so that
 * sign-in forms carry a CSRF token too; signing in replaces it with a new session (new id, new cookie,
 * new CSRF token) and moves its pending interactions across.
 */
export interface SessionRecord {
  id: string;
  /** SHA-256 of the cookie value. */
  session_hash: string;
  user_id: string | null;
  csrf_token: string;
  /** When the user signed in (epoch ms); null while anonymous. */
  auth_time: number | null;
  expires_at: number;
  created_at: number;
}

/** A pending authorization request waiting for sign-in or consent, bound to a browser session. */
export interface InteractionRecord {
  id: string;
  user_id: string | null;
  session_id: string | null;
  application_id: string;
  /** The validated authorization request parameters. */
  request: JsonObject;
  expires_at: number;
  consumed_at: number | null;
  created_at: number;
}

export interface MagicLinkRecord {
  id: string;
  token_hash: string;
  user_id: string;
  interaction_id: string | null;
  expires_at: number;
  consumed_at: number | null;
  created_at: number;
}

/**
 * A portal link (interface §4 "Portal"; gaps.md "Portal") and, once followed, the portal visit it opened.
 * The link token and the visit's cookie are stored only as SHA-256 hashes. Until the link is used,
 * `expires_at` is the link's expiry; using it (one conditional write) sets `consumed_at`, `browser_hash`
 * and moves `expires_at` to the end of the visit.
 */
export interface PortalSessionRecord {
  id: string;
  token_hash: string;
  user_id: string;
  /** The application the portal is branded for, whose token created the link. */
  application_id: string;
  /** `manage-integrations` or `manage-teams`. */
  destination: string;
  /** Where "Back to the app" leads; under one of the application's redirect URIs. */
  return_url: string | null;
  expires_at: number;
  consumed_at: number | null;
  /** SHA-256 of the portal cookie issued when the link was used; null before. */
  browser_hash: string | null;
  csrf_token: string;
  created_at: number;
}

/** An RS256 signing key pair, as JWKs. The newest unretired key signs; all unexpired ones verify. */
export interface SigningKeyRecord {
  id: string;
  /** Rank among generations; unique, so concurrent first starts create exactly one generation 1. */
  generation: number;
  kid: string;
  private_jwk: JsonObject;
  public_jwk: JsonObject;
  created_at: number;
  /** When it stopped signing; published until retired_at + token lifetime. */
  retired_at: number | null;
}

export interface TeamRecord {
  id: string;
  /** The owner's user id. */
  user_id: string;
  name: string;
  description: string;
  url: string;
  image: string;
  privacy_statement: string;
  created_at: number;
}

export interface TeamMemberRecord {
  id: string;
  team_id: string;
  user_id: string;
  role: 'owner' | 'member';
  created_at: number;
}

/** An emailed, single-use invitation to join a team; only the SHA-256 of its token is stored. */
export interface TeamInvitationRecord {
  id: string;
  team_id: string;
  /** The owner who invited. */
  user_id: string;
  /** Lowercased address the link was sent to. */
  email: string;
  token_hash: string;
  expires_at: number;
  /** Set once by the one acceptance that wins; null while usable. */
  consumed_at: number | null;
  created_at: number;
}

export interface TeamAuthorizationRecord {
  id: string;
  team_id: string;
  /** The user whose data the team may access. */
  user_id: string;
  scopes: string[];
  created_at: number;
  updated_at: number;
}

/** Summary statistics of one metric over an activity or a lap (fields per `spec/gaps.md`). */
export interface MetricSummary {
  mean?: number | null;
  min?: number | null;
  max?: number | null;
  sum?: number | null;
  start?: number | null;
  end?: number | null;
  gain?: number | null;
  loss?: number | null;
}

export type SummaryBlocks = Record<string, MetricSummary>;

export interface LapRecord {
  start: number;
  end: number;
  offset: number;
  blocks: SummaryBlocks;
}

export interface ActivityRecord {
  id: string;
  user_id: string;
  source_id: string;
  /** Index of the session inside the source (multisport files yield several activities). */
  source_index: number;
  /** Canonical Open Sport Taxonomy string. */
  sport: string;
  /** The first sample; the end of the last one's 1 s hold, so `end − start` is the series' length (ANALYTICS.md §4). */
  start: number;
  end: number;
  /** UTC offset in minutes at the start, as the source carried it. */
  offset: number;
  /** Local calendar date of `start` (YYYY-MM-DD), for date filters on the activity's own local date. */
  local_date: string;
  /** Recorded time in seconds (without pauses longer than the hold cap). */
  duration_s: number;
  metrics: string[];
  tags: string[];
  devices: string[];
  distance: number | null;
  summary: SummaryBlocks | null;
  laps: LapRecord[] | null;
  app_metadata: AppMetadata;
  /**
   * The athlete's own notes (`PATCH /api/v1/ext/activities/{id}`, gateway/services/activity-corrections.ts);
   * not an interface field, so no interface answer shows them. Absent or null when none.
   */
  notes?: string | null;
  /** When the sport was last corrected by a person or an app (epoch ms): re-processing the source keeps that sport. */
  sport_corrected_at?: number;
  /** Blob key of the series (Arrow IPC). */
  series_key: string;
  /** Number of samples in the series. */
  samples: number;
  /**
   * Blob key of the analysis cache (engine/analysis/activity-analysis.ts) and the algorithm version it was
   * computed with; absent until computed. A new key is used for every computation, so a cache can only be
   * found through the record that names it.
   */
  analysis_key?: string;
  analysis_version?: number;
  /**
   * Derived (schema.ts `derived`): the activity as lists answer it, ready to send — the JSON text of its
   * summary cut before the caller-dependent `app_metadata` value (gateway/presenters/listing.ts) — and the
   * format version it was written in. Absent until a list first answers the activity; every write that does
   * not set them drops them, and the next list derives them again.
   */
  listing?: string;
  listing_version?: number;
  created_at: number;
  updated_at: number;
}

export interface SourceRecord {
  id: string;
  user_id: string;
  type: 'fit' | 'csv' | null;
  origin: 'manual_upload' | 'garmin_connect' | 'intervals_icu' | 'wahoo';
  filename: string | null;
  /** SHA-256 hex of the original bytes: the same file uploaded twice is recognised. */
  content_hash: string;
  size: number;
  status: 'processing' | 'processed' | 'failed';
  activity_ids: string[];
  error: { code: string; message: string | null } | null;
  /** Problems recorded while decoding that did not fail the source (salvage, unknown columns). */
  warnings: string[];
  /** Blob key of the original bytes. */
  bytes_key: string;
  /** The application that uploaded it, when an app token was used. */
  application_id: string | null;
  /**
   * For a provider import: `<provider>:<provider activity id>`, unique per user, so an activity a provider
   * lists twice (a page overlap, a duplicate push, a backfill resumed after a crash) is imported once.
   */
  external_id?: string | null;
  created_at: number;
  updated_at: number;
}

export interface TraceRecord {
  id: string;
  user_id: string;
  timestamp: number;
  offset: number;
  /** Local calendar date of `timestamp` (YYYY-MM-DD), for the list's date filters. */
  local_date: string;
  test_id: string | null;
  lactate: number | null;
  rpe: number | null;
  notes: string | null;
  power: number | null;
  speed: number | null;
  heart_rate: number | null;
  vo2: number | null;
  tags: string[];
  sport: string | null;
  app_metadata: AppMetadata;
  created_at: number;
  updated_at: number;
}

export interface TestRecord {
  id: string;
  user_id: string;
  sport: string;
  start: number;
  start_offset: number;
  end: number;
  end_offset: number;
  /** Local calendar date of `start` (YYYY-MM-DD), for the list's date filters. */
  local_date: string;
  title: string | null;
  results: JsonObject | null;
  tags: string[];
  /** Application id or 'user' for the person themself. */
  created_by: string | null;
  app_metadata: AppMetadata;
  created_at: number;
  updated_at: number;
}

export interface DailyRecord {
  id: string;
  user_id: string;
  measure: string;
  date: string;
  value: number;
  source: 'manual' | 'garmin_connect' | 'intervals_icu' | 'wahoo';
  created_at: number;
  updated_at: number;
}

export interface MarkerRecord {
  id: string;
  user_id: string;
  sport: string;
  marker: string;
  metric: 'power' | 'speed' | 'vo2' | 'heart_rate';
  value: number;
  date: string;
  provenance: 'measured' | 'declared' | 'external';
  pinned: boolean;
  source: string | null;
  application_id: string | null;
  activity_id: string | null;
  test_id: string | null;
  created_at: number;
}

export interface MaxEffortRecord {
  id: string;
  user_id: string;
  sport: string;
  metric: 'power' | 'speed';
  date: string;
  duration_s: number;
  distance: number | null;
  value: number;
  provenance: 'measured' | 'declared';
  title: string | null;
  source: string | null;
  application_id: string | null;
  activity_id: string | null;
  created_at: number;
}

export interface WorkoutRecord {
  id: string;
  user_id: string;
  sport: string;
  start: number;
  offset: number;
  swf: JsonObject;
  parameters: JsonObject | null;
  application_id: string | null;
  deliveries: WorkoutDelivery[];
  warnings: string[];
  created_at: number;
  /** The start's local date (`YYYY-MM-DD` at `offset`): what the list's date range filters on. */
  local_date: string;
}

/** One integration's delivery of a scheduled workout (gaps.md `deliveries[]`), plus what only the engine reads. */
export interface WorkoutDelivery {
  integration: string;
  /** pending → delivered | failed. */
  status: string;
  reason?: string;
  detail?: string;
  updated_at?: number;
  /** The provider's ids of what was created (Garmin workoutId/scheduleId, intervals.icu event id, Wahoo plan/workout ids); never shown. */
  remote?: JsonObject;
}

export interface ConnectionRecord {
  id: string;
  user_id: string;
  provider: 'garmin_connect' | 'intervals_icu' | 'wahoo';
  external_user_id: string | null;
  /** Provider tokens, encrypted at rest by the integration layer. */
  credentials: JsonObject;
  status: 'connected' | 'action_required' | 'disconnected';
  /** Earliest activity date loaded by the backfill so far. */
  backfill_loaded_until: number | null;
  backfill_done: boolean;
  /** Where the backfill resumes (the adapter's opaque history cursor), persisted after every page and file. */
  backfill_cursor?: string | null;
  /** The newest activity start seen (Unix ms): polling for new activities starts there. */
  newest_seen?: number | null;
  /** The last problem the sync met (rate limit, provider error), shown in backfill-status; null when fine. */
  sync_error?: { code: string; message: string; at: number } | null;
  /**
   * What the user granted at the provider, in plain (Garmin's permissions: ACTIVITY_EXPORT …), read by the
   * engine's gates and the portal (domain/provider-permissions.ts); absent or null when unknown.
   */
  permissions?: string[] | null;
  /** When `permissions` was last known true at the provider, Unix ms: a change dated earlier is stale. */
  permissions_at?: number | null;
  /** The backfill stopped because the provider withholds history; it resumes at backfill_cursor once granted. */
  backfill_withheld?: boolean;
  created_at: number;
  updated_at: number;
}

/**
 * A provider authorization in flight: the OAuth `state` we sent (stored hashed), bound to the browser
 * that started it, with the PKCE verifier and where to go afterwards. Single use, short-lived.
 */
export interface ProviderAuthorizationRecord {
  id: string;
  user_id: string;
  provider: 'garmin_connect' | 'intervals_icu' | 'wahoo';
  state_hash: string;
  /** The browser binding: the sign-in session id or the portal visit id that started it. */
  binding: string;
  code_verifier: string | null;
  /** `portal` (back to manage-integrations) or `interaction:<id>` (back into the authorize flow). */
  return_to: string;
  expires_at: number;
  consumed_at: number | null;
  created_at: number;
}

/** Outbox entry, written in the same batch as the change it reports; delivered at least once. */
export interface EventRecord {
  id: string;
  user_id: string;
  event_type: string;
  resource_id: string;
  timestamp: number;
  /** Per application id: delivery state of its webhook endpoints. Unused since issue 15: EventDeliveryRecord holds it. */
  deliveries: Record<string, { attempts: number; delivered_at: number | null; next_attempt_at: number | null }>;
  /**
   * `pending` until the dispatcher publishes it (gives it `seq` and its deliveries, engine/events/publish.ts);
   * `published` afterwards. (`delivered` and `expired` are never written: each delivery has its own status.)
   */
  status: 'pending' | 'published' | 'delivered' | 'expired';
  created_at: number;
  /** Order among events written by one process in the same millisecond (a batch's events in batch order). */
  ord?: number;
  /** Position in the event feed, set at publication: unique, and publications commit in increasing order (EventPublicationRecord). */
  seq?: number;
}

/**
 * One publication of events (engine/events/publish.ts): its id `p<first>` is the guard that lets only one
 * of two racing publishers number events from `first`. Kept an hour.
 */
export interface EventPublicationRecord {
  id: string;
  first: number;
  last: number;
  created_at: number;
}

/**
 * One event on its way to one webhook endpoint of one application (engine/events/). Deliveries sharing a
 * `queue` (application, endpoint, user) go out in `seq` order: one is attempted only when no delivery of
 * its queue with a lower `seq` is still pending.
 */
export interface EventDeliveryRecord {
  /** `<event id>:<endpoint key>`, or `…:r<time>` for a redelivery asked on the account page. */
  id: string;
  event_id: string;
  /** The event's user (whose deletion removes it). */
  user_id: string;
  application_id: string;
  endpoint: string;
  queue: string;
  seq: number;
  status: 'pending' | 'delivered' | 'expired';
  attempts: number;
  /** Epoch ms; null once final. */
  next_attempt_at: number | null;
  /** Epoch ms: 24 h after the event (after the request, for a redelivery); no attempt starts later. */
  expires_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  /** The claim round that holds the lease (one batch claims many deliveries; this tells which it got). */
  claim: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** One delivery attempt, kept for the account page's attempt log (retention: WEBHOOK_ATTEMPT_RETENTION_DAYS). */
export interface EventAttemptRecord {
  id: string;
  delivery_id: string;
  event_id: string;
  /** The event's user. */
  user_id: string;
  application_id: string;
  endpoint: string;
  /** Epoch ms when the attempt started. */
  at: number;
  /** The receiver's HTTP status, or null when none came (timeout, refused address, connection error). */
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface JobRecord {
  id: string;
  /** Owning user, when the job works on a user's data. */
  user_id: string | null;
  kind: string;
  /** Uniqueness key, unique when set (e.g. `ingest:<source_id>`); run again by re-queueing the same job. */
  key: string | null;
  payload: JsonObject;
  status: 'queued' | 'running' | 'done' | 'failed';
  attempts: number;
  run_after: number;
  lease_owner: string | null;
  lease_until: number | null;
  /** Progress of long work, 0–1. */
  progress: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * Events counted under one rate-limit key in one window (storage/window-counters.ts): the window opens
 * with its first event and ends at `expires_at`; an expired window is restarted by the next event or swept.
 */
export interface RateLimitRecord {
  /** `<limit>:<key hash>`: which limit, and whom it counts (a client address, an email), hashed. */
  id: string;
  /** Events counted in the window. */
  count: number;
  /** Epoch ms when the window ends. */
  expires_at: number;
}

/**
 * One window of a provider app's request budget (engine/integrations/provider-budget.ts): how many calls
 * every engine together has made to `provider` under the app `app` (our client id there) in the window
 * starting at `window_start`. Global, not a user's: one app's budget is shared by all its users.
 */
export interface ProviderBudgetRecord {
  /** `<provider>:<app>:<window_ms>:<window_start>`. */
  id: string;
  provider: string;
  app: string;
  /** Window length and start, milliseconds and Unix ms (windows are aligned to multiples of their length). */
  window_ms: number;
  window_start: number;
  /** Calls spent in the window, and how many it allows. */
  used: number;
  limit: number;
  /** Unix ms after which the record is of no use (the window's end). */
  expires_at: number;
}

/**
 * A user's listing stamp (storage/listing-stamps.ts): a fresh value written after every change to a
 * collection their list pages are built from (schema.ts `stamped`), so a process holding a page in memory
 * tells with one read whether it may still answer it.
 */
export interface ListingStampRecord {
  /** The user's id (one stamp per user). */
  id: string;
  user_id: string;
  /** A new id per change: never repeats, so a stamp seen once never comes back. */
  stamp: string;
}
