/**
 * Sign up, sign in and sign out (AUTH.md "sessions and sign-in"; gaps.md "Authentication details"):
 *
 *   GET  /signin[?interaction=|?next=]   the two ways in: an emailed link, or email + password; branded for
 *                                 the application of a live interaction, reworded for existing_only
 *   POST /signin/password         verify; 401 with one message for every failure; 429 past the limit
 *   POST /signin/email            send a link; the same "check your email" page for every address
 *   GET  /signin/link?token=      a Continue button only: GET never uses a link (mail scanners fetch)
 *   POST /signin/link             use the link once, sign in, carry the interaction across
 *   GET  /signup, POST /signup    create an account with a password, then sign in
 *   POST /signout                 end the session; with an interaction: "use another account"
 *
 * Every POST carries the session's CSRF token (403 page otherwise) and every answer is a page from
 * sendPage or a 303. Signing in always goes through Sessions.signIn, which rotates the session.
 * A signed-in person goes on to the authorization being answered, else to the `next` address carried
 * (a path on this server: forms.ts nextPathOf), else to their training (SIGNED_IN_HOME, issue 26 item 6).
 *
 * Decisions:
 * - No enumeration: a wrong password, an unknown email, a managed user and a user without a password
 *   get the same 401 page (a dummy scrypt runs so they take the same time), and a link request gets
 *   the same page for every address.
 * - A link requested for an address without an account sends that address a short email saying there
 *   is no account and linking to /signup: the requester learns nothing (same page, same timing, same
 *   rate limits), the owner of the address is not left waiting for a link that never comes, and no
 *   account is ever created for an address nobody proved to own. A managed user gets nothing.
 * - Rate limits (auth/rate-limit.ts): failed passwords lock (429) per (email, client address) and per
 *   address; per email alone they only slow every later attempt down (a growing wait before the
 *   password is checked, at most 3 s), so nobody can lock an owner out by knowing their email. Link
 *   requests per email and per address (every request counts, known or not), never the password
 *   counters: the emailed link always works. Sign-up attempts that pass validation per address.
 *
 * Kept honest by test/gateway/sign-in.test.ts and test/gateway/pages.test.ts.
 */
import type { Context } from 'koa';
import type { InteractionRecord, SessionRecord, UserRecord } from '../../storage/store.js';
import type { Provider } from '../../domain/providers.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { HttpError, ValidationError } from '../errors.js';
import { clientAddress, type RateLimiter } from '../auth/rate-limit.js';
import { interactionIdOf, interactionPath, liveInteraction } from '../services/interactions.js';
import { brandOf } from '../presenters/application.js';
import { hashPassword, verifyPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/passwords.js';
import { consumeMagicLink, createMagicLink, findUsable, MAGIC_LINK_TTL_MS } from '../auth/magic-links.js';
import { createUser } from '../services/accounts.js';
import { sendPage, type Brand } from '../pages/layout.js';
import {
  along, csrfSession, emailField, FIELD_LIMITS, formBody, nextPathOf, seeOther, SIGNED_IN_HOME, stringField, withInteraction, type FormBody,
} from '../pages/forms.js';
import { forbiddenPage, mailFailedPage, tooManyRequestsPage } from '../pages/messages.js';
import {
  checkEmailPage, magicLinkPage, magicLinkUnusablePage, signInPage, signUpPage, type EmailAuthMode, type FormContext,
} from '../pages/sign-in.js';
import { noAccountMail, signInLinkMail } from '../pages/emails.js';

const WRONG_CREDENTIALS = 'The email or password is wrong.';
const LINK_MINUTES = MAGIC_LINK_TTL_MS / 60_000;

/** Compared against when there is no usable hash, so every failure costs one scrypt. */
let dummyHash: Promise<string> | null = null;

/** The authorization a sign-in screen serves, when its interaction is live. */
interface Flow {
  interaction: InteractionRecord | null;
  brand: Brand | null;
  mode: EmailAuthMode;
  /** Providers a person may sign in through during this authorization (routes/integrations.ts). */
  providers: readonly Provider[];
  /** Where to go once signed in when no interaction is carried (a path on this server), or null. */
  next: string | null;
}

export function signInRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store, sessions, limits, mailer } = deps;
  const baseUrl = deps.config.baseUrl;

  table.page({ method: 'get', path: '/signin', name: 'signIn' }, async function showSignIn(ctx) {
    const flow = await flowOf(ctx.query.interaction, ctx.query.next);
    if (await deps.sessions.signedInUser(ctx)) {
      // A session cookie planted under /signin alone (issue 26) would otherwise send the browser back and forth to a page it never reaches.
      sessions.cookie.expireStrayCopies(ctx);
      return seeOther(ctx, destination(flow));
    }
    const session = await sessions.ensure(ctx);
    sendPage(ctx, 200, signInPage({ ...formContext(flow, session), mode: flow.mode }));
  });

  table.page({ method: 'post', path: '/signin/password', name: 'signInWithPassword' }, async function signInWithPassword(ctx) {
    const body = formBody(ctx);
    const session = await csrfSession(ctx, sessions, body);
    if (!session) return sendPage(ctx, 403, forbiddenPage());
    const flow = await flowOf(body.interaction, body.next);
    const email = emailField(body);
    const address = `ip:${clientAddress(ctx)}`;
    const account = email ? `email:${email}` : null;
    const pair = account ? `${account} ${address}` : null;
    const counters: Counted[] = [[limits.signInAddressFailures, address], ...(pair ? [[limits.signInFailures, pair] as Counted] : [])];
    // Every attempt counts as a failure from here, in the same atomic increment that checks the limits,
    // so parallel attempts (in any process) cannot all pass them at once; a success gives its count back.
    if (await tooManyTaken(ctx, counters, along('/signin', formContext(flow, session)))) return;
    // Before the password is checked, right or wrong, so the wait says nothing about the outcome.
    if (account) await limits.signInSlowDown.attempt(account);

    const user = email ? await store.users.findOne({ email }) : null;
    if (!(await passwordMatches(user, stringField(body, 'password'))) || !user) {
      return sendPage(ctx, 401, signInPage({
        ...formContext(flow, session), mode: flow.mode, email: typedEmail(body), error: { form: 'password', message: WRONG_CREDENTIALS },
      }));
    }
    // Only this address's count for the account is cleared: the account's slow-down runs out by itself,
    // so a success cannot wipe the count of a guesser elsewhere.
    await limits.signInAddressFailures.release(address);
    if (account) await limits.signInSlowDown.release(account);
    if (pair) await limits.signInFailures.reset(pair);
    await sessions.signIn(ctx, user.id);
    seeOther(ctx, destination(flow));
  });

  table.page({ method: 'post', path: '/signin/email', name: 'signInWithEmail' }, async function requestMagicLink(ctx) {
    const body = formBody(ctx);
    const session = await csrfSession(ctx, sessions, body);
    if (!session) return sendPage(ctx, 403, forbiddenPage());
    const flow = await flowOf(body.interaction, body.next);
    const interactionId = flow.interaction?.id ?? null;
    const next = flow.next;
    const email = emailField(body);
    if (!email) {
      return sendPage(ctx, 400, signInPage({
        ...formContext(flow, session), mode: flow.mode, email: typedEmail(body), error: { form: 'email', message: 'Enter a valid email address.' },
      }));
    }
    const keys = [`email:${email}`, `ip:${clientAddress(ctx)}`];
    const back = along('/signin', { interactionId, next });
    if (await tooManyTaken(ctx, keys.map((key): Counted => [limits.magicLinks, key]), back)) return;

    const user = await store.users.findOne({ email });
    try {
      if (user && user.managed_by === null) {
        const { token } = await createMagicLink(store, user, interactionId);
        await mailer.send(signInLinkMail({ to: email, url: `${baseUrl}/signin/link?token=${token}${next ? `&next=${encodeURIComponent(next)}` : ''}`, minutes: LINK_MINUTES }));
      } else if (!user) {
        await mailer.send(noAccountMail({ to: email, signUpUrl: `${baseUrl}${along('/signup', { interactionId, next })}` }));
      }
      // A managed user gets nothing: it can never sign in.
    } catch (error) {
      ctx.state.logger?.error({ err: error }, 'sign-in: the email could not be sent');
      return sendPage(ctx, 503, mailFailedPage(back));
    }
    sendPage(ctx, 200, checkEmailPage({ brand: flow.brand, interactionId, next, email, minutes: LINK_MINUTES }));
  });

  table.page({ method: 'get', path: '/signin/link', name: 'magicLink' }, async function showMagicLink(ctx) {
    const session = await sessions.ensure(ctx);
    const token = ctx.query.token;
    const link = await findUsable(store, token);
    const user = link ? await store.users.get(link.user_id) : null;
    if (!link || !user || user.managed_by !== null || typeof token !== 'string') {
      return sendPage(ctx, 410, magicLinkUnusablePage({ interactionId: null, minutes: LINK_MINUTES }));
    }
    sendPage(ctx, 200, magicLinkPage({ token, csrfToken: session.csrf_token, email: user.email, next: nextPathOf(ctx.query.next) }));
  });

  table.page({ method: 'post', path: '/signin/link', name: 'useMagicLink' }, async function useMagicLink(ctx) {
    const body = formBody(ctx);
    if (!(await csrfSession(ctx, sessions, body))) return sendPage(ctx, 403, forbiddenPage());
    const link = await consumeMagicLink(store, stringField(body, 'token'));
    const user = link ? await store.users.get(link.user_id) : null;
    if (!link || !user || user.managed_by !== null) {
      return sendPage(ctx, 410, magicLinkUnusablePage({ interactionId: null, minutes: LINK_MINUTES }));
    }
    const session = await sessions.signIn(ctx, user.id);
    const interactionId = await adoptInteraction(link.interaction_id, user.id, session.id);
    seeOther(ctx, interactionId ? interactionPath(interactionId) : (nextPathOf(body.next) ?? SIGNED_IN_HOME));
  });

  table.page({ method: 'get', path: '/signup', name: 'signUp' }, async function showSignUp(ctx) {
    const flow = await flowOf(ctx.query.interaction, ctx.query.next);
    if (await deps.sessions.signedInUser(ctx)) return seeOther(ctx, destination(flow));
    const session = await sessions.ensure(ctx);
    sendPage(ctx, 200, signUpPage(formContext(flow, session)));
  });

  table.page({ method: 'post', path: '/signup', name: 'createAccount' }, async function createAccount(ctx) {
    const body = formBody(ctx);
    const session = await csrfSession(ctx, sessions, body);
    if (!session) return sendPage(ctx, 403, forbiddenPage());
    const flow = await flowOf(body.interaction, body.next);
    const firstName = stringField(body, 'first_name') ?? '';
    const lastName = stringField(body, 'last_name') ?? '';
    const again = (status: number, error: string) => sendPage(ctx, status, signUpPage({
      ...formContext(flow, session),
      values: { email: typedEmail(body), first_name: firstName.slice(0, FIELD_LIMITS.name), last_name: lastName.slice(0, FIELD_LIMITS.name) },
      error,
    }));
    const key = `ip:${clientAddress(ctx)}`;
    const back = along('/signup', formContext(flow, session));
    if (await tooMany(ctx, [[limits.signUps, key]], back)) return;

    const email = emailField(body);
    const password = stringField(body, 'password');
    if (!email) return again(422, 'Enter a valid email address.');
    if (password === null || password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
      return again(422, `Choose a password of ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`);
    }
    if (firstName.trim().length > FIELD_LIMITS.name || lastName.trim().length > FIELD_LIMITS.name) {
      return again(422, `Names can have at most ${FIELD_LIMITS.name} characters.`);
    }
    if (await tooManyTaken(ctx, [[limits.signUps, key]], back)) return;
    let user: UserRecord;
    try {
      user = await createUser(store, { email, password, first_name: firstName, last_name: lastName });
    } catch (error) {
      if (error instanceof ValidationError) return again(422, `Please check the form: ${error.issues[0]?.msg ?? 'a value is not valid'}.`);
      if (error instanceof HttpError && error.status === 409) return again(409, 'An account with this email already exists — sign in instead.');
      throw error;
    }
    await sessions.signIn(ctx, user.id);
    seeOther(ctx, destination(flow));
  });

  table.page({ method: 'post', path: '/signout', name: 'signOut' }, async function signOut(ctx) {
    const body = formBody(ctx);
    const session = await csrfSession(ctx, sessions, body);
    if (!session) return sendPage(ctx, 403, forbiddenPage());
    const interactionId = interactionIdOf(body.interaction);
    await sessions.signOut(ctx);
    // "Not you? Use another account": the pending authorization follows the browser to a fresh
    // anonymous session, without the account it was shown to.
    let kept: string | null = null;
    const interaction = await liveInteraction(store, interactionId);
    if (interaction && interaction.session_id === session.id) {
      const fresh = await sessions.ensure(ctx);
      const moved = await store.interactions.updateOne(
        { id: interaction.id, consumed_at: null, session_id: session.id },
        { set: { session_id: fresh.id, user_id: null } },
      );
      if (moved) kept = moved.id;
    }
    seeOther(ctx, withInteraction('/signin', kept));
  });

  /**
   * The live interaction named by a query parameter or form field, with its application's brand; else the
   * return address named by `next`.
   */
  async function flowOf(value: unknown, next: unknown): Promise<Flow> {
    const interaction = await liveInteraction(store, value);
    const application = interaction ? await store.applications.get(interaction.application_id) : null;
    if (!interaction || !application) return { interaction: null, brand: null, mode: 'enabled', providers: [], next: nextPathOf(next) };
    const mode: EmailAuthMode = interaction.request.email_auth_mode === 'existing_only' ? 'existing_only' : 'enabled';
    return { interaction, brand: brandOf(application), mode, providers: deps.config.configuredProviders, next: null };
  }

  /**
   * An emailed link may be opened in another tab or browser than the one that asked for it: the
   * interaction moves to the new session when its session is anonymous (or gone) or this user's, and
   * it was not already shown to another account. Returns the id to continue with, or null.
   */
  async function adoptInteraction(id: string | null, userId: string, sessionId: string, now = Date.now()): Promise<string | null> {
    const interaction = await liveInteraction(store, id, now);
    if (!interaction || (interaction.user_id !== null && interaction.user_id !== userId)) return null;
    if (interaction.session_id === sessionId) return interaction.id;
    const holder = interaction.session_id ? await store.sessions.get(interaction.session_id) : null;
    if (holder && holder.expires_at > now && holder.user_id !== null && holder.user_id !== userId) return null;
    const moved = await store.interactions.updateOne(
      { id: interaction.id, consumed_at: null, session_id: interaction.session_id },
      { set: { session_id: sessionId } },
    );
    return moved ? moved.id : null;
  }
}

/** The signed-in user of this browser, when the session is live and its user can sign in. */
function formContext(flow: Flow, session: SessionRecord): FormContext {
  return { brand: flow.brand, interactionId: flow.interaction?.id ?? null, csrfToken: session.csrf_token, providers: flow.providers, next: flow.next };
}

function destination(flow: Flow): string {
  return flow.interaction ? interactionPath(flow.interaction.id) : (flow.next ?? SIGNED_IN_HOME);
}

/** What the person typed as their email, bounded, to fill the form again (never the password). */
function typedEmail(body: FormBody): string {
  return (stringField(body, 'email') ?? '').trim().slice(0, FIELD_LIMITS.email);
}

/**
 * No user, a managed user, a user without a password and a wrong password are all just "no": each costs one
 * scrypt so the answer's timing does not tell them apart.
 */
async function passwordMatches(user: UserRecord | null, password: string | null): Promise<boolean> {
  const usable = password !== null && password.length > 0 && password.length <= FIELD_LIMITS.password;
  if (usable && user && user.managed_by === null && user.password_hash) return verifyPassword(password, user.password_hash);
  dummyHash ??= hashPassword('threshold: no usable password');
  await verifyPassword(usable ? password : 'x', await dummyHash);
  return false;
}

/** A limiter and the key an event counts under. */
type Counted = [RateLimiter, string];

/** Sends the 429 page (integer Retry-After) when any key is over its limiter's limit, counting nothing. */
async function tooMany(ctx: Context, counters: Counted[], back: string): Promise<boolean> {
  const waits = await Promise.all(counters.map(([limiter, key]) => limiter.retryAfter(key)));
  return refuseWhenWaiting(ctx, waits, back);
}

/**
 * Counts one event under every key (RateLimiter.take); when any key would go past its limit, gives back
 * what was counted and sends the 429 page, as `tooMany`.
 */
async function tooManyTaken(ctx: Context, counters: Counted[], back: string): Promise<boolean> {
  const waits: (number | null)[] = [];
  for (const [limiter, key] of counters) waits.push(await limiter.take(key));
  if (waits.every((wait) => wait === null)) return false;
  for (const [i, [limiter, key]] of counters.entries()) if (waits[i] === null) await limiter.release(key);
  return refuseWhenWaiting(ctx, waits, back);
}

function refuseWhenWaiting(ctx: Context, found: (number | null)[], back: string): boolean {
  const waits = found.filter((wait): wait is number => wait !== null);
  if (waits.length === 0) return false;
  const seconds = Math.trunc(Math.max(...waits));
  ctx.set('Retry-After', String(seconds));
  sendPage(ctx, 429, tooManyRequestsPage({ retryAfterSeconds: seconds, back }));
  return true;
}
