/**
 * Email sign-in links (gaps.md "Authentication details": "a one-time, short-lived, rate-limited
 * link"). A link is 256 random bits (base64url, 43 characters); only its SHA-256 is stored. It lives
 * 15 minutes and is used up by one conditional write, so of two concurrent uses exactly one signs in.
 * Looking a link up (`findUsable`) never uses it: mail scanners fetch links before people do.
 *
 * Links are only ever made for existing users that are not managed (managed users can never sign in);
 * routes/sign-in.ts decides who gets one. Kept honest by test/gateway/sign-in.test.ts.
 */
import { randomBytes } from 'node:crypto';
import type { MagicLinkRecord, Store, UserRecord } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { sometimesSweep } from './sweep.js';
import { hashSecret } from './secrets.js';

/** A link's lifetime: 15 minutes. */
export const MAGIC_LINK_TTL_MS = 15 * 60_000;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Creates a link for `user`; the clear token is returned once and never stored. */
export async function createMagicLink(
  store: Store,
  user: UserRecord,
  interactionId: string | null,
  now = Date.now(),
): Promise<{ token: string; record: MagicLinkRecord }> {
  if (user.managed_by !== null) throw new Error('magic links: a managed user can never sign in');
  const token = randomBytes(32).toString('base64url');
  const record: MagicLinkRecord = {
    id: newId(),
    token_hash: hashSecret(token),
    user_id: user.id,
    interaction_id: interactionId,
    expires_at: now + MAGIC_LINK_TTL_MS,
    consumed_at: null,
    created_at: now,
  };
  await store.magic_links.insert(record);
  await sometimesSweep(store.magic_links, now, MAGIC_LINK_TTL_MS);
  return { token, record };
}

/** The unused, unexpired link for `token`, without using it; null for anything else. */
export async function findUsable(store: Store, token: unknown, now = Date.now()): Promise<MagicLinkRecord | null> {
  if (typeof token !== 'string' || !TOKEN.test(token)) return null;
  const record = await store.magic_links.findOne({ token_hash: hashSecret(token) });
  return record && record.consumed_at === null && record.expires_at > now ? record : null;
}

/** Uses the link up: one conditional write, so it succeeds once however many requests race. */
export async function consumeMagicLink(store: Store, token: unknown, now = Date.now()): Promise<MagicLinkRecord | null> {
  if (typeof token !== 'string' || !TOKEN.test(token)) return null;
  return store.magic_links.updateOne(
    { token_hash: hashSecret(token), consumed_at: null, expires_at: { $gt: now } },
    { set: { consumed_at: now } },
  );
}
