/**
 * The coach's pages around a member's training: the athletes who authorized a team (each with links to
 * their calendar, load and season, or "Activities not shared"), and the "not shared" state of a member's
 * page when their authorization leaves out activities:read. Pure renderers for routes/training-hub-pages.ts.
 */
import { html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { hubPage, memberNav, type Subject } from './hub-frame.js';

export interface TeamAthletesView {
  viewerId: string;
  team: { id: string; name: string };
  /** By name; `shares`: the authorization carries activities:read. */
  athletes: { id: string; name: string; shares: boolean }[];
}

export function teamAthletesPage(view: TeamAthletesView): PageOptions {
  const base = `/teams/${encodeURIComponent(view.team.id)}/members`;
  const links = (id: string) => html`<span class="links">${(['calendar', 'load', 'season'] as const).map((page) => html`<a href="${base}/${encodeURIComponent(id)}/${page}">${page.slice(0, 1).toUpperCase() + page.slice(1)}</a>`)}</span>`;
  return hubPage({ userId: view.viewerId, name: null, base: '/training', team: null }, {
    title: `${view.team.name}: athletes`, section: null,
    body: html`<p class="crumb"><a href="/account/teams/${encodeURIComponent(view.team.id)}">${view.team.name}</a></p><div class="page-head"><div><h1>Athletes of ${view.team.name}</h1><p class="muted">The athletes who let this team see their training, with what they shared.</p></div></div>
<section class="panel">${view.athletes.length === 0
    ? html`<p class="empty">No athlete has authorized this team yet.</p>`
    : html`<ul class="athletes">${view.athletes.map((athlete) => html`<li data-athlete="${athlete.id}"><strong>${athlete.name}</strong>${athlete.shares ? links(athlete.id) : html`<span class="muted">Activities not shared</span>`}</li>`)}</ul>`}</section>`,
  });
}

const TITLES: Record<string, string> = { calendar: 'Calendar', load: 'Training load', season: 'Season', activity: 'Activity' };

/** A member's page (`page`: calendar, load or season) when they did not share their activities. */
export function notSharedPage(subject: Subject, page: string): PageOptions {
  const title = TITLES[page] ?? 'Calendar';
  return hubPage(subject, {
    title, section: null,
    body: html`${memberNav(subject, page)}<div class="page-head"><div><h1>${title} — ${subject.name}</h1></div></div><section class="panel not-shared"><p class="empty"><strong>Not shared.</strong> ${subject.name} authorized this team without their activities (the activities:read scope), so their training is not shown. They can widen the authorization from their teams page.</p></section>`,
  });
}
