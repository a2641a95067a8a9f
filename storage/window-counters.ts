/**
 * Counters of events in a fixed window that opens with its first event, kept in the store so that every
 * process and host counts in the same one (the gateway's rate limits, gateway/auth/rate-limit.ts). Every
 * change is one conditional write, never read-then-write: an event increments the live window
 * (`updateOne` with `inc`), else creates one (`insertIfAbsent` on the id), else restarts an expired one on
 * the condition that it is still expired; a writer that loses a race counts in the winner's window.
 * Expired windows stay until the next event restarts them or a sweep removes them (the limiter's, by
 * `expires_at`).
 * Kept honest by test/storage/contract.ts (both backends) and test/gateway/rate-limit-processes.test.ts.
 */
import type { Collection, RateLimitRecord } from './store.js';

/** A window as counted: its events so far and when it ends (epoch ms). */
export type CountedWindow = Pick<RateLimitRecord, 'count' | 'expires_at'>;

/** Attempts before giving up on a window that other writers keep restarting (each loses only to another writer). */
const ATTEMPTS = 20;

/** Counts one event under `id`, in its live window or a new one of `windowMs`; the window after the event. */
export async function countEvent(counters: Collection<RateLimitRecord>, id: string, windowMs: number, now: number): Promise<CountedWindow> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const live = await counters.updateOne({ id, expires_at: { $gt: now } }, { inc: { count: 1 } });
    if (live) return live;
    const opened = await counters.insertIfAbsent({ id, count: 1, expires_at: now + windowMs }, ['id']);
    if (opened.inserted) return opened.doc;
    const restarted = await counters.updateOne({ id, expires_at: { $lte: now } }, { set: { count: 1, expires_at: now + windowMs } });
    if (restarted) return restarted;
  }
  throw new Error(`window counters: ${id} kept changing during ${ATTEMPTS} attempts to count an event`);
}

/** Takes back one event counted under `id` in its live window (none below zero); the window after, or null when none is live. */
export async function uncountEvent(counters: Collection<RateLimitRecord>, id: string, now: number): Promise<CountedWindow | null> {
  return counters.updateOne({ id, expires_at: { $gt: now }, count: { $gt: 0 } }, { inc: { count: -1 } });
}

/** The live window under `id`, or null when none is (never counted, or expired). */
export async function liveWindow(counters: Collection<RateLimitRecord>, id: string, now: number): Promise<CountedWindow | null> {
  return counters.findOne({ id, expires_at: { $gt: now } });
}
