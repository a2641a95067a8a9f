/**
 * The list pages a gateway process answered, kept in memory and answered again while the user's listing
 * stamp (storage/listing-stamps.ts) is the one they were built under: a repeated page costs one read by id
 * instead of its rows, their traces probe and the page's assembly (bench/list-endpoint.bench.ts). A page is
 * kept under its exact key (user, calling application, query) and its bytes are the ones built, so an answer
 * from here is byte for byte the one built afresh; the stamp is read before the rows, so a page is never
 * answered after a write that finished before the request (several gateway processes, MongoDB included).
 *
 * Requests that miss at once share one build. Bounded by bytes (least recently used first out) and by age: an entry older than MAX_AGE_MS is built
 * again, the bound on a stale page should a writing process die between its write and its stamp.
 * Kept honest by test/gateway/activity-list.test.ts.
 */
import type { Store } from '../../storage/store.js';
import { listingStamp, stampsListings } from '../../storage/listing-stamps.js';

/** Bytes of pages one process keeps (a corpus page of 50 activities is ~170 KB). */
export const MAX_BYTES = 64 * 1024 * 1024;
/** A page kept longer is built again (milliseconds). */
export const MAX_AGE_MS = 60_000;
/** A larger page is not kept (bytes). */
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

interface Entry {
  stamp: string;
  bytes: Buffer;
  at: number;
}

export class ListingPageCache {
  /** In use order, least recent first (a Map keeps insertion order; a hit moves its entry last). */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** The builds in flight, by key, each with the stamp it was read under. */
  private readonly building = new Map<string, { stamp: string; bytes: Promise<Buffer> }>();

  constructor(private readonly maxBytes = MAX_BYTES, private readonly clock: () => number = Date.now) {}

  /**
   * The page under `key` for `userId`, from memory when it was built under their current stamp, else from
   * `build` (then kept).
   */
  async page(store: Store, userId: string, key: string, build: () => Promise<Buffer>): Promise<Buffer> {
    // A store whose writes do not renew stamps (one a test opened itself) gets every page built.
    if (!stampsListings(store)) return build();
    const stamp = await listingStamp(store, userId);
    const full = `${userId}\u0000${key}`;
    const kept = this.entries.get(full);
    if (kept !== undefined) {
      this.drop(full, kept);
      if (kept.stamp === stamp && this.clock() - kept.at < MAX_AGE_MS) {
        this.keep(full, kept);
        return kept.bytes;
      }
    }
    // Requests that miss together (after a write, or as an entry ages out) share one build under one stamp.
    const building = this.building.get(full);
    if (building !== undefined && building.stamp === stamp) return building.bytes;
    const bytes = build();
    const entry = { stamp, bytes };
    this.building.set(full, entry);
    try {
      const built = await bytes;
      if (built.length <= MAX_PAGE_BYTES) this.keep(full, { stamp, bytes: built, at: this.clock() });
      return built;
    } finally {
      if (this.building.get(full) === entry) this.building.delete(full);
    }
  }

  /** Bytes kept now. */
  get size(): number {
    return this.bytes;
  }

  private keep(key: string, entry: Entry): void {
    const previous = this.entries.get(key);
    if (previous !== undefined) this.drop(key, previous);
    this.entries.set(key, entry);
    this.bytes += entry.bytes.length;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest, old);
    }
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes.length;
  }
}

/** One cache per store: each gateway (a process, or a test's stack) has its own. */
const caches = new WeakMap<Store, ListingPageCache>();

export function listingPageCache(store: Store): ListingPageCache {
  let cache = caches.get(store);
  if (cache === undefined) caches.set(store, (cache = new ListingPageCache()));
  return cache;
}
