/**
 * Short-lived records (sessions, sign-in links, authorization codes, interactions) are deleted once
 * expired by whoever creates new ones, now and then, rather than by a timer: no process needs a
 * scheduler, and a busy server sweeps often while an idle one has nothing to sweep.
 */
import type { Collection, Doc } from '../../storage/store.js';

/** Share of inserts that sweep. */
const SWEEP_CHANCE = 0.01;

/** Now and then (`chance` of the calls), deletes the records that expired more than `graceMs` ago. */
export async function sometimesSweep<T extends Doc & { expires_at: number }>(collection: Collection<T>, now: number, graceMs = 0, chance = SWEEP_CHANCE): Promise<void> {
  if (Math.random() >= chance) return;
  await collection.deleteMany({ expires_at: { $lt: now - graceMs } } as Parameters<Collection<T>['deleteMany']>[0]);
}
