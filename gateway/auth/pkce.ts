/**
 * PKCE (RFC 7636; interface §5: "code_challenge, code_challenge_method | PKCE; method S256"). Decides
 * whether a challenge may start a flow, whether a verifier is well formed, and whether it answers the
 * challenge. Only S256: a missing method is refused rather than read as `plain` (RFC 7636 §4.3's
 * default), so a client can never downgrade by leaving it out.
 * Kept honest by test/gateway/auth/pkce.test.ts.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * base64url of a 32-byte SHA-256 digest, unpadded: 43 characters, and the last one carries 4 bits of
 * the digest and 2 zero bits, so only these 16 letters can end it. A challenge no S256 client could
 * produce is refused at the start instead of failing at the token endpoint.
 */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** RFC 7636 §4.1: code-verifier = 43*128unreserved; unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Null when `code_challenge` and `code_challenge_method` may start a flow, otherwise why not. */
export function challengeProblem(challenge: string | undefined, method: string | undefined): string | null {
  if (method === undefined) return 'code_challenge_method is required: only S256 is supported';
  if (method === 'plain') return 'code_challenge_method plain is not supported: use S256';
  if (method !== 'S256') return 'code_challenge_method is not supported: only S256 is';
  if (challenge === undefined) return 'code_challenge is required with code_challenge_method';
  if (!S256_CHALLENGE.test(challenge)) return 'code_challenge must be 43 base64url characters (an unpadded SHA-256 digest)';
  return null;
}

/** Null when the value is a well-formed code_verifier, otherwise why not. */
export function verifierProblem(verifier: unknown): string | null {
  if (verifier === undefined || verifier === null || verifier === '') return 'code_verifier is required';
  if (typeof verifier !== 'string' || !VERIFIER.test(verifier)) {
    return 'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_" and "~"';
  }
  return null;
}

/** Whether base64url(SHA-256(verifier)) equals the challenge (constant time); false for a malformed verifier. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (verifierProblem(verifier) !== null) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'), 'ascii');
  const expected = Buffer.from(challenge, 'utf8');
  // Lengths are not secret: every well-formed challenge has 43 characters.
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
