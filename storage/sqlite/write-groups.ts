/**
 * Group commit for the embedded backend (`openSqliteStore({ groupCommit })`, used by `threshold import`, and
 * `store.withGroupCommit` for the engine's background writers):
 * writes issued close together are applied in one IMMEDIATE transaction, one commit and one sync
 * (synchronous = FULL) for all of them instead of one each. Each write runs in a savepoint of its own,
 * so one that fails (a duplicate key, an unmatched batch update) rolls back and rejects alone while the
 * others commit. A caller's promise settles only after the transaction committed: nothing is
 * acknowledged before it is durable, and a crash loses only writes nobody was told about.
 * Bounded: a group holds at most `maxWrites` writes and waits at most `maxDelayMs` after its first one.
 * test/storage/sqlite-group-commit.test.ts keeps it honest.
 */
import type Database from 'better-sqlite3';

export interface GroupCommit {
  /** Writes in one transaction at most; reaching it commits at once. */
  maxWrites: number;
  /** How long the first write of a group waits for others before the group commits, milliseconds. */
  maxDelayMs: number;
}

/**
 * A service process's background writers (the engine's jobs, engine/server.ts): a short
 * wait, since a commit blocks the event loop for its sync and what arrives meanwhile joins the next group.
 */
export const BACKGROUND_GROUP_COMMIT: GroupCommit = { maxWrites: 64, maxDelayMs: 2 };

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface WriteGroups {
  /** Runs `work` (synchronous SQLite writes) in the next group and answers its result once the group committed. */
  write<R>(work: () => R): Promise<R>;
  /** Commits the waiting group now (before closing the database). */
  commit(): void;
}

export function writeGroups(db: Database.Database, options: GroupCommit): WriteGroups {
  const savepoint = db.transaction((work: () => unknown) => work());
  const group = db.transaction((writes: Pending[]) => writes.map((write) => {
    try {
      return { ok: true as const, value: savepoint(write.work) };
    } catch (error) {
      return { ok: false as const, error };
    }
  }));
  let pending: Pending[] = [];
  let timer: NodeJS.Timeout | null = null;

  function commit(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const writes = pending;
    pending = [];
    if (writes.length === 0) return;
    let outcomes;
    try {
      outcomes = group.immediate(writes);
    } catch (error) {
      // The transaction itself failed (the database busy past its timeout, a full disk): nothing was written.
      for (const write of writes) write.reject(error);
      return;
    }
    outcomes.forEach((outcome, index) => {
      if (outcome.ok) writes[index]!.resolve(outcome.value);
      else writes[index]!.reject(outcome.error);
    });
  }

  return {
    write: <R>(work: () => R) => new Promise<R>((resolve, reject) => {
      pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (pending.length >= options.maxWrites) commit();
      else timer ??= setTimeout(commit, options.maxDelayMs);
    }),
    commit,
  };
}
