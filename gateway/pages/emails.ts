/**
 * The sign-in emails and the team invitation, as plain text and HTML. ASCII only, so transports never need to re-encode the
 * link; the HTML is escaped like every page. Neither email names the application being signed in
 * to: anyone can register an app under any name, and a mail from us must not lend it our voice.
 */
import { html } from './html.js';
import type { Mail } from '../services/mailer.js';

const FRAME = 'font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif;color:#14171f;max-width:32rem';
const BUTTON = 'display:inline-block;padding:12px 20px;border-radius:8px;background:#2457d6;color:#ffffff;text-decoration:none;font-weight:600';

/** A sign-in link for an existing account. */
export function signInLinkMail(view: { to: string; url: string; minutes: number }): Mail {
  return {
    to: view.to,
    subject: 'Your Threshold sign-in link',
    text: [
      'Hello,',
      '',
      'Open this link to sign in to Threshold:',
      '',
      view.url,
      '',
      `It works once and expires in ${view.minutes} minutes.`,
      'If you did not ask to sign in, ignore this email: nobody can sign in without the link.',
      '',
    ].join('\n'),
    html: html`<div style="${FRAME}">
<p>Hello,</p>
<p>Press the button to sign in to Threshold.</p>
<p><a href="${view.url}" style="${BUTTON}">Sign in to Threshold</a></p>
<p style="color:#5b6472;font-size:14px">It works once and expires in ${view.minutes} minutes. If the button does not work, copy this address into your browser:<br>${view.url}</p>
<p style="color:#5b6472;font-size:14px">If you did not ask to sign in, ignore this email: nobody can sign in without the link.</p>
</div>`.value,
  };
}

/** Someone asked for a link for an address without an account: say so to its owner only. */
export function noAccountMail(view: { to: string; signUpUrl: string }): Mail {
  return {
    to: view.to,
    subject: 'Sign in to Threshold',
    text: [
      'Hello,',
      '',
      'Someone, hopefully you, asked to sign in to Threshold with this email address, but there is no Threshold account for it.',
      '',
      'To create one, open:',
      '',
      view.signUpUrl,
      '',
      'If you did not ask, ignore this email: no account was created.',
      '',
    ].join('\n'),
    html: html`<div style="${FRAME}">
<p>Hello,</p>
<p>Someone, hopefully you, asked to sign in to Threshold with this email address, but there is no Threshold account for it.</p>
<p><a href="${view.signUpUrl}" style="${BUTTON}">Create an account</a></p>
<p style="color:#5b6472;font-size:14px">If you did not ask, ignore this email: no account was created.</p>
</div>`.value,
  };
}

/**
 * An invitation to a team. The team's name is the owner's words, so it is quoted, never the subject,
 * and the mail says who sent it (the owner's address) rather than speaking for the team.
 */
export function teamInvitationMail(view: { to: string; teamName: string; invitedBy: string; url: string; days: number }): Mail {
  return {
    to: view.to,
    subject: 'An invitation to a team on Threshold',
    text: [
      'Hello,',
      '',
      `${view.invitedBy} invited you to join the team "${view.teamName}" on Threshold.`,
      '',
      'Open this link, sign in, and press Join:',
      '',
      view.url,
      '',
      `It works once and expires in ${view.days} days. Joining a team shares none of your own data.`,
      'If you do not know the sender, ignore this email.',
      '',
    ].join('\n'),
    html: html`<div style="${FRAME}">
<p>Hello,</p>
<p>${view.invitedBy} invited you to join the team &ldquo;${view.teamName}&rdquo; on Threshold.</p>
<p><a href="${view.url}" style="${BUTTON}">Open the invitation</a></p>
<p style="color:#5b6472;font-size:14px">It works once and expires in ${view.days} days. Joining a team shares none of your own data. If the button does not work, copy this address into your browser:<br>${view.url}</p>
<p style="color:#5b6472;font-size:14px">If you do not know the sender, ignore this email.</p>
</div>`.value,
  };
}
