/**
 * Sign-in (AUTH.md "sessions and sign-in"; gaps.md "Authentication details"): password and emailed
 * links over the real stack, mail delivered through a real SMTP server (smtp-server) via SMTP_URL,
 * sessions through a cookie jar. Rate limits and the slow-down have their own stack (the limiters count
 * per process), with client addresses from X-Forwarded-For.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { SMTPServer } from 'smtp-server';
import { startStack, type TestStack } from '../support/stack.js';
import { mailTo, startMailCatcher } from '../support/mail-catcher.js';
import { CookieJar, csrfFrom, locationOf, signIn } from '../support/browser-session.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { hashPassword } from '../../gateway/auth/passwords.js';
import { createMagicLink } from '../../gateway/auth/magic-links.js';
import { createRateLimits } from '../../gateway/auth/rate-limit.js';
import { hashSecret } from '../../gateway/auth/secrets.js';
import { newId } from '../../storage/ids.js';
import type { Store, UserRecord } from '../../storage/store.js';

interface Context {
  stack: TestStack;
  smtp: SMTPServer;
  smtpUrl: string;
  mails: string[];
}

const signin = suite<Context>('sign-in');

signin.before(async (context) => {
  Object.assign(context, await startMailCatcher());
  context.stack = await startStack({ SMTP_URL: context.smtpUrl });
});

signin.after(async (context) => {
  await context.stack.close();
  await new Promise<void>((resolve) => context.smtp.close(() => resolve()));
});

let counter = 0;
function uniqueEmail(tag: string): string {
  counter += 1;
  return `${tag}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

async function userWithPassword(stack: TestStack, password = 'correct horse battery'): Promise<{ user: UserRecord; email: string; password: string }> {
  const email = uniqueEmail('user');
  const user = await createUser(stack.store, { email, password });
  return { user, email, password };
}

function linkTokenIn(mail: string): string {
  const match = /\/signin\/link\?token=([A-Za-z0-9_-]{43})/.exec(mail);
  if (!match) throw new Error('no sign-in link in the mail');
  return match[1]!;
}

async function requestLink(stack: TestStack, email: string, interaction?: string): Promise<{ jar: CookieJar; response: Response; body: string }> {
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf(interaction ? `/signin?interaction=${interaction}` : '/signin');
  const response = await jar.post('/signin/email', { email, csrf, ...(interaction && { interaction }) });
  return { jar, response, body: await response.text() };
}

signin('signs up with a password, then signs in with it in another browser', async ({ stack }) => {
  const email = uniqueEmail('new');
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf('/signup');
  const created = await jar.post('/signup', { email, password: 'a long enough password', first_name: 'Ada', last_name: 'Lovelace', csrf });
  assert.is(created.status, 303);
  assert.is(locationOf(created, stack.baseUrl), '/training', 'a new account lands on its training');
  const user = await stack.store.users.findOne({ email });
  assert.ok(user, 'the account exists');
  assert.is(user!.first_name, 'Ada');
  assert.ok(user!.password_hash?.startsWith('scrypt$'), 'only a hash is stored');
  const account = await jar.get('/account');
  assert.is(account.status, 200);
  assert.match(await account.text(), email);

  const other = await signIn(stack, email, 'a long enough password');
  assert.is((await other.get('/account')).status, 200);
});

signin('refuses a duplicate sign-up with "sign in instead" and a short password with its rule', async ({ stack }) => {
  const { email } = await userWithPassword(stack);
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf('/signup');
  const duplicate = await jar.post('/signup', { email, password: 'another long password', csrf });
  assert.is(duplicate.status, 409);
  assert.match(await duplicate.text(), 'already exists — sign in instead');
  const short = await jar.post('/signup', { email: uniqueEmail('short'), password: 'seven77', csrf });
  assert.is(short.status, 422);
  const body = await short.text();
  assert.match(body, '8 to 1024 characters');
  assert.not.match(body, 'seven77', 'the password is never written back');
});

signin('the session cookie is HttpOnly and SameSite=Lax, and signing in rotates it: the anonymous one stops working', async ({ stack }) => {
  const { email, password } = await userWithPassword(stack);
  const jar = new CookieJar(stack.baseUrl);
  const page = await jar.get('/signin');
  const anonymousCookie = page.headers.getSetCookie().find((line) => line.startsWith('threshold_session='));
  assert.ok(anonymousCookie, 'the sign-in page starts an anonymous session');
  assert.match(anonymousCookie!, /;\s*HttpOnly/i);
  assert.match(anonymousCookie!, /;\s*SameSite=Lax/i);
  const anonymous = jar.copy();
  const anonymousValue = jar.cookie('threshold_session');

  const response = await jar.post('/signin/password', { email, password, csrf: csrfFrom(await page.text()) });
  assert.is(response.status, 303);
  const signedInCookie = response.headers.getSetCookie().find((line) => line.startsWith('threshold_session='));
  assert.ok(signedInCookie);
  assert.match(signedInCookie!, /;\s*HttpOnly/i);
  assert.match(signedInCookie!, /;\s*SameSite=Lax/i);
  assert.is.not(jar.cookie('threshold_session'), anonymousValue, 'a new session id at sign-in');

  assert.is((await jar.get('/account')).status, 200);
  const replay = await anonymous.get('/account');
  assert.is(replay.status, 303, 'the pre-sign-in cookie is worth nothing');
  assert.is(locationOf(replay, stack.baseUrl), '/signin?next=%2Faccount');
});

signin('a wrong password and an unknown email get the identical answer, which never echoes the password', async ({ stack }) => {
  const { email } = await userWithPassword(stack);
  const unknown = uniqueEmail('nobody');
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf();
  const wrong = await jar.post('/signin/password', { email, password: 'wrong-password-123', csrf });
  const missing = await jar.post('/signin/password', { email: unknown, password: 'wrong-password-123', csrf });
  assert.is(wrong.status, 401);
  assert.is(missing.status, 401);
  const [wrongBody, missingBody] = [await wrong.text(), await missing.text()];
  assert.is(wrongBody.replaceAll(email, 'EMAIL'), missingBody.replaceAll(unknown, 'EMAIL'));
  assert.match(wrongBody, 'The email or password is wrong.');
  assert.not.match(wrongBody, 'wrong-password-123');
  assert.is(jar.cookie('threshold_session') !== undefined, true, 'still the anonymous session');
});

signin('a managed user can never sign in: not by password, not by link', async (context) => {
  const { stack } = context;
  const manager = await createUser(stack.store, { email: uniqueEmail('manager') });
  const email = uniqueEmail('managed');
  const managed: UserRecord = {
    id: newId(), email, first_name: 'Kid', last_name: null, password_hash: await hashPassword('managed password'),
    admin: false, managed_by: manager.id, registered_at: Date.now(), app_metadata: {},
  };
  await stack.store.users.insert(managed);

  const jar = new CookieJar(stack.baseUrl);
  const byPassword = await jar.post('/signin/password', { email, password: 'managed password', csrf: await jar.csrf() });
  assert.is(byPassword.status, 401);
  assert.match(await byPassword.text(), 'The email or password is wrong.');

  const { response, body } = await requestLink(stack, email);
  assert.is(response.status, 200);
  assert.match(body, 'Check your email');
  assert.is(await stack.store.magic_links.count({ user_id: managed.id }), 0, 'no link is made');
  assert.ok(!context.mails.some((mail) => mail.includes(email)), 'no mail is sent');

  // A link record made behind the pages' back is still refused.
  const token = 'M'.repeat(43);
  await stack.store.magic_links.insert({
    id: newId(), token_hash: hashSecret(token), user_id: managed.id, interaction_id: null,
    expires_at: Date.now() + 60_000, consumed_at: null, created_at: Date.now(),
  });
  const browser = new CookieJar(stack.baseUrl);
  assert.is((await browser.get(`/signin/link?token=${token}`)).status, 410);
  const used = await browser.post('/signin/link', { token, csrf: await browser.csrf() });
  assert.is(used.status, 410);
  assert.is((await browser.get('/account')).status, 303, 'not signed in');
});

signin('the "check your email" answer is the same for an unknown and a known address', async (context) => {
  const { stack } = context;
  const { email } = await userWithPassword(stack);
  const unknown = uniqueEmail('stranger');
  const known = await requestLink(stack, email);
  const stranger = await requestLink(stack, unknown);
  assert.is(known.response.status, 200);
  assert.is(stranger.response.status, 200);
  const strip = (body: string, address: string) => body.replaceAll(address, 'EMAIL').replace(/name="csrf" value="[^"]*"/g, '');
  assert.is(strip(known.body, email), strip(stranger.body, unknown));

  const knownMail = await mailTo(context, email);
  assert.ok(knownMail, 'the account holder gets a mail');
  assert.match(knownMail!, /Subject: Your Threshold sign-in link/);
  linkTokenIn(knownMail!);
  const strangerMail = await mailTo(context, unknown);
  assert.ok(strangerMail, 'the address owner is told there is no account');
  assert.not.match(strangerMail!, '/signin/link', 'it holds no sign-in link');
  assert.match(strangerMail!, '/signup');
  assert.is(await stack.store.users.count({ email: unknown }), 0, 'no account is created');
});

signin('an emailed link: GET does not use it, the first POST signs in, a second use fails', async (context) => {
  const { stack } = context;
  const { email, user } = await userWithPassword(stack);
  await requestLink(stack, email);
  const mail = await mailTo(context, email);
  assert.ok(mail);
  assert.match(mail!, `${stack.baseUrl}/signin/link?token=`, 'the link is absolute, on the base URL');
  const token = linkTokenIn(mail!);
  const stored = await stack.store.magic_links.findOne({ user_id: user.id });
  assert.is(stored!.token_hash, hashSecret(token), 'only the hash is stored');
  assert.ok(stored!.expires_at - stored!.created_at === 15 * 60_000, 'it lives 15 minutes');

  // A mail scanner fetching the link twice uses nothing up.
  const scanner = new CookieJar(stack.baseUrl);
  assert.is((await scanner.get(`/signin/link?token=${token}`)).status, 200);
  assert.is((await scanner.get(`/signin/link?token=${token}`)).status, 200);
  assert.is((await stack.store.magic_links.findOne({ user_id: user.id }))!.consumed_at, null);

  const browser = new CookieJar(stack.baseUrl);
  const page = await browser.get(`/signin/link?token=${token}`);
  const html = await page.text();
  assert.match(html, 'Continue');
  assert.match(html, email, 'it says which account');
  const used = await browser.post('/signin/link', { token, csrf: csrfFrom(html) });
  assert.is(used.status, 303);
  assert.is(locationOf(used, stack.baseUrl), '/training');
  assert.is((await browser.get('/account')).status, 200);

  const again = new CookieJar(stack.baseUrl);
  const second = await again.post('/signin/link', { token, csrf: await again.csrf() });
  assert.is(second.status, 410);
  assert.match(await second.text(), 'expired or has already been used');
  assert.is((await again.get('/account')).status, 303);
  assert.is((await scanner.get(`/signin/link?token=${token}`)).status, 410, 'GET now says it is used');
});

signin('an expired link fails with a way to sign in again', async ({ stack }) => {
  const { user } = await userWithPassword(stack);
  const token = 'E'.repeat(43);
  await stack.store.magic_links.insert({
    id: newId(), token_hash: hashSecret(token), user_id: user.id, interaction_id: null,
    expires_at: Date.now() - 1000, consumed_at: null, created_at: Date.now() - 16 * 60_000,
  });
  const browser = new CookieJar(stack.baseUrl);
  const page = await browser.get(`/signin/link?token=${token}`);
  assert.is(page.status, 410);
  assert.match(await page.text(), 'href="/signin"');
  const used = await browser.post('/signin/link', { token, csrf: await browser.csrf() });
  assert.is(used.status, 410);
  assert.is((await stack.store.magic_links.findOne({ token_hash: hashSecret(token) }))!.consumed_at, null);
  assert.is((await browser.get('/account')).status, 303);
});

signin('a link opened in another browser carries the pending authorization across', async ({ stack }) => {
  const { user } = await userWithPassword(stack);
  const owner = await createUser(stack.store, { email: uniqueEmail('dev') });
  const application = await createApplication(stack.store, owner.id, { name: 'Pace Coach', redirect_uris: ['https://coach.example/cb'] });
  const first = new CookieJar(stack.baseUrl);
  await first.get('/signin');
  const firstSession = await stack.store.sessions.findOne({ session_hash: hashSecret(first.cookie('threshold_session')!) });
  const interactionId = 'I'.repeat(43);
  await stack.store.interactions.insert({
    id: interactionId, user_id: null, session_id: firstSession!.id, application_id: application.id,
    request: { email_auth_mode: 'enabled' }, expires_at: Date.now() + 600_000, consumed_at: null, created_at: Date.now(),
  });
  const { token } = await createMagicLink(stack.store, user, interactionId);

  const second = new CookieJar(stack.baseUrl);
  const page = await second.get(`/signin/link?token=${token}`);
  const used = await second.post('/signin/link', { token, csrf: csrfFrom(await page.text()) });
  assert.is(used.status, 303);
  assert.is(locationOf(used, stack.baseUrl), `/oauth/interaction/${interactionId}`);
  const secondSession = await stack.store.sessions.findOne({ session_hash: hashSecret(second.cookie('threshold_session')!) });
  assert.is(secondSession!.user_id, user.id);
  assert.is((await stack.store.interactions.get(interactionId))!.session_id, secondSession!.id);
});

signin('password sign-in during an authorization returns to it; sign out keeps it for another account', async ({ stack }) => {
  const { email, password } = await userWithPassword(stack);
  const owner = await createUser(stack.store, { email: uniqueEmail('dev') });
  const application = await createApplication(stack.store, owner.id, { name: 'Ride Log', redirect_uris: ['https://ride.example/cb'] });
  const jar = new CookieJar(stack.baseUrl);
  await jar.get('/signin');
  const anonymous = await stack.store.sessions.findOne({ session_hash: hashSecret(jar.cookie('threshold_session')!) });
  const interactionId = 'J'.repeat(43);
  await stack.store.interactions.insert({
    id: interactionId, user_id: null, session_id: anonymous!.id, application_id: application.id,
    request: { email_auth_mode: 'existing_only' }, expires_at: Date.now() + 600_000, consumed_at: null, created_at: Date.now(),
  });
  const page = await jar.get(`/signin?interaction=${interactionId}`);
  const html = await page.text();
  assert.match(html, 'Ride Log');
  assert.match(html, 'Sign in to your existing Threshold account');
  assert.match(html, `name="interaction" value="${interactionId}"`);

  const signedIn = await jar.post('/signin/password', { email, password, interaction: interactionId, csrf: csrfFrom(html) });
  assert.is(signedIn.status, 303);
  assert.is(locationOf(signedIn, stack.baseUrl), `/oauth/interaction/${interactionId}`);
  const session = await stack.store.sessions.findOne({ session_hash: hashSecret(jar.cookie('threshold_session')!) });
  assert.is((await stack.store.interactions.get(interactionId))!.session_id, session!.id, 'the interaction followed the sign-in');

  const account = await jar.get('/account');
  const out = await jar.post('/signout', { interaction: interactionId, csrf: csrfFrom(await account.text()) });
  assert.is(out.status, 303);
  assert.is(locationOf(out, stack.baseUrl), `/signin?interaction=${interactionId}`);
  assert.is((await jar.get('/account')).status, 303, 'signed out');
  const fresh = await stack.store.sessions.findOne({ session_hash: hashSecret(jar.cookie('threshold_session')!) });
  assert.ok(fresh && fresh.user_id === null, 'a fresh anonymous session');
  assert.is((await stack.store.interactions.get(interactionId))!.session_id, fresh!.id, 'the interaction waits for the next account');
  assert.is(await stack.store.sessions.count({ id: session!.id }), 0, 'the signed-in session is gone');
});

signin.run();

/**
 * The rate limits and the slow-down have their own stack and store. TRUST_PROXY
 * lets each request name its client address in X-Forwarded-For, and the slow-down's pause is the
 * test's own, so it records each delay instead of waiting it out.
 */
interface LimitsContext extends Context {
  delays: number[];
}

const limits = suite<LimitsContext>('sign-in rate limits');

limits.before(async (context) => {
  context.delays = [];
  const mail = await startMailCatcher();
  Object.assign(context, mail);
  const rateLimits = (store: Store) => createRateLimits(store, { pause: async (ms) => void context.delays.push(ms) });
  context.stack = await startStack({ SMTP_URL: mail.smtpUrl, TRUST_PROXY: 'true' }, { limits: rateLimits });
});
limits.after(async (context) => {
  await context.stack.close();
  await new Promise<void>((resolve) => context.smtp.close(() => resolve()));
});
limits.before.each((context) => {
  context.delays.length = 0;
});

let lastAddress = 0;
/** A client address of its own (TEST-NET-3, RFC 5737), sent as X-Forwarded-For. */
function newAddress(): string {
  lastAddress += 1;
  return `203.0.113.${lastAddress}`;
}

function from(address: string): RequestInit {
  return { headers: { 'x-forwarded-for': address } };
}

/** `count` wrong passwords for `email` from `address`; the statuses. */
async function wrongPasswords(stack: TestStack, email: string, address: string, count: number): Promise<number[]> {
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf();
  const statuses: number[] = [];
  for (let attempt = 0; attempt < count; attempt++) {
    statuses.push((await jar.post('/signin/password', { email, password: `guess-${attempt}`, csrf }, from(address))).status);
  }
  return statuses;
}

limits('repeated wrong passwords for one account from one address get 429 with an integer Retry-After there, even for the right password', async ({ stack }) => {
  const email = uniqueEmail('target');
  await createUser(stack.store, { email, password: 'the right password' });
  const address = newAddress();
  assert.equal(await wrongPasswords(stack, email, address, 10), Array(10).fill(401));
  const jar = new CookieJar(stack.baseUrl);
  const blocked = await jar.post('/signin/password', { email, password: 'the right password', csrf: await jar.csrf() }, from(address));
  assert.is(blocked.status, 429);
  assert.match(blocked.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.is(blocked.headers.get('cache-control'), 'no-store');
  const body = await blocked.text();
  assert.match(body, 'Too many attempts');
  assert.not.match(body, 'the right password');
  assert.is((await jar.get('/account')).status, 303, 'not signed in');
});

limits('a storm of wrong passwords from other addresses does not keep the owner out: they sign in from their own address', async ({ stack }) => {
  const email = uniqueEmail('owner');
  await createUser(stack.store, { email, password: 'the right password' });
  const attacker = newAddress();
  const statuses = await wrongPasswords(stack, email, attacker, 12);
  assert.equal(statuses, [...Array(10).fill(401), 429, 429], 'the attacking address is limited for this account');
  for (let helper = 0; helper < 3; helper++) await wrongPasswords(stack, email, newAddress(), 10);

  const owner = new CookieJar(stack.baseUrl);
  const signedIn = await owner.post('/signin/password', { email, password: 'the right password', csrf: await owner.csrf() }, from(newAddress()));
  assert.is(signedIn.status, 303, 'no lockout of the owner from another address');
  assert.is((await owner.get('/account')).status, 200);
});

limits('an account with recent failures is slowed down, the delay growing and capped, for every attempt before its password is checked', async (context) => {
  const { stack, delays } = context;
  const email = uniqueEmail('slowed');
  await createUser(stack.store, { email, password: 'the right password' });
  // One failure from each of ten addresses, so no (account, address) or address limit is near.
  for (let attempt = 0; attempt < 10; attempt++) assert.equal(await wrongPasswords(stack, email, newAddress(), 1), [401]);
  assert.equal(delays, [250, 500, 1000, 2000, 3000, 3000], 'none for the first four attempts, then doubling from 250 ms to a 3 s cap');
  delays.length = 0;
  const owner = new CookieJar(stack.baseUrl);
  const signedIn = await owner.post('/signin/password', { email, password: 'the right password', csrf: await owner.csrf() }, from(newAddress()));
  assert.is(signedIn.status, 303);
  assert.equal(delays, [3000], 'the right password waits too, so the delay says nothing about the outcome');
  delays.length = 0;
  assert.equal(await wrongPasswords(stack, uniqueEmail('other'), newAddress(), 1), [401]);
  assert.equal(delays, [], 'other accounts are not slowed');
});

limits('a parallel burst of wrong passwords cannot pass the limit together: each attempt counts from the moment it is checked', async ({ stack }) => {
  const email = uniqueEmail('burst');
  await createUser(stack.store, { email, password: 'the right password' });
  const address = newAddress();
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf();
  const statuses = await Promise.all(Array.from({ length: 16 }, (_, attempt) => jar.post('/signin/password', { email, password: `guess-${attempt}`, csrf }, from(address)).then((response) => response.status)));
  assert.equal(statuses.filter((status) => status === 401).length, 10, 'exactly the limit is checked');
  assert.equal(statuses.filter((status) => status === 429).length, 6);
});

limits('a successful sign-in gives back the failure its attempt counted up front', async ({ stack }) => {
  const email = uniqueEmail('returns');
  await createUser(stack.store, { email, password: 'the right password' });
  const address = newAddress();
  // Thirty different accounts' worth of budget from one address: 29 failures, then successes keep the address usable.
  for (let attempt = 0; attempt < 29; attempt++) assert.equal(await wrongPasswords(stack, uniqueEmail(`spray-${attempt}`), address, 1), [401]);
  for (let round = 0; round < 3; round++) {
    const jar = new CookieJar(stack.baseUrl);
    assert.is((await jar.post('/signin/password', { email, password: 'the right password', csrf: await jar.csrf() }, from(address))).status, 303, `success ${round + 1}`);
  }
  assert.equal(await wrongPasswords(stack, uniqueEmail('spray-last'), address, 2), [401, 429], 'the thirtieth failure is the last one allowed');
});

limits('wrong passwords for many accounts from one address get 429 from that address only', async ({ stack }) => {
  const address = newAddress();
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 30; attempt++) statuses.push(...(await wrongPasswords(stack, uniqueEmail('spray'), address, 1)));
  assert.equal(statuses, Array(30).fill(401));
  const { email, password } = await userWithPassword(stack);
  const jar = new CookieJar(stack.baseUrl);
  const blocked = await jar.post('/signin/password', { email, password, csrf: await jar.csrf() }, from(address));
  assert.is(blocked.status, 429, 'per address, across accounts');
  assert.match(blocked.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  const elsewhere = await jar.post('/signin/password', { email, password, csrf: await jar.csrf() }, from(newAddress()));
  assert.is(elsewhere.status, 303, 'another address is not affected');
});

limits('the emailed link still works during a password storm, even from the limited address', async (context) => {
  const { stack } = context;
  const { email } = await userWithPassword(stack);
  const address = newAddress();
  await wrongPasswords(stack, email, address, 12);
  for (let helper = 0; helper < 3; helper++) await wrongPasswords(stack, email, newAddress(), 10);
  const jar = new CookieJar(stack.baseUrl);
  const requested = await jar.post('/signin/email', { email, csrf: await jar.csrf() }, from(address));
  assert.is(requested.status, 200, 'sending a link is not blocked by password failures');
  const mail = await mailTo(context, email);
  assert.ok(mail, 'the link is sent');
  const token = linkTokenIn(mail!);
  const page = await jar.get(`/signin/link?token=${token}`, from(address));
  const used = await jar.post('/signin/link', { token, csrf: csrfFrom(await page.text()) }, from(address));
  assert.is(used.status, 303);
  assert.is((await jar.get('/account')).status, 200, 'signed in by the link');
});

limits('repeated link requests get 429 with an integer Retry-After', async ({ stack }) => {
  const email = uniqueEmail('flood');
  const address = newAddress();
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf();
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 6; attempt++) statuses.push((await jar.post('/signin/email', { email, csrf }, from(address))).status);
  assert.equal(statuses, [200, 200, 200, 200, 200, 429]);
  const blocked = await jar.post('/signin/email', { email: uniqueEmail('other'), csrf }, from(address));
  assert.is(blocked.status, 429, 'per address too');
  assert.match(blocked.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
});

limits.run();
