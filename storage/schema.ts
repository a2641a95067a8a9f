/**
 * Indexes per collection, declared once and created by both backends at start-up.
 *
 * `fields` are top-level document fields; `unique` indexes with `sparse` only constrain documents in
 * which every field is present and not null (managed users have no email; most jobs have no key).
 * `owner` names the field that ties a document to a user, which is how `deleteUser` finds it.
 */
import type { CollectionName } from './store.js';

export interface IndexSpec {
  fields: string[];
  unique?: boolean;
  sparse?: boolean;
}

export interface CollectionSpec {
  owner: 'user_id' | null;
  indexes: IndexSpec[];
  /**
   * Derived fields: values computed from the rest of the document (an activity's `listing`). A write keeps
   * them only by naming them itself: `insert`, `put` and every change that does not name them drop them
   * (apply-change.ts), so a derived value never outlives the fields it was computed from. Each holds a
   * string or a number, is read like any field (`get`, `find`, `findFields`) but never filtered or sorted
   * on, and SQLite keeps it in its own column, so reading it parses no document.
   */
  derived?: readonly string[];
}

/**
 * The model-input watermark's reads (engine/service/model-inputs.ts): the user's latest write stamp, sorted
 * newest first with `id` as the tie-breaker, found at the end of this index instead of by sorting every one
 * of the user's documents.
 */
const WATERMARK_UPDATED: IndexSpec = { fields: ['user_id', 'updated_at', 'id'] };
const WATERMARK_CREATED: IndexSpec = { fields: ['user_id', 'created_at', 'id'] };

export const SCHEMA: Record<CollectionName, CollectionSpec> = {
  users: { owner: null, indexes: [{ fields: ['email'], unique: true, sparse: true }, { fields: ['managed_by'] }] },
  applications: { owner: 'user_id', indexes: [{ fields: ['user_id', 'created_at'] }, { fields: ['page_slug'], unique: true, sparse: true }] },
  pages: { owner: 'user_id', indexes: [{ fields: ['application_id'] }] },
  client_secrets: { owner: 'user_id', indexes: [{ fields: ['application_id'] }, { fields: ['secret_hash'], unique: true }] },
  grants: { owner: 'user_id', indexes: [{ fields: ['user_id', 'application_id'], unique: true }, { fields: ['application_id'] }] },
  authorization_codes: { owner: 'user_id', indexes: [{ fields: ['code_hash'], unique: true }, { fields: ['application_id'] }, { fields: ['grant_id'] }, { fields: ['expires_at'] }] },
  refresh_tokens: { owner: 'user_id', indexes: [{ fields: ['token_hash'], unique: true }, { fields: ['grant_id'] }, { fields: ['client_secret_id'] }, { fields: ['application_id'] }] },
  sessions: { owner: 'user_id', indexes: [{ fields: ['session_hash'], unique: true }, { fields: ['expires_at'] }] },
  interactions: { owner: 'user_id', indexes: [{ fields: ['session_id'] }, { fields: ['expires_at'] }] },
  magic_links: { owner: 'user_id', indexes: [{ fields: ['token_hash'], unique: true }, { fields: ['expires_at'] }] },
  portal_sessions: { owner: 'user_id', indexes: [{ fields: ['token_hash'], unique: true }, { fields: ['browser_hash'], unique: true, sparse: true }, { fields: ['expires_at'] }] },
  signing_keys: { owner: null, indexes: [{ fields: ['generation'], unique: true }, { fields: ['kid'], unique: true }] },
  teams: { owner: 'user_id', indexes: [{ fields: ['user_id'] }] },
  team_members: { owner: 'user_id', indexes: [{ fields: ['team_id', 'user_id'], unique: true }, { fields: ['user_id'] }] },
  team_authorizations: { owner: 'user_id', indexes: [{ fields: ['team_id', 'user_id'], unique: true }, { fields: ['user_id'] }] },
  team_invitations: { owner: 'user_id', indexes: [{ fields: ['token_hash'], unique: true }, { fields: ['team_id'] }, { fields: ['expires_at'] }] },
  activities: {
    owner: 'user_id',
    derived: ['listing', 'listing_version'],
    indexes: [
      { fields: ['user_id', 'start'] },
      { fields: ['user_id', 'local_date'] },
      { fields: ['source_id', 'source_index'], unique: true },
      WATERMARK_UPDATED,
    ],
  },
  sources: { owner: 'user_id', indexes: [{ fields: ['user_id', 'content_hash'], unique: true }, { fields: ['user_id', 'created_at'] }, { fields: ['status'] }, { fields: ['user_id', 'external_id'], unique: true, sparse: true }] },
  traces: { owner: 'user_id', indexes: [{ fields: ['user_id', 'timestamp'] }, { fields: ['test_id'] }, WATERMARK_UPDATED] },
  tests: { owner: 'user_id', indexes: [{ fields: ['user_id', 'start'] }, WATERMARK_UPDATED] },
  dailies: { owner: 'user_id', indexes: [{ fields: ['user_id', 'measure', 'date'], unique: true }, WATERMARK_UPDATED] },
  markers: { owner: 'user_id', indexes: [{ fields: ['user_id', 'sport', 'marker', 'date'] }, WATERMARK_CREATED] },
  max_efforts: { owner: 'user_id', indexes: [{ fields: ['user_id', 'sport', 'date'] }, WATERMARK_CREATED] },
  workouts: { owner: 'user_id', indexes: [{ fields: ['user_id', 'start'] }] },
  connections: { owner: 'user_id', indexes: [{ fields: ['user_id', 'provider'], unique: true }, { fields: ['provider', 'external_user_id'] }] },
  provider_authorizations: { owner: 'user_id', indexes: [{ fields: ['state_hash'], unique: true }, { fields: ['expires_at'] }] },
  events: { owner: 'user_id', indexes: [{ fields: ['status', 'created_at'] }, { fields: ['seq'] }, { fields: ['user_id', 'seq'] }] },
  event_publications: { owner: null, indexes: [{ fields: ['last'] }, { fields: ['created_at'] }] },
  event_deliveries: {
    owner: 'user_id',
    indexes: [{ fields: ['status', 'next_attempt_at'] }, { fields: ['queue', 'status', 'seq'] }, { fields: ['application_id', 'status'] }, { fields: ['updated_at'] }],
  },
  event_attempts: { owner: 'user_id', indexes: [{ fields: ['application_id', 'at'] }, { fields: ['delivery_id'] }, { fields: ['at'] }] },
  jobs: { owner: 'user_id', indexes: [{ fields: ['key'], unique: true, sparse: true }, { fields: ['status', 'run_after'] }, { fields: ['kind', 'status'] }] },
  // Unsharded: counters are keyed by limit and client address or email, not by user (window-counters.ts).
  rate_limits: { owner: null, indexes: [{ fields: ['expires_at'] }] },
};

export const COLLECTION_NAMES = Object.keys(SCHEMA) as CollectionName[];

/** The name both backends give an index: `<collection>_by_<field>_<field>…`. */
export function indexName(collection: CollectionName, index: IndexSpec): string {
  return `${collection}_by_${index.fields.join('_')}`;
}
