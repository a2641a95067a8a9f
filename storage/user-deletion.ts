/**
 * A user's deletion in two parts, so that no write grows with the account (issue 24 item 7):
 *
 * 1. `beginUserDeletion`: one small atomic batch makes the user gone at once — their user record, their
 *    managed users' records (recursively), their applications and their teams are deleted, and one
 *    `delete-user` job naming all of them is queued. Every authentication and lookup reads the user
 *    record (access, refresh and delegated tokens, sessions, sign-in by email, team listings), so from that
 *    write on nothing of theirs is served, and their applications' clients stop working.
 * 2. `continueUserDeletion` (the job, engine/jobs/delete-user-job.ts): everything else — the children of
 *    those applications and teams (other users' grants and tokens included), every document of every
 *    collection owned by `user_id`, and the blobs — in batches of at most DELETION_BATCH documents or
 *    DELETION_BLOB_BATCH blobs, each its own write. The walk re-finds what is left, so a job whose engine
 *    died resumes after its lease from wherever it stopped; a pass that removed anything is followed by
 *    another, so a write racing the deletion (an ingest finishing) is swept up too.
 *
 * What is not at once: access tokens other users hold for the deleted user's applications keep working until
 * the job has removed those applications' grants (its first batches, seconds after the first write; an access
 * token lives 15 minutes at most either way), and a write racing the job's last pass (an ingest job of the
 * user that was already running) can leave a record behind.
 *
 * Every filter on user data names one user (`user_id` equality), as a collection sharded by user needs.
 * The records' `Store.deleteUser` (one transaction) stays for the storage contract and direct callers.
 * Kept honest by test/storage/user-deletion.test.ts and test/gateway/account-deletion.test.ts.
 */
import { DuplicateKeyError, type BatchOp, type Collection, type CollectionName, type Doc, type Filter, type JobRecord, type Store } from './store.js';
import { COLLECTION_NAMES, SCHEMA } from './schema.js';
import { newJob } from './jobs.js';

export const DELETE_USER_JOB = 'delete-user';

/** Documents removed per write: a bounded transaction-free delete on any backend. */
export const DELETION_BATCH = 500;
/** Blobs removed per write (a series or an original is up to megabytes: tens of megabytes per write at most). */
export const DELETION_BLOB_BATCH = 25;
/** Passes over everything at most: a pass that removed anything is followed by another that must remove nothing. */
const MAX_PASSES = 5;

/** What the job carries: whom it deletes (their records are gone already) and how far it got. */
export interface DeletionPayload {
  [key: string]: string[] | number;
  /** The user and their managed users. */
  users: string[];
  /** Their applications and teams, whose children the job removes. */
  applications: string[];
  teams: string[];
  /** Documents and blobs removed so far (the first write's included), writes so far, the largest write's size. */
  removed: number;
  batches: number;
  largest: number;
}

/** Children reached through a parent the user owned: parent → [child collection, field naming the parent]. */
const CASCADES: [keyof Pick<DeletionPayload, 'applications' | 'teams'>, [CollectionName, string][]][] = [
  ['applications', [
    ['client_secrets', 'application_id'], ['grants', 'application_id'], ['authorization_codes', 'application_id'],
    ['refresh_tokens', 'application_id'], ['interactions', 'application_id'],
  ]],
  ['teams', [['team_members', 'team_id'], ['team_authorizations', 'team_id'], ['team_invitations', 'team_id']]],
];

const OWNED = COLLECTION_NAMES.filter((name) => SCHEMA[name].owner === 'user_id');

/** The collections differ in record type; the walk reads ids and deletes by filter only. */
type AnyCollection = Collection<Doc>;

function collection(store: Store, name: CollectionName): AnyCollection {
  return store[name] as unknown as AnyCollection;
}

async function idsOf(store: Store, name: CollectionName, filter: Record<string, unknown>): Promise<string[]> {
  return (await collection(store, name).findFields(filter as Filter<Doc>, ['id'])).map((row) => row.id);
}

/**
 * Makes `userId` and their managed users gone in one write and queues the job that removes the rest; returns
 * the job, or null when there is no such user. A second call for a user whose deletion is queued returns null.
 */
export async function beginUserDeletion(store: Store, userId: string, now = Date.now()): Promise<JobRecord | null> {
  if (!(await store.users.get(userId))) return null;
  const users = [userId];
  for (let frontier = users; frontier.length > 0;) {
    const managed = (await Promise.all(frontier.map((id) => idsOf(store, 'users', { managed_by: id })))).flat();
    frontier = managed.filter((id) => !users.includes(id));
    users.push(...frontier);
  }
  const applications: string[] = [];
  const teams: string[] = [];
  for (const user of users) {
    applications.push(...(await idsOf(store, 'applications', { user_id: user })));
    teams.push(...(await idsOf(store, 'teams', { user_id: user })));
  }
  const removed = users.length + applications.length + teams.length;
  const payload: DeletionPayload = { users, applications, teams, removed, batches: 1, largest: removed };
  // A job of its own (user_id null): the walk over the user's jobs must not delete it.
  const job = newJob(DELETE_USER_JOB, null, `${DELETE_USER_JOB}:${userId}`, payload, now);
  const ops: BatchOp[] = [{ collection: 'jobs', insert: job }];
  for (const user of users) {
    ops.push({ collection: 'applications', delete: { user_id: user } }, { collection: 'teams', delete: { user_id: user } });
  }
  ops.push({ collection: 'users', delete: { id: { $in: users } } });
  // A concurrent deletion of the same user collides on the job's key, and its whole batch fails.
  try {
    await store.batch(ops);
  } catch (error) {
    if (error instanceof DuplicateKeyError) return null;
    throw error;
  }
  return job;
}

export interface DeletionProgress {
  /** Called after each write with the payload as it now stands (the job records it). */
  onBatch?(payload: DeletionPayload): Promise<void>;
  signal?: AbortSignal;
}

/**
 * Removes everything `payload` names that is still stored, batch by batch, until a pass finds nothing; returns
 * the payload with its totals. Idempotent: any number of runs, concurrent or after a crash, end in the same state.
 */
export async function continueUserDeletion(store: Store, start: DeletionPayload, progress: DeletionProgress = {}): Promise<DeletionPayload> {
  const payload: DeletionPayload = { ...start };
  const account = async (count: number): Promise<void> => {
    payload.removed += count;
    payload.batches += 1;
    payload.largest = Math.max(payload.largest, count);
    await progress.onBatch?.(payload);
    progress.signal?.throwIfAborted();
  };
  /** Deletes what `filter` matches in `name`, DELETION_BATCH at a time; returns how many. */
  const drain = async (name: CollectionName, filter: Record<string, unknown>): Promise<number> => {
    let total = 0;
    for (;;) {
      progress.signal?.throwIfAborted();
      const ids = (await collection(store, name).findFields(filter as Filter<Doc>, ['id'], { limit: DELETION_BATCH })).map((row) => row.id);
      if (ids.length === 0) return total;
      const count = await collection(store, name).deleteMany({ ...filter, id: { $in: ids } } as Filter<Doc>);
      total += count;
      await account(count);
    }
  };

  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let found = 0;
    for (const [parent, children] of CASCADES) {
      for (const parentId of payload[parent]) {
        for (const [child, field] of children) found += await drain(child, { [field]: parentId });
      }
    }
    for (const user of payload.users) {
      for (const name of OWNED) found += await drain(name, { user_id: user });
      for (;;) {
        progress.signal?.throwIfAborted();
        const count = await store.blobs.deleteOwnedBatch(user, DELETION_BLOB_BATCH);
        if (count === 0) break;
        found += count;
        await account(count);
      }
    }
    if (found === 0) break;
  }
  return payload;
}

/** The payload of a `delete-user` job, checked (it arrives as data). */
export function deletionPayload(job: Pick<JobRecord, 'id' | 'payload'>): DeletionPayload {
  const { users, applications, teams, removed, batches, largest } = job.payload as Record<string, unknown>;
  const ids = (value: unknown): value is string[] => Array.isArray(value) && value.every((id) => typeof id === 'string' && id.length > 0);
  const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);
  if (!ids(users) || users.length === 0 || !ids(applications) || !ids(teams)) {
    throw new Error(`user deletion: job ${job.id} does not name the users, applications and teams it deletes`);
  }
  return { users, applications, teams, removed: count(removed), batches: count(batches), largest: count(largest) };
}
