/**
 * Indexes per collection, declared once and created by both backends at start-up.
 *
 * `fields` are top-level document fields; `unique` indexes with `sparse` only constrain documents in
 * which every field is present and not null (managed users have no email; most jobs have no key).
 * `owner` names the field that ties a document to a user, which is how `deleteUser` finds it.
 *
 * `shard` says how a MongoDB sharded cluster partitions the collection (`threshold store prepare` applies
 * it): user-owned data is sharded by its owner, so an API call reaches one shard; the rest stays unsharded,
 * each with the reason (it is looked up by something other than its user). On a sharded collection the port
 * itself enforces the key on both backends (shard-keys.ts): every filter names its user by equality, every
 * written document carries every key field, and a unique index starts with the whole shard key (MongoDB's rule).
 */
import type { CollectionName } from './store.js';

export interface IndexSpec {
  fields: string[];
  /** Fields of `fields` kept in descending order (both backends; the name marks each `<field>_desc`). */
  descending?: readonly string[];
  unique?: boolean;
  sparse?: boolean;
}

/** A collection's partitioning: sharded on `key` (ascending fields, `user_id` first), or unsharded for `reason`. */
export type ShardSpec = { key: readonly string[] } | { unsharded: string };

export interface CollectionSpec {
  owner: 'user_id' | null;
  shard: ShardSpec;
  indexes: IndexSpec[];
  /**
   * Derived fields: values computed from the rest of the document (an activity's `listing`). A write keeps
   * them only by naming them itself: `insert`, `put` and every change that does not name them drop them
   * (apply-change.ts), so a derived value never outlives the fields it was computed from. Each holds a
   * string or a number, is read like any field (`get`, `find`, `findFields`) but never filtered or sorted
   * on, and SQLite keeps it in its own column, so reading it parses no document.
   */
  derived?: readonly string[];
  /**
   * Projected fields: ordinary fields a hot read folds over many documents (a longitudinal call reads a
   * handful of an activity's fields, never its laps and summaries). Each holds a string, a finite number or
   * null when present (any other value is a StoreUsageError on both backends), and SQLite keeps a copy in a
   * column of its own, written with the document, which filters, sorts, indexes and `findFields` read, so such
   * a read parses no document. MongoDB reads them through its projection as any field.
   */
  projected?: readonly string[];
  /**
   * A write to it changes what its owner's list pages show: every write through the store (listing-stamps.ts)
   * then gives the owner a new listing stamp, which a process caching those pages reads before answering one.
   */
  stamped?: boolean;
}

/** User-owned data read and written by its owner: sharded on the owner alone. */
const OWNED: ShardSpec = { key: ['user_id'] };
const U = (reason: string): ShardSpec => ({ unsharded: reason });

/**
 * The model-input watermark's reads (engine/service/model-inputs.ts): the user's latest write stamp, sorted
 * newest first with `id` as the tie-breaker, found at the end of this index instead of by sorting every one
 * of the user's documents.
 */
const WATERMARK_UPDATED: IndexSpec = { fields: ['user_id', 'updated_at', 'id'] };
const WATERMARK_CREATED: IndexSpec = { fields: ['user_id', 'created_at', 'id'] };

export const SCHEMA: Record<CollectionName, CollectionSpec> = {
  users: { owner: null, shard: U('looked up by id, email and managing user: the users themselves, not data of one'), indexes: [{ fields: ['email'], unique: true, sparse: true }, { fields: ['managed_by'] }] },
  applications: { owner: 'user_id', shard: U('looked up by client id on every OAuth and token request, by page slug on hosted pages'), indexes: [{ fields: ['user_id', 'created_at'] }, { fields: ['page_slug'], unique: true, sparse: true }] },
  pages: { owner: 'user_id', shard: U('served by application (a hosted page), whoever asks'), indexes: [{ fields: ['application_id'] }] },
  client_secrets: { owner: 'user_id', shard: U('looked up by secret hash at the token endpoint, before any user is known'), indexes: [{ fields: ['application_id'] }, { fields: ['secret_hash'], unique: true }] },
  grants: { owner: 'user_id', shard: U('looked up by id and application at the token endpoint and when an app is removed'), indexes: [{ fields: ['user_id', 'application_id'], unique: true }, { fields: ['application_id'] }] },
  authorization_codes: { owner: 'user_id', shard: U('sign-in state looked up by code hash at the token endpoint'), indexes: [{ fields: ['code_hash'], unique: true }, { fields: ['application_id'] }, { fields: ['grant_id'] }, { fields: ['expires_at'] }] },
  refresh_tokens: { owner: 'user_id', shard: U('sign-in state looked up by token hash at the token endpoint'), indexes: [{ fields: ['token_hash'], unique: true }, { fields: ['grant_id'] }, { fields: ['client_secret_id'] }, { fields: ['application_id'] }] },
  sessions: { owner: 'user_id', shard: U('sign-in state looked up by session hash on every browser request'), indexes: [{ fields: ['session_hash'], unique: true }, { fields: ['expires_at'] }] },
  interactions: { owner: 'user_id', shard: U('sign-in state looked up by id before the person is known'), indexes: [{ fields: ['session_id'] }, { fields: ['expires_at'] }] },
  magic_links: { owner: 'user_id', shard: U('sign-in state looked up by token hash before the person is known'), indexes: [{ fields: ['token_hash'], unique: true }, { fields: ['expires_at'] }] },
  portal_sessions: { owner: 'user_id', shard: U('sign-in state looked up by token or browser hash'), indexes: [{ fields: ['token_hash'], unique: true }, { fields: ['browser_hash'], unique: true, sparse: true }, { fields: ['expires_at'] }] },
  signing_keys: { owner: null, shard: U("the instance's keys, shared by every user"), indexes: [{ fields: ['generation'], unique: true }, { fields: ['kid'], unique: true }] },
  teams: { owner: 'user_id', shard: U('looked up by id by every member and invitee, not only its owner'), indexes: [{ fields: ['user_id'] }] },
  team_members: { owner: 'user_id', shard: U('looked up by team as well as by member'), indexes: [{ fields: ['team_id', 'user_id'], unique: true }, { fields: ['user_id'] }] },
  team_authorizations: { owner: 'user_id', shard: U('looked up by team as well as by athlete'), indexes: [{ fields: ['team_id', 'user_id'], unique: true }, { fields: ['user_id'] }] },
  team_invitations: { owner: 'user_id', shard: U('looked up by token hash before the invitee is known'), indexes: [{ fields: ['token_hash'], unique: true }, { fields: ['team_id'] }, { fields: ['expires_at'] }] },
  activities: {
    shard: { key: ['user_id', 'start'] },
    owner: 'user_id',
    stamped: true,
    derived: ['listing', 'listing_version'],
    // What a longitudinal or model call reads of each activity (engine/service/activity-selection.ts
    // SELECTED_FIELDS) and filters or sorts on, and the model watermark's stamp.
    projected: ['user_id', 'sport', 'start', 'offset', 'local_date', 'duration_s', 'series_key', 'analysis_key', 'analysis_version', 'updated_at'],
    indexes: [
      { fields: ['user_id', 'start'] },
      // The list's exact order (newest first, `id` the tie-breaker: query.ts parseSort), so a page is read
      // off this index instead of every one of the user's rows, listings included, going through a sort.
      { fields: ['user_id', 'start', 'id'], descending: ['start'] },
      { fields: ['user_id', 'local_date'] },
      // MongoDB keeps a unique index on a sharded collection only when the whole shard key is its prefix. One
      // record per (source, index) also holds through the id, derived from both (ingest-source.ts), which
      // ingest deletes under its old start before it puts a moved activity.
      { fields: ['user_id', 'start', 'source_id', 'source_index'], unique: true },
      WATERMARK_UPDATED,
    ],
  },
  sources: { owner: 'user_id', shard: OWNED, indexes: [{ fields: ['user_id', 'content_hash'], unique: true }, { fields: ['user_id', 'created_at'] }, { fields: ['status'] }, { fields: ['user_id', 'external_id'], unique: true, sparse: true }] },
  traces: {
    owner: 'user_id', shard: OWNED, stamped: true,
    indexes: [
      { fields: ['user_id', 'timestamp'] },
      // The list's exact order (newest first, `id` the tie-breaker), as activities: a page is read off this
      // index instead of every one of the user's traces going through a temporary B-tree.
      { fields: ['user_id', 'timestamp', 'id'], descending: ['timestamp'] },
      { fields: ['test_id'] },
      WATERMARK_UPDATED,
    ],
  },
  tests: { owner: 'user_id', shard: OWNED, stamped: true, indexes: [{ fields: ['user_id', 'start'] }, WATERMARK_UPDATED] },
  dailies: { owner: 'user_id', shard: OWNED, indexes: [{ fields: ['user_id', 'measure', 'date'], unique: true }, WATERMARK_UPDATED] },
  markers: { owner: 'user_id', shard: OWNED, indexes: [{ fields: ['user_id', 'sport', 'marker', 'date'] }, WATERMARK_CREATED] },
  max_efforts: { owner: 'user_id', shard: OWNED, indexes: [{ fields: ['user_id', 'sport', 'date'] }, WATERMARK_CREATED] },
  workouts: { owner: 'user_id', shard: OWNED, indexes: [{ fields: ['user_id', 'start'] }] },
  connections: { owner: 'user_id', shard: U("looked up by the provider's user id on a push and listed across users by the poller; a few per user"), indexes: [{ fields: ['user_id', 'provider'], unique: true }, { fields: ['provider', 'external_user_id'] }] },
  provider_authorizations: { owner: 'user_id', shard: U("sign-in state looked up by state hash on the provider's callback"), indexes: [{ fields: ['state_hash'], unique: true }, { fields: ['expires_at'] }] },
  events: { owner: 'user_id', shard: U('the outbox: the dispatcher reads it by status and sequence across users'), indexes: [{ fields: ['status', 'created_at'] }, { fields: ['seq'] }, { fields: ['user_id', 'seq'] }] },
  event_publications: { owner: null, shard: U("the outbox's publication log, read across users"), indexes: [{ fields: ['last'] }, { fields: ['created_at'] }] },
  event_deliveries: {
    shard: U('webhook deliveries claimed by status and queue across users'),
    owner: 'user_id',
    indexes: [{ fields: ['status', 'next_attempt_at'] }, { fields: ['queue', 'status', 'seq'] }, { fields: ['application_id', 'status'] }, { fields: ['updated_at'] }],
  },
  event_attempts: { owner: 'user_id', shard: U('delivery attempts read by application and delivery'), indexes: [{ fields: ['application_id', 'at'] }, { fields: ['delivery_id'] }, { fields: ['at'] }] },
  jobs: { owner: 'user_id', shard: U('the shared queue: claimed by kind, status and time across users'), indexes: [{ fields: ['key'], unique: true, sparse: true }, { fields: ['status', 'run_after'] }, { fields: ['kind', 'status'] }] },
  rate_limits: { owner: null, shard: U('counters keyed by limit and client address or email, not by user (window-counters.ts)'), indexes: [{ fields: ['expires_at'] }] },
  provider_budgets: { owner: null, shard: U("a provider app's request budget, shared by every user and every engine (provider-budget.ts)"), indexes: [{ fields: ['provider', 'app', 'expires_at'] }] },
  listing_stamps: { owner: 'user_id', shard: OWNED, indexes: [] },
};

export const COLLECTION_NAMES = Object.keys(SCHEMA) as CollectionName[];

/** The name both backends give an index: `<collection>_by_<field>_<field>…`, a descending field as `<field>_desc`. */
export function indexName(collection: CollectionName, index: IndexSpec): string {
  return `${collection}_by_${index.fields.map((field) => (isDescending(index, field) ? `${field}_desc` : field)).join('_')}`;
}

/** Whether `index` keeps `field` in descending order. */
export function isDescending(index: IndexSpec, field: string): boolean {
  return index.descending?.includes(field) ?? false;
}

/** The shard key of `collection`, or null when it is unsharded. */
export function shardKeyOf(collection: CollectionName): readonly string[] | null {
  const shard = SCHEMA[collection].shard;
  return 'key' in shard ? shard.key : null;
}
