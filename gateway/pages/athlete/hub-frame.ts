/**
 * What the training hub's pages (load, calendar, and the coach's views of them and of the season) share:
 * whose training a page shows (the signed-in athlete, or a team member seen by their coach through the
 * member's grant), the heading carrying the member's name, the coach's sub-navigation between a member's
 * pages, and their CSS (under the frame's CSP hash: no inline style attribute anywhere). Pure functions for
 * routes/training-hub-pages.ts.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { athletePage, type Section } from './frame.js';

/** Whose training a page shows. */
export interface Subject {
  userId: string;
  /** The member's name as the team sees it; null for the signed-in athlete's own pages. */
  name: string | null;
  /** The member's pages' prefix (`/teams/{team}/members/{user}`); `/training` for one's own. */
  base: string;
  /** The team's name, for the coach's crumb. */
  team: { id: string; name: string } | null;
}

export function selfSubject(userId: string): Subject {
  return { userId, name: null, base: '/training', team: null };
}

/** "Calendar" for oneself, "Calendar — Ada Rider" for a member. */
export function headingOf(subject: Subject, title: string): string {
  return subject.name === null ? title : `${title} — ${subject.name}`;
}

const MEMBER_PAGES: readonly [string, string][] = [['calendar', 'Calendar'], ['load', 'Load'], ['season', 'Season']];

/** The coach's crumb and links between a member's pages; nothing on one's own pages. */
export function memberNav(subject: Subject, current: string): Html | null {
  if (subject.team === null) return null;
  return html`<p class="crumb"><a href="/account/teams/${encodeURIComponent(subject.team.id)}">${subject.team.name}</a></p><nav class="member-pages" aria-label="${subject.name ?? ''}">${MEMBER_PAGES.map(([page, label]) => html`<a href="${subject.base}/${page}"${page === current ? html` aria-current="page"` : null}>${label}</a>`)}</nav>`;
}

const STYLE = `
nav.member-pages{display:flex;gap:.25rem;margin:0 0 1rem;flex-wrap:wrap}
nav.member-pages a{padding:.3rem .7rem;border-radius:8px;border:1px solid var(--line);text-decoration:none;font-weight:600;font-size:.875rem;color:var(--muted);background:#fff}
nav.member-pages a[aria-current=page]{color:var(--ink);border-color:var(--accent)}
.ranges{display:flex;gap:.35rem;flex-wrap:wrap;align-items:center;margin:0 0 .75rem}
.ranges a{padding:.3rem .7rem;border:1px solid var(--line);border-radius:999px;text-decoration:none;font-size:.875rem;font-weight:600;color:var(--muted)}
.ranges a[aria-current=true]{background:var(--ink);border-color:var(--ink);color:#fff}
p.words{font-size:1.05rem;margin:1rem 0 .75rem}
table.calendar{width:100%;border-collapse:collapse;table-layout:fixed;font-size:.8rem}
table.calendar th{font-size:.72rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);font-weight:600;padding:.35rem;border-bottom:1px solid var(--line);text-align:left}
table.calendar td{vertical-align:top;border:1px solid #eef0f4;padding:.3rem;min-height:4rem}
table.calendar th.total,table.calendar td.total{width:9rem}
table.calendar tr.current td{background:#f8fbff}
table.calendar td.today{box-shadow:inset 0 0 0 2px var(--accent)}
.cal-date{display:block;font-weight:650;color:var(--muted);margin-bottom:.2rem}.cal-date .wd{display:none}
.cal-act{display:block;border-radius:6px;padding:.25rem .35rem;margin:0 0 .25rem;background:#eef2ff;color:inherit;text-decoration:none;line-height:1.3;overflow:hidden}
a.cal-act:hover{background:#e0e7ff}
.cal-act strong{display:block;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;color:#3730a3}
.cal-act span,.cal-plan span{display:block;font-variant-numeric:tabular-nums}
.cal-plan{border:1px dashed #98a2b3;border-radius:6px;padding:.25rem .35rem;margin:0 0 .25rem;color:#475467}
.week-total{font-variant-numeric:tabular-nums;line-height:1.45}.week-total b,.week-total span{display:block}.week-total .muted{font-size:.8rem}
.week-total .week-head{display:none}
.pager.weeks{margin:0 0 .75rem}
ul.athletes{list-style:none;margin:0;padding:0}
ul.athletes li{display:flex;justify-content:space-between;align-items:center;flex-wrap:wrap;gap:.4rem 1rem;padding:.7rem .25rem;border-top:1px solid #eef0f4}
ul.athletes li:first-child{border-top:0}
ul.athletes .links{display:flex;gap:.4rem;flex-wrap:wrap}
ul.athletes .links a{padding:.3rem .7rem;border:1px solid var(--line);border-radius:8px;text-decoration:none;font-weight:600;font-size:.875rem}
@media (max-width:760px){
table.calendar,table.calendar tbody,table.calendar tr,table.calendar td{display:block;width:auto}
table.calendar thead{display:none}
table.calendar tr{border:1px solid var(--line);border-radius:10px;margin:0 0 .75rem;overflow:hidden}
table.calendar td{border:0;border-top:1px solid #eef0f4;min-height:0;display:grid;grid-template-columns:4.2rem minmax(0,1fr);gap:.4rem}
table.calendar td.rest{display:none}
table.calendar td.total{width:auto;background:#f8fafc;border-top:0;display:block}
table.calendar th.total{width:auto}
.cal-date .wd{display:inline}
.week-total .week-head{display:block;font-weight:650;margin-bottom:.2rem}
}
`;

/** A hub page in the athlete frame: own pages mark their section; a member's page marks none. */
export function hubPage(subject: Subject, view: { title: string; section: Section | null; body: Html }): PageOptions {
  return athletePage({ title: headingOf(subject, view.title), current: subject.team === null ? view.section : null, body: view.body, style: STYLE });
}
