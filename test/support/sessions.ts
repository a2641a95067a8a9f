/**
 * Browser sessions for tests that are not about sign-in: a session record inserted directly, and the
 * cookie header that carries it. (test/gateway/sign-in.test.ts drives the real sign-in forms.)
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { hashSecret } from '../../gateway/auth/secrets.js';

export interface TestSession {
  id: string;
  cookie: string;
  csrf: string;
}

/** A live session for `userId` (null: anonymous), as the cookie header value. */
export async function sessionFor(store: Store, userId: string | null, now = Date.now()): Promise<TestSession> {
  const value = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  const id = newId();
  await store.sessions.insert({
    id, session_hash: hashSecret(value), user_id: userId, csrf_token: csrf, auth_time: userId ? now : null, expires_at: now + 3_600_000, created_at: now,
  });
  return { id, cookie: `threshold_session=${value}`, csrf };
}
