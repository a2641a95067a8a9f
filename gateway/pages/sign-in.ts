/**
 * The sign-in screens (gaps.md "Authentication details": email magic link and email + password;
 * `email_auth_mode=existing_only` only rewords the screen): sign in, sign up, "check your email", and
 * the two pages of an emailed link (Continue, or unusable). Pure renderers for routes/sign-in.ts.
 * A password is never written back into a page; an email is, escaped, to save retyping.
 */
import { html, type Html } from './html.js';
import { appHeader, type Brand, type PageOptions } from './layout.js';
import { along, withInteraction } from './forms.js';
import { PROVIDER_NAMES, type Provider } from '../../domain/providers.js';

export type EmailAuthMode = 'enabled' | 'existing_only';

/** What every sign-in form carries. */
export interface FormContext {
  /** The application being signed in to, during an authorization. */
  brand: Brand | null;
  interactionId: string | null;
  csrfToken: string;
  /** Configured providers to offer "Sign in with …" for (during an authorization only). */
  providers?: readonly Provider[];
  /** Where to go after signing in, outside an authorization (forms.ts nextPathOf). */
  next?: string | null;
}

function hidden(view: FormContext): Html {
  return html`<input type="hidden" name="csrf" value="${view.csrfToken}">${view.interactionId ? html`<input type="hidden" name="interaction" value="${view.interactionId}">` : null}${!view.interactionId && view.next ? html`<input type="hidden" name="next" value="${view.next}">` : null}`;
}

function heading(brand: Brand | null, title: string): Html {
  return html`${brand ? appHeader(brand) : null}<h1>${title}</h1>`;
}

function alert(message: string | null | undefined): Html | null {
  return message ? html`<p class="notice error" role="alert">${message}</p>` : null;
}

export function signInPage(view: FormContext & {
  mode: EmailAuthMode;
  email?: string | null;
  /** A problem with one of the two forms, shown above it. */
  error?: { form: 'email' | 'password'; message: string } | null;
}): PageOptions {
  const existingOnly = view.mode === 'existing_only';
  const title = existingOnly ? 'Sign in to your existing Threshold account' : 'Sign in or create an account';
  const lead = view.brand
    ? `to continue to ${view.brand.name}`
    : existingOnly ? 'Use the email address of your Threshold account.' : 'Threshold keeps your training data in one place.';
  const email = view.email ?? '';
  return {
    title: existingOnly ? 'Sign in' : 'Sign in or sign up',
    brand: view.brand,
    body: html`${heading(view.brand, title)}
<p class="lead">${lead}</p>
${view.error?.form === 'email' ? alert(view.error.message) : null}
<form method="post" action="/signin/email">
${hidden(view)}
<label for="link-email">Email</label>
<input id="link-email" type="email" name="email" value="${email}" autocomplete="email" maxlength="320" required>
<button type="submit">Email me a sign-in link</button>
</form>
<div class="divider">or use your password</div>
${view.error?.form === 'password' ? alert(view.error.message) : null}
<form method="post" action="/signin/password">
${hidden(view)}
<label for="password-email">Email</label>
<input id="password-email" type="email" name="email" value="${email}" autocomplete="username" maxlength="320" required>
<label for="password">Password</label>
<input id="password" type="password" name="password" autocomplete="current-password" maxlength="1024" required>
<button type="submit" class="secondary">Sign in with password</button>
</form>
${providerButtons(view)}
<p class="muted center">${existingOnly ? 'No account yet?' : 'New to Threshold?'} <a href="${along('/signup', view)}">Create an account</a></p>`,
  };
}

/** "Sign in with <provider>" for each configured provider, during an authorization (routes/integrations.ts). */
function providerButtons(view: FormContext): Html | null {
  const providers = view.providers ?? [];
  if (!view.interactionId || providers.length === 0) return null;
  const query = `interaction=${encodeURIComponent(view.interactionId)}`;
  return html`<div class="divider">or</div>
${providers.map((provider) => html`<a class="button secondary" href="/integrations/${provider}/signin?${query}">Sign in with ${PROVIDER_NAMES[provider]}</a>`)}`;
}

/** A sign-in through a provider that did not end signed in: why, and the way back to the sign-in screen. */
export function providerSignInStoppedPage(view: { title: string; message: string; interactionId: string | null }): PageOptions {
  return {
    title: view.title,
    body: html`<h1>${view.title}</h1>
<p class="notice error" role="alert">${view.message}</p>
<a class="button" href="${withInteraction('/signin', view.interactionId)}">Sign in with your email</a>`,
  };
}

export interface SignUpValues {
  email: string;
  first_name: string;
  last_name: string;
}

export function signUpPage(view: FormContext & { values?: Partial<SignUpValues>; error?: string | null }): PageOptions {
  const values = view.values ?? {};
  return {
    title: 'Create an account',
    brand: view.brand,
    body: html`${heading(view.brand, 'Create your Threshold account')}
<p class="lead">${view.brand ? `to continue to ${view.brand.name}` : 'Your training data, in one place, shared only with the apps you choose.'}</p>
${alert(view.error)}
<form method="post" action="/signup">
${hidden(view)}
<label for="email">Email</label>
<input id="email" type="email" name="email" value="${values.email ?? ''}" autocomplete="email" maxlength="320" required>
<label for="new-password">Password</label>
<input id="new-password" type="password" name="password" autocomplete="new-password" minlength="8" maxlength="1024" required aria-describedby="password-hint">
<p id="password-hint" class="muted">At least 8 characters.</p>
<div class="row">
<div><label for="first-name">First name <span class="muted">(optional)</span></label>
<input id="first-name" type="text" name="first_name" value="${values.first_name ?? ''}" autocomplete="given-name" maxlength="100"></div>
<div><label for="last-name">Last name <span class="muted">(optional)</span></label>
<input id="last-name" type="text" name="last_name" value="${values.last_name ?? ''}" autocomplete="family-name" maxlength="100"></div>
</div>
<button type="submit">Create account</button>
</form>
<p class="muted center">Already have an account? <a href="${along('/signin', view)}">Sign in</a></p>`,
  };
}

/** The same page whether or not the address has an account (no enumeration). */
export function checkEmailPage(view: { brand: Brand | null; interactionId: string | null; next?: string | null; email: string; minutes: number }): PageOptions {
  return {
    title: 'Check your email',
    brand: view.brand,
    body: html`${heading(view.brand, 'Check your email')}
<p>We sent a message to <strong>${view.email}</strong>. Open the link in it to continue${view.brand ? ` to ${view.brand.name}` : ''}.</p>
<p class="muted">A sign-in link works once and expires after ${view.minutes} minutes. You can open it in any browser on any device. Nothing arrived? Check your spam folder, or wait a minute and ask again.</p>
<a class="button secondary" href="${along('/signin', view)}">Use another email address</a>`,
  };
}

/** GET of an emailed link: nothing is used up until the person presses Continue (mail scanners follow links). */
export function magicLinkPage(view: { token: string; csrfToken: string; email: string | null; next: string | null }): PageOptions {
  return {
    title: 'Continue signing in',
    body: html`<h1>Continue signing in</h1>
<p>${view.email ? html`You are signing in to Threshold as <strong>${view.email}</strong>.` : 'You are signing in to Threshold.'}</p>
<form method="post" action="/signin/link">
<input type="hidden" name="csrf" value="${view.csrfToken}">
<input type="hidden" name="token" value="${view.token}">
${view.next ? html`<input type="hidden" name="next" value="${view.next}">` : null}
<button type="submit">Continue</button>
</form>
<p class="muted">If you did not ask to sign in, close this page: nothing happens without the button.</p>`,
  };
}

export function magicLinkUnusablePage(view: { interactionId: string | null; minutes: number }): PageOptions {
  return {
    title: 'Link expired',
    body: html`<h1>This sign-in link cannot be used</h1>
<p class="notice error" role="alert">It has expired or has already been used. A link works once, for ${view.minutes} minutes.</p>
<a class="button" href="${withInteraction('/signin', view.interactionId)}">Sign in again</a>`,
  };
}
