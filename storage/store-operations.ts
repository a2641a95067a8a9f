/**
 * The store-level operations of the port, written once over collection operations so both
 * backends run the same logic inside their own transactions: reading a `BatchOp`, the job claim
 * (a conditional `updateOne`), and the walk that finds everything a user owns.
 *
 * The deletion walk is a generator: it yields the steps it needs (find ids, delete matching,
 * delete blobs) and receives their results, so SQLite drives it synchronously inside one
 * transaction and MongoDB drives it with `await`, with or without a session.
 */
import { BatchConditionError, StoreUsageError, type BatchOp, type Change, type CollectionName, type Doc, type Filter, type JobRecord, type Sort } from './store.js';
import { COLLECTION_NAMES, SCHEMA, shardKeyOf } from './schema.js';

type AnyFilter = Filter<Doc> & Record<string, unknown>;

export type BatchStep = { collection: CollectionName } & (
  | { kind: 'insert' | 'put'; doc: Doc }
  | { kind: 'update'; filter: AnyFilter; change: Change<Doc>; expect: number | null }
  | { kind: 'delete'; filter: AnyFilter }
);

/** Throws BatchConditionError when an update step with an `expect` matched another number of records. */
export function checkMatched(step: Extract<BatchStep, { kind: 'update' }>, matched: number): void {
  if (step.expect !== null && matched !== step.expect) throw new BatchConditionError(step.collection, step.expect, matched);
}

/** Reads one `BatchOp` (checking its collection, which arrives as data). */
export function batchStep(op: BatchOp): BatchStep {
  const collection = op.collection;
  if (!Object.hasOwn(SCHEMA, collection)) throw new StoreUsageError(`batch: unknown collection ${JSON.stringify(collection)}`);
  const loose = op as { insert?: Doc; put?: Doc; update?: AnyFilter; change?: Change<Doc>; expect?: number; delete?: AnyFilter };
  if (loose.insert !== undefined) return { collection, kind: 'insert', doc: loose.insert };
  if (loose.put !== undefined) return { collection, kind: 'put', doc: loose.put };
  if (loose.update !== undefined) {
    if (loose.change === undefined) throw new StoreUsageError(`batch: update of ${collection} has no change`);
    if (loose.expect !== undefined && !(Number.isSafeInteger(loose.expect) && loose.expect >= 0)) {
      throw new StoreUsageError(`batch: update of ${collection} expects ${loose.expect} records; expected a count`);
    }
    return { collection, kind: 'update', filter: loose.update, change: loose.change, expect: loose.expect ?? null };
  }
  if (loose.delete !== undefined) return { collection, kind: 'delete', filter: loose.delete };
  throw new StoreUsageError(`batch: op on ${collection} names no insert, put, update or delete`);
}

/**
 * The claim as one conditional update: "status `queued` with `run_after` ≤ now, or status
 * `running` whose lease expired", oldest by run_after then created_at.
 */
export function claimJobQuery(kinds: string[], owner: string, leaseMs: number, now: number): {
  filter: Filter<JobRecord>; change: Change<JobRecord>; sort: Sort<JobRecord>;
} {
  if (!Number.isFinite(leaseMs) || leaseMs <= 0) throw new StoreUsageError(`claimJob: leaseMs must be a positive number, got ${leaseMs}`);
  if (!Number.isFinite(now)) throw new StoreUsageError(`claimJob: now must be a finite number, got ${now}`);
  return {
    filter: {
      kind: { $in: kinds },
      $or: [{ status: 'queued', run_after: { $lte: now } }, { status: 'running', lease_until: { $lt: now } }],
    },
    change: { set: { status: 'running', lease_owner: owner, lease_until: now + leaseMs, updated_at: now }, inc: { attempts: 1 } },
    sort: { run_after: 1, created_at: 1 },
  };
}

/** Children reached through a parent a deleted user owns: parent → [child collection, field naming the parent]. */
const CASCADES: [CollectionName, [CollectionName, string][]][] = [
  ['applications', [
    ['client_secrets', 'application_id'], ['grants', 'application_id'], ['authorization_codes', 'application_id'],
    ['refresh_tokens', 'application_id'], ['interactions', 'application_id'],
  ]],
  ['teams', [['team_members', 'team_id'], ['team_authorizations', 'team_id'], ['team_invitations', 'team_id']]],
];

export type DeletionStep =
  | { kind: 'find-ids'; collection: CollectionName; filter: AnyFilter }
  | { kind: 'delete'; collection: CollectionName; filter: AnyFilter }
  | { kind: 'delete-blobs'; userIds: string[] };

/** What a step returns to the walk: ids for `find-ids`, a count otherwise. */
export type DeletionResult = string[] | number;

/**
 * Yields the steps that delete `userId` and everything they own, children before parents and the
 * users themselves last; returns the total number of documents and blobs removed.
 */
export function* userDeletion(userId: string): Generator<DeletionStep, number, DeletionResult> {
  return yield* ownedDeletion(yield* managedUsers(userId));
}

/** Yields the look-ups that find `userId` and the users they manage, recursively; returns them, `userId` first, each after its manager. */
export function* managedUsers(userId: string): Generator<DeletionStep, string[], DeletionResult> {
  const users = [userId];
  const seen = new Set(users);
  for (let frontier = users; frontier.length > 0;) {
    const managed = (yield { kind: 'find-ids', collection: 'users', filter: { managed_by: { $in: frontier } } }) as string[];
    frontier = managed.filter((id) => !seen.has(id));
    for (const id of frontier) seen.add(id);
    users.push(...frontier);
  }
  return users;
}

/**
 * Yields the steps that delete `users` and everything they own (not the users they manage, unless listed);
 * returns the number of documents and blobs removed. MongoDB runs it for one user per transaction, so no
 * transaction spans users (a sharded cluster would enlist every shard holding one of them).
 */
export function* ownedDeletion(users: string[]): Generator<DeletionStep, number, DeletionResult> {
  let removed = 0;
  for (const [parent, children] of CASCADES) {
    const parents = (yield { kind: 'find-ids', collection: parent, filter: { user_id: { $in: users } } }) as string[];
    if (parents.length === 0) continue;
    for (const [child, field] of children) {
      removed += (yield { kind: 'delete', collection: child, filter: { [field]: { $in: parents } } }) as number;
    }
  }
  for (const collection of COLLECTION_NAMES) {
    if (SCHEMA[collection].owner !== 'user_id') continue;
    if (shardKeyOf(collection) === null) {
      removed += (yield { kind: 'delete', collection, filter: { user_id: { $in: users } } }) as number;
      continue;
    }
    // Sharded by user: one delete per user, each routed to that user's shard.
    for (const user of users) removed += (yield { kind: 'delete', collection, filter: { user_id: user } }) as number;
  }
  removed += (yield { kind: 'delete-blobs', userIds: users }) as number;
  removed += (yield { kind: 'delete', collection: 'users', filter: { id: { $in: users } } }) as number;
  return removed;
}
