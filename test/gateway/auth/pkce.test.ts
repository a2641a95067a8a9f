/** PKCE (RFC 7636), S256 only: challenge and verifier shapes and the proof itself. */
import { createHash } from 'node:crypto';
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { challengeProblem, verifierProblem, verifyPkce } from '../../../gateway/auth/pkce.js';

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

test('verifies the RFC 7636 Appendix B example', () => {
  assert.ok(verifyPkce(VERIFIER, CHALLENGE));
  assert.is(challengeProblem(CHALLENGE, 'S256'), null);
  assert.is(verifierProblem(VERIFIER), null);
});

test('rejects a wrong verifier, a tampered challenge and the verifier used as its own challenge [plain downgrade]', () => {
  assert.not.ok(verifyPkce(`${VERIFIER.slice(0, -1)}l`, CHALLENGE));
  assert.not.ok(verifyPkce(VERIFIER, `${CHALLENGE.slice(0, -1)}A`));
  assert.not.ok(verifyPkce(VERIFIER, VERIFIER), 'plain: the verifier equal to the challenge proves nothing');
  assert.not.ok(verifyPkce(VERIFIER, ''));
  assert.not.ok(verifyPkce(VERIFIER, `${CHALLENGE}=`));
  assert.not.ok(verifyPkce(VERIFIER, CHALLENGE.replace(/-/g, '+')));
});

test('rejects a malformed verifier even when its digest matches the challenge', () => {
  for (const verifier of ['short', 'a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)} `, `${'a'.repeat(42)}+`]) {
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    assert.not.ok(verifyPkce(verifier, challenge), verifier);
  }
});

test('verifies verifiers of every allowed length and character', () => {
  for (const verifier of ['a'.repeat(43), 'Z'.repeat(128), `${'0'.repeat(40)}-._~`, 'A-Za-z0-9._~'.repeat(4)]) {
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    assert.is(challengeProblem(challenge, 'S256'), null, verifier);
    assert.ok(verifyPkce(verifier, challenge), verifier);
  }
});

test('refuses the plain method [PKCE plain]', () => {
  assert.type(challengeProblem(VERIFIER, 'plain'), 'string');
  assert.type(challengeProblem(CHALLENGE, 'plain'), 'string');
});

test('refuses a missing method instead of defaulting to plain [PKCE missing method]', () => {
  assert.type(challengeProblem(CHALLENGE, undefined), 'string');
});

test('refuses any method but S256, in any other spelling', () => {
  for (const method of ['s256', 'S-256', 'SHA256', 'S256 ', 'S512', '', 'none']) assert.type(challengeProblem(CHALLENGE, method), 'string', method);
});

test('refuses a method without a challenge', () => {
  assert.type(challengeProblem(undefined, 'S256'), 'string');
});

test('refuses malformed challenges [PKCE malformed challenges]', () => {
  for (const challenge of [
    CHALLENGE.slice(0, 42), `${CHALLENGE}A`, `${CHALLENGE}=`, `${CHALLENGE.slice(0, 42)}=`, CHALLENGE.replace('-', '+'),
    CHALLENGE.replace('M', '/'), createHash('sha256').update(VERIFIER).digest('base64'), '', ' '.repeat(43), `${CHALLENGE.slice(0, 42)} `,
    createHash('sha256').update(VERIFIER).digest('hex'), createHash('sha512').update(VERIFIER).digest('base64url'),
  ]) {
    assert.type(challengeProblem(challenge, 'S256'), 'string', challenge);
  }
});

test('refuses a 43-character challenge that no SHA-256 digest encodes to', () => {
  // The last character carries 4 digest bits and 2 zero bits: `N` (…001101) is never the end of one.
  assert.type(challengeProblem(`${CHALLENGE.slice(0, 42)}N`, 'S256'), 'string');
  assert.is(challengeProblem(`${CHALLENGE.slice(0, 42)}Q`, 'S256'), null);
});

test('refuses missing and malformed verifiers', () => {
  for (const verifier of [undefined, null, '', 42, ['a'.repeat(43)], { verifier: VERIFIER }]) assert.type(verifierProblem(verifier), 'string', String(verifier));
  for (const verifier of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}+`, `${'a'.repeat(42)}/`, `${'a'.repeat(42)}=`, `${'a'.repeat(42)} `, `${'a'.repeat(42)}é`, `${'a'.repeat(42)}\n`]) {
    assert.type(verifierProblem(verifier), 'string', verifier);
  }
  assert.is(verifierProblem('a'.repeat(43)), null);
  assert.is(verifierProblem('a'.repeat(128)), null);
});

test.run();
