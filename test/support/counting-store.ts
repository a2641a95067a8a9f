/**
 * A store that counts the port calls made through it: every collection method, every blob method and the
 * store-level operations, by `<collection>.<method>`. Tests and benchmarks of store cost use it to show that
 * a call's number of store round trips does not grow with the account (MongoDB answers one port call with
 * one command, two for a blob read: its header, then its chunks). Calls through the store's group-commit view
 * (`withGroupCommit`) count as `grouped.<collection>.<method>`.
 */
import { COLLECTION_NAMES } from '../../storage/schema.js';
import type { Store } from '../../storage/store.js';

export interface CountingStore {
  store: Store;
  /** Calls by `<collection>.<method>` since the last reset. */
  readonly counts: Map<string, number>;
  total(): number;
  reset(): void;
}

function counted<T extends object>(target: T, name: string, counts: Map<string, number>): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const key = `${name}.${property}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

/** Counts `inner`'s calls into `counts`, each name prefixed by `prefix`; its group-commit view counts with the prefix `grouped.`. */
function countedStore(inner: Store, counts: Map<string, number>, prefix: string): Store {
  const store = counted({ ...inner }, `${prefix}store`, counts) as Store;
  const writable = store as unknown as Record<string, unknown>;
  for (const name of COLLECTION_NAMES) writable[name] = counted(inner[name], `${prefix}${name}`, counts);
  writable['blobs'] = counted(inner.blobs, `${prefix}blobs`, counts);
  if (inner.withGroupCommit) writable['withGroupCommit'] = (options: Parameters<NonNullable<Store['withGroupCommit']>>[0]) => countedStore(inner.withGroupCommit!(options), counts, 'grouped.');
  return store;
}

export function countingStore(inner: Store): CountingStore {
  const counts = new Map<string, number>();
  const store = countedStore(inner, counts, '');
  return {
    store,
    counts,
    total: () => [...counts.values()].reduce((sum, n) => sum + n, 0),
    reset: () => counts.clear(),
  };
}

/** The commands MongoDB would receive for these port calls: one each, two for each blob read (header, then chunks). */
export function mongoCommands(counts: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const [key, n] of counts) total += key === 'blobs.get' || key === 'blobs.getMany' ? 2 * n : n;
  return total;
}
