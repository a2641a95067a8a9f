/**
 * A store that counts the port calls made through it: every collection method, every blob method and the
 * store-level operations, by `<collection>.<method>`. Tests and benchmarks of store cost use it to show that
 * a call's number of store round trips does not grow with the account (MongoDB answers one port call with
 * one command, two for a blob read: its header, then its chunks).
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

export function countingStore(inner: Store): CountingStore {
  const counts = new Map<string, number>();
  const store = counted({ ...inner }, 'store', counts) as Store;
  const writable = store as unknown as Record<string, unknown>;
  for (const name of COLLECTION_NAMES) writable[name] = counted(inner[name], name, counts);
  writable['blobs'] = counted(inner.blobs, 'blobs', counts);
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
