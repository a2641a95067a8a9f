/**
 * The corrections part of an activity's page (issue 28 item 5): its notes, a form for sport (the taxonomy's
 * standard sports, plus the activity's own when it is not one of them), tags (comma-separated) and notes, and
 * *Delete activity…*, which leads to a confirmation page rather than deleting on one click. Both forms post
 * with the session's CSRF token to routes/activity-correction-pages.ts, which writes through the services the
 * API uses. The same form, with what was typed and what was wrong, is the answer to a refused save. Pure
 * renderers; without script everything works.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { athletePage, localParts, sportName } from './frame.js';
import { MAX_NOTES_LENGTH } from '../../schemas/activity-corrections.js';
import { standardSports } from '../../../domain/sport.js';
import type { ActivityRecord } from '../../../storage/store.js';

export interface CorrectionsForm {
  activityId: string;
  csrfToken: string;
  sport: string;
  /** As typed: comma-separated. */
  tags: string;
  notes: string;
  /** The chooser's sports: the taxonomy's standard ones. */
  sports: { sport: string; label: string }[];
  /** What was wrong with a refused save, one message per field. */
  errors?: string[];
}

export const CORRECTIONS_STYLE = `
.notes{white-space:pre-wrap;overflow-wrap:anywhere;margin:.35rem 0 0}
form.corrections{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:0 1rem}
form.corrections .wide{grid-column:1/-1}
form.corrections label{margin:.5rem 0 .3rem}
form.corrections select{width:100%;padding:.7rem .6rem;border:1px solid #c5cbd5;border-radius:8px;font:inherit;background:#fff}
form.corrections .buttons{display:flex;gap:1rem;align-items:center;flex-wrap:wrap;margin-top:1rem}
form.corrections button{width:auto;margin:0;padding:.6rem 1.4rem}
.danger-link{color:var(--danger);font-weight:600;text-decoration:none}
@media (max-width:760px){form.corrections{grid-template-columns:minmax(0,1fr)}}
`;

/** The form as an activity's page first shows it: the activity's sport, tags and notes. */
export function correctionsForm(record: Pick<ActivityRecord, 'id' | 'sport' | 'tags' | 'notes'>, csrfToken: string): CorrectionsForm {
  return { activityId: record.id, csrfToken, sport: record.sport, tags: record.tags.join(', '), notes: record.notes ?? '', sports: standardSports() };
}

function activityPath(id: string): string {
  return `/training/activities/${encodeURIComponent(id)}`;
}

/** The panel on the activity's page. */
export function correctionsPanel(form: CorrectionsForm): Html {
  const sports = form.sports.some((entry) => entry.sport === form.sport) ? form.sports : [{ sport: form.sport, label: sportName(form.sport) }, ...form.sports];
  return html`<section class="panel" aria-labelledby="corrections"><h2 id="corrections">Sport, tags and notes</h2>
${(form.errors ?? []).map((error) => html`<p class="notice error" role="alert">${error}</p>`)}
<form class="corrections" method="post" action="${activityPath(form.activityId)}/corrections"><input type="hidden" name="csrf" value="${form.csrfToken}">
<div><label for="sport">Sport</label><select id="sport" name="sport">${sports.map((entry) => html`<option value="${entry.sport}"${entry.sport === form.sport ? html` selected` : null}>${sportName(entry.sport)}</option>`)}</select></div>
<div><label for="tags">Tags <span class="muted">separated by commas</span></label><input id="tags" type="text" name="tags" value="${form.tags}" maxlength="20000" autocomplete="off"></div>
<div class="wide"><label for="notes">Notes</label><textarea id="notes" name="notes" rows="3" maxlength="${MAX_NOTES_LENGTH}">${form.notes}</textarea></div>
<div class="wide buttons"><button type="submit">Save</button><a class="danger-link" href="${activityPath(form.activityId)}/delete">Delete activity…</a></div>
</form></section>`;
}

/** A refused save: the form again, with what was typed and why it was refused. */
export function correctionsErrorPage(form: CorrectionsForm): PageOptions {
  const body = html`<p class="crumb"><a href="${activityPath(form.activityId)}">← Back to the activity</a></p>
<div class="page-head"><div><h1>Not saved</h1><p class="muted">Correct what is marked and save again.</p></div></div>
${correctionsPanel(form)}`;
  return athletePage({ title: 'Not saved', current: 'activities', body, style: CORRECTIONS_STYLE });
}

/** The confirmation step before a deletion. */
export function deleteActivityPage(view: { activityId: string; csrfToken: string; sport: string; startLocal: string }): PageOptions {
  const when = localParts(view.startLocal, true);
  const what = `${sportName(view.sport)}, ${when.day} at ${when.time}`;
  const body = html`<p class="crumb"><a href="${activityPath(view.activityId)}">← Back to the activity</a></p>
<section class="panel" aria-labelledby="delete"><h1 id="delete">Delete this activity?</h1>
<p><strong>${what}</strong></p>
<p>This deletes the activity with its series and analyses, and the uploaded file when no other activity comes from it. Apps you connected are told it is gone. It cannot be undone.</p>
<form method="post" action="${activityPath(view.activityId)}/delete"><input type="hidden" name="csrf" value="${view.csrfToken}">
<div class="buttons"><button type="submit" class="danger">Delete for good</button> <a class="button secondary" href="${activityPath(view.activityId)}">Cancel</a></div>
</form></section>`;
  return athletePage({ title: 'Delete this activity?', current: 'activities', body, style: `${CORRECTIONS_STYLE}.buttons{display:flex;gap:.75rem;flex-wrap:wrap}.buttons>*{width:auto;margin:0;padding:.6rem 1.4rem}` });
}
