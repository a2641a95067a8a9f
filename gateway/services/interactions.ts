/**
 * Pending authorization requests (InteractionRecord): how their ids look, which ones are still live,
 * and where the browser continues one. Shared by the authorize flow (routes/authorize.ts) and the
 * sign-in pages (routes/sign-in.ts), which carry an interaction through sign-in.
 */
import { randomBytes } from 'node:crypto';
import type { InteractionRecord, Store } from '../../storage/store.js';

/** How long a started authorization may wait for sign-in and consent. */
export const INTERACTION_TTL_MS = 30 * 60_000;

/** Interaction ids are 256 random bits, base64url: unguessable, since the id travels in URLs. */
const INTERACTION_ID = /^[A-Za-z0-9_-]{43}$/;

export function newInteractionId(): string {
  return randomBytes(32).toString('base64url');
}

/** An interaction id from a form field or query parameter when it has the shape of one; otherwise null. */
export function interactionIdOf(value: unknown): string | null {
  return typeof value === 'string' && INTERACTION_ID.test(value) ? value : null;
}

/** The interaction named by `value` when it exists, is unanswered and has not expired; otherwise null. */
export async function liveInteraction(store: Store, value: unknown, now = Date.now()): Promise<InteractionRecord | null> {
  const id = interactionIdOf(value);
  const interaction = id ? await store.interactions.get(id) : null;
  return interaction && interaction.consumed_at === null && interaction.expires_at > now ? interaction : null;
}

/** The screen that continues an interaction. */
export function interactionPath(id: string): string {
  return `/oauth/interaction/${encodeURIComponent(id)}`;
}
