/**
 * The storage port: the one interface the gateway and the engine use to persist anything.
 *
 * Two real backends implement it (storage/sqlite, storage/mongo) and one contract suite
 * (test/storage/contract.ts) keeps them equivalent. The port is deliberately small:
 *
 * - every record kind lives in a named collection of JSON documents keyed by `id`
 *   (`Collection<T>`), queried with a tiny filter language both backends translate natively;
 * - large binary values (activity series as Arrow IPC, uploaded file bytes, derived caches)
 *   live in a separate blob space keyed by string (`Blobs`), never inside documents;
 * - writes that must happen once are conditional (`updateOne` with a condition in the filter,
 *   `insertIfAbsent` against a unique index, `claim` for leased jobs) — never read-then-write;
 * - `batch` applies several writes atomically (an outbox event in the same write as its change);
 * - derived fields (schema.ts `derived`, e.g. an activity's `listing`) are kept only by a write that names
 *   them: `insert`, `put` and any change that does not name them drop them, so a value computed from a
 *   document never outlives the fields it was computed from.
 *
 * - collections of user-owned data are sharded by user (schema.ts `shard`, storage/shard-keys.ts): on them
 *   every filter names its user by `user_id` equality, every written document carries its whole shard key
 *   (`user_id`, and `start` for activities), and `get(id)` is refused (`findOne({ id, user_id })` instead),
 *   on both backends, so one API call reaches one shard of a MongoDB sharded cluster. Anything else on such
 *   a collection is a `StoreUsageError`.
 *
 * Instants are stored as UTC epoch milliseconds (`*_at`, `start`, `end`) plus, where the
 * source carried one, the UTC offset in minutes (`*_offset`) so local time round-trips exactly.
 * Secrets (client secrets, refresh tokens, authorization codes, magic links) are stored as hashes.
 */
import type {
  ActivityRecord, ApplicationRecord, AuthorizationCodeRecord, ClientSecretRecord, ConnectionRecord,
  DailyRecord, EventAttemptRecord, EventDeliveryRecord, EventPublicationRecord, EventRecord, GrantRecord, InteractionRecord, JobRecord, MagicLinkRecord, MarkerRecord,
  MaxEffortRecord, PageRecord, RefreshTokenRecord, SessionRecord, SigningKeyRecord, SourceRecord, TeamAuthorizationRecord, TeamInvitationRecord,
  TeamMemberRecord, TeamRecord, TestRecord, TraceRecord, UserRecord, WorkoutRecord,
} from './records.js';
import type { ListingStampRecord, PortalSessionRecord, ProviderAuthorizationRecord, ProviderBudgetRecord, RateLimitRecord } from './records.js';
import type { GroupCommit } from './sqlite/write-groups.js';

export type * from './records.js';

/** Every stored document has a string id, unique within its collection. */
export interface Doc {
  id: string;
}

/** A scalar a filter can compare against. */
export type Scalar = string | number | boolean | null;

/**
 * Per-field condition on a scalar field. A bare value means equality; `null` matches a missing or
 * null field (both backends agree on that), and `$ne` matches a missing field too. Comparison
 * operators compare numbers with numbers, strings with strings and booleans with booleans, never
 * across types (ISO dates compare lexically, epoch milliseconds numerically). Values must be
 * scalars; `undefined` anywhere in a filter is a `StoreUsageError` (omit the key instead).
 */
export type Condition<V> =
  | V
  | null
  | {
      $eq?: V | null;
      $ne?: V | null;
      /** A null in the list matches a missing or null field (as the bare `null` does). */
      $in?: readonly (V | null)[];
      $nin?: readonly (V | null)[];
      $gt?: V;
      $gte?: V;
      $lt?: V;
      $lte?: V;
      /** true: the field is present and not null; false: missing or null. */
      $exists?: boolean;
      /** String fields: the value starts with this prefix (used for sport containment). */
      $prefix?: string;
      /** Array fields: the array contains every listed element. */
      $all?: readonly Scalar[];
      /** Array fields: the array contains at least one of the listed elements. */
      $any?: readonly Scalar[];
    };

/**
 * Condition on an array field: its elements are matched with `$all` / `$any`; `null`, `$exists`,
 * `$eq: null` and `$ne: null` test the field itself. Scalar comparisons are not offered on array
 * fields because MongoDB would apply them to the elements and SQLite to the whole value.
 */
export type ArrayCondition<E> =
  | null
  | { $all?: readonly E[]; $any?: readonly E[]; $exists?: boolean; $eq?: null; $ne?: null };

type FieldCondition<V> = [V] extends [readonly (infer E)[]] ? ArrayCondition<E> : Condition<V>;

/**
 * A conjunction of per-field conditions, optionally with alternatives (`$or`; an empty `$or`
 * matches nothing). Top-level fields only; field names are lower-case snake case.
 */
export type Filter<T> = { [K in keyof T]?: FieldCondition<NonNullable<T[K]>> } & {
  $or?: Filter<T>[];
};

/** Sort order: field → 1 ascending, -1 descending. Applied in key order; `id` breaks remaining ties. */
export type Sort<T> = { [K in keyof T]?: 1 | -1 };

export interface FindOptions<T> {
  sort?: Sort<T>;
  /** Maximum number of documents; omitted means all. */
  limit?: number;
  /** Number of matching documents to skip (after sorting). */
  offset?: number;
}

/**
 * A change to one or more documents. `set` replaces the named top-level fields, `unset` removes
 * them, `inc` adds to numeric fields (missing counts as 0; null or any other type is a
 * `StoreUsageError`). `id` can never be changed, and a field may appear in only one of the three.
 */
export interface Change<T> {
  set?: Partial<T>;
  unset?: (keyof T)[];
  inc?: { [K in keyof T]?: number };
}

export type InsertOutcome<T> = { inserted: true; doc: T } | { inserted: false; existing: T };

export interface Collection<T extends Doc> {
  /** Collection name as stored (table name in SQLite, collection name in MongoDB). */
  readonly name: string;

  /**
   * Inserts a new document. Throws `DuplicateKeyError` when the id or a unique index collides.
   * (Every write that can make a unique index collide — `put`, `updateOne`, `updateMany`, `batch` —
   * throws it the same way.)
   */
  insert(doc: T): Promise<void>;

  /**
   * Inserts the document unless one with the same values for `key` already exists (a unique
   * index must cover `key`, and the document must have a non-null value for every key field).
   * Atomic against concurrent callers: exactly one insert wins, every other caller gets the winner
   * back as `existing`. A collision on another unique index still throws `DuplicateKeyError`.
   */
  insertIfAbsent(doc: T, key: (keyof T & string)[]): Promise<InsertOutcome<T>>;

  /**
   * The document with this id, or null. Unsharded collections only: on a collection sharded by user an id
   * alone does not say which shard holds it, so `get` is a `StoreUsageError` there; use
   * `findOne({ id, user_id })`.
   */
  get(id: string): Promise<T | null>;

  findOne(filter: Filter<T>, options?: Pick<FindOptions<T>, 'sort'>): Promise<T | null>;
  find(filter: Filter<T>, options?: FindOptions<T>): Promise<T[]>;

  /**
   * The named top-level `fields` of the documents `find(filter, options)` would return, in the same
   * order, without reading the rest of each document: a hot list reads a few small fields and a
   * stored string (SQLite extracts them in SQL, MongoDB projects them). Each row holds exactly the
   * named fields a document has (`id` only when named; a missing field is missing from the row, a
   * null one is null); strings come back as stored, objects and arrays as parsed values. At least
   * one field; names as in filters, else `StoreUsageError`.
   */
  findFields<K extends keyof T & string>(filter: Filter<T>, fields: readonly K[], options?: FindOptions<T>): Promise<Pick<T, K>[]>;

  count(filter: Filter<T>): Promise<number>;

  /**
   * Applies `change` to the first document (by `sort`) matching `filter` and returns it as it is
   * after the change, or null when nothing matched. Atomic: the filter is the condition, so
   * `updateOne({ id, consumed_at: null }, { set: { consumed_at: now } })` succeeds exactly once
   * however many callers race.
   */
  updateOne(filter: Filter<T>, change: Change<T>, options?: Pick<FindOptions<T>, 'sort'>): Promise<T | null>;

  /** Applies `change` to every matching document; returns how many matched. */
  updateMany(filter: Filter<T>, change: Change<T>): Promise<number>;

  /**
   * Replaces the whole document with this id (inserting it when absent). On a sharded collection the
   * document names its shard key, and a put must not change it (an activity's `start`: delete and insert
   * instead), since MongoDB matches the upsert on the id and the key.
   */
  put(doc: T): Promise<void>;

  /** Deletes every matching document; returns how many were deleted. */
  deleteMany(filter: Filter<T>): Promise<number>;
}

/** Binary values keyed by string. Each blob records its owning user so a user's deletion reaches it. */
export interface Blobs {
  /** Stores (or replaces) the bytes under `key`. Readers see either the old or the new value, never a mix. */
  put(key: string, bytes: Uint8Array, owner: { userId: string | null }): Promise<void>;
  /** The bytes under `key`, or null. */
  get(key: string): Promise<Uint8Array | null>;
  /**
   * The bytes under each of `keys`, in order (null where absent; a repeated key is answered each time), in a
   * constant number of queries however many keys (SQLite: one; MongoDB: the headers, then their chunks), so a
   * caller reading many small blobs (analysis caches) pays per call, not per blob. The caller bounds how
   * many bytes one call returns.
   */
  getMany(keys: readonly string[]): Promise<(Uint8Array | null)[]>;
  /** Size in bytes, or null when absent. */
  size(key: string): Promise<number | null>;
  /** Deletes the blob; returns whether it existed. */
  delete(key: string): Promise<boolean>;
  /** Deletes every blob whose key starts with `prefix`; returns how many. */
  deletePrefix(prefix: string): Promise<number>;
  /** Deletes at most `limit` of the blobs `userId` owns (a bounded step of a user's deletion); returns how many. */
  deleteOwnedBatch(userId: string, limit: number): Promise<number>;
}

type RecordOf<C extends CollectionName> = Collections[C] extends Collection<infer T> ? T : never;

/**
 * One write inside an atomic `batch`, typed by its collection: `insert` as `Collection.insert`,
 * `put` as `Collection.put`, `update` applies `change` to every matching document (as
 * `updateMany`), `delete` removes every matching document (as `deleteMany`).
 */
export type BatchOp = {
  [C in CollectionName]:
    | { collection: C; insert: RecordOf<C> }
    | { collection: C; put: RecordOf<C> }
    /** `expect`: the number of records the filter must match, or the whole batch fails with BatchConditionError. */
    | { collection: C; update: Filter<RecordOf<C>>; change: Change<RecordOf<C>>; expect?: number }
    | { collection: C; delete: Filter<RecordOf<C>> };
}[CollectionName];

/** Every collection of the port, with its record type. */
export interface Collections {
  users: Collection<UserRecord>;
  applications: Collection<ApplicationRecord>;
  pages: Collection<PageRecord>;
  client_secrets: Collection<ClientSecretRecord>;
  grants: Collection<GrantRecord>;
  authorization_codes: Collection<AuthorizationCodeRecord>;
  refresh_tokens: Collection<RefreshTokenRecord>;
  sessions: Collection<SessionRecord>;
  interactions: Collection<InteractionRecord>;
  magic_links: Collection<MagicLinkRecord>;
  portal_sessions: Collection<PortalSessionRecord>;
  signing_keys: Collection<SigningKeyRecord>;
  teams: Collection<TeamRecord>;
  team_members: Collection<TeamMemberRecord>;
  team_authorizations: Collection<TeamAuthorizationRecord>;
  team_invitations: Collection<TeamInvitationRecord>;
  activities: Collection<ActivityRecord>;
  sources: Collection<SourceRecord>;
  traces: Collection<TraceRecord>;
  tests: Collection<TestRecord>;
  dailies: Collection<DailyRecord>;
  markers: Collection<MarkerRecord>;
  max_efforts: Collection<MaxEffortRecord>;
  workouts: Collection<WorkoutRecord>;
  connections: Collection<ConnectionRecord>;
  provider_authorizations: Collection<ProviderAuthorizationRecord>;
  events: Collection<EventRecord>;
  event_publications: Collection<EventPublicationRecord>;
  event_deliveries: Collection<EventDeliveryRecord>;
  event_attempts: Collection<EventAttemptRecord>;
  jobs: Collection<JobRecord>;
  rate_limits: Collection<RateLimitRecord>;
  provider_budgets: Collection<ProviderBudgetRecord>;
  listing_stamps: Collection<ListingStampRecord>;
}

export type CollectionName = keyof Collections;

export interface Store extends Collections {
  /** 'sqlite' or 'mongo'. */
  readonly backend: 'sqlite' | 'mongo';
  readonly blobs: Blobs;

  /**
   * Applies every op or none. SQLite: one transaction. MongoDB: one multi-document transaction
   * (requires a replica set or sharded cluster, as production deployments are).
   */
  batch(ops: BatchOp[]): Promise<void>;

  /**
   * Claims the oldest runnable job of one of `kinds`: status `queued` with `run_after` ≤ now, or
   * status `running` whose lease expired (its worker died); oldest by `run_after`, then
   * `created_at`. Sets status `running`, `lease_owner`, `lease_until = now + leaseMs`,
   * `updated_at = now` and increments `attempts`, atomically: a job is claimed by one worker at a
   * time. `now` and `leaseMs` are epoch milliseconds / milliseconds; `now` defaults to the clock.
   */
  claimJob(kinds: string[], owner: string, leaseMs: number, now?: number): Promise<JobRecord | null>;

  /**
   * Deletes a user and everything they own, in every collection and the blob space: their
   * records, their managed users (recursively), their applications with those applications'
   * secrets, grants, codes, tokens and pending interactions (other users' included), and their
   * teams with those teams' members and authorizations. Returns the number of documents and
   * blobs removed. SQLite: one transaction; MongoDB: one transaction per user (managed users first, the
   * user last) where the deployment supports them, otherwise children first and the user last, so a
   * retry finishes the job.
   * The service deletes users through storage/user-deletion.ts instead (gone in one small write, the rest
   * in bounded batches as a job): one transaction grows with the account.
   */
  deleteUser(userId: string): Promise<number>;

  /** Resolves when the backend answers; rejects otherwise. Used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;

  /**
   * The same store (same data, same connection, same `close`) with its writes committed in groups: writes
   * issued together share one synced transaction, each in a savepoint of its own, each acknowledged only
   * once committed (sqlite/write-groups.ts). For a process's background writers, whose writes arrive
   * together (the engine's jobs). Embedded store only: MongoDB has none.
   */
  withGroupCommit?(options: GroupCommit): Store;
}

/** Thrown by `insert` when the id or a unique index collides. */
export class DuplicateKeyError extends Error {
  constructor(readonly collection: string, detail: string) {
    super(`store: duplicate key in ${collection}: ${detail}`);
    this.name = 'DuplicateKeyError';
  }
}

/** Thrown by `batch` when an update's filter matched another number of records than its `expect`; nothing was written. */
export class BatchConditionError extends Error {
  constructor(readonly collection: string, readonly expected: number, readonly matched: number) {
    super(`store: batch update of ${collection} matched ${matched} records, expected ${expected}; nothing was written`);
    this.name = 'BatchConditionError';
  }
}

/** Thrown for a filter, change or key the port does not accept (a programming error, never user input). */
export class StoreUsageError extends Error {
  constructor(message: string) {
    super(`store: ${message}`);
    this.name = 'StoreUsageError';
  }
}
