/**
 * One-message pages shared by the sign-in and account screens: a refused form (CSRF), too many
 * attempts, not found, and a generic notice with an optional way on. None of them links to an
 * application: a way on always stays on this server.
 */
import { html, type Html } from './html.js';
import type { Brand, PageOptions } from './layout.js';
import { appHeader } from './layout.js';

export interface MessageView {
  title: string;
  message: string | Html;
  /** A link on, always to a path of this server. */
  next?: { href: string; label: string } | null;
  brand?: Brand | null;
  tone?: 'plain' | 'error';
}

export function messagePage(view: MessageView): PageOptions {
  return {
    title: view.title,
    brand: view.brand ?? null,
    body: html`${view.brand ? appHeader(view.brand) : null}
<h1>${view.title}</h1>
${view.tone === 'error' ? html`<p class="notice error" role="alert">${view.message}</p>` : html`<p>${view.message}</p>`}
${view.next ? html`<a class="button" href="${view.next.href}">${view.next.label}</a>` : null}`,
  };
}

/** 403 for a form without the session's CSRF token (stale, or posted from elsewhere). */
export function forbiddenPage(): PageOptions {
  return messagePage({
    title: 'This form has expired',
    message: 'The page was open for too long, or the form did not come from this browser window. Nothing was changed. Reload the page and try again.',
    next: { href: '/signin', label: 'Back to sign-in' },
    tone: 'error',
  });
}

/** 429; the caller sets the integer `Retry-After` header. */
export function tooManyRequestsPage(view: { retryAfterSeconds: number; back: string }): PageOptions {
  const minutes = Math.max(1, Math.ceil(view.retryAfterSeconds / 60));
  return messagePage({
    title: 'Too many attempts',
    message: `To keep accounts safe, this is paused for now. Try again in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}.`,
    next: { href: view.back, label: 'Back' },
    tone: 'error',
  });
}

export function notFoundPage(): PageOptions {
  return messagePage({
    title: 'Not found',
    message: 'There is nothing here, or it is not yours to see.',
    next: { href: '/account', label: 'Go to your account' },
  });
}

/** 503 when a sign-in email could not be handed to the mail server. */
export function mailFailedPage(back: string): PageOptions {
  return messagePage({
    title: 'We could not send the email',
    message: 'The mail server did not accept the message. Wait a moment and try again.',
    next: { href: back, label: 'Try again' },
    tone: 'error',
  });
}
