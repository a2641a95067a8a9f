/**
 * The activity list page (/training): filters (date range, sport, tag — the list endpoint's own filters),
 * newest first, paged, each row the activity summary the API answers: date, sport, duration, distance,
 * pace (min:ss per km) for a foot sport or speed (km/h) for the others, average power and heart rate.
 * Pure renderer for routes/athlete-pages.ts.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { paceCap, paceOfSpeed, usesPace } from '../charts/pace.js';
import { athletePage, clockOf, kmh, localParts, oneDecimal, secondsOf, sportName, whole } from './frame.js';

/** The fields of the API's activity summary this page reads. */
export interface ListedActivity {
  id: string;
  sport: string;
  start_local: string;
  duration: string;
  tags: string[];
  summary: Record<string, Record<string, number | null>> | null;
}

export interface ListFilters {
  start: string;
  end: string;
  sport: string;
  tag: string;
}

export interface ListView {
  activities: ListedActivity[];
  filters: ListFilters;
  sports: string[];
  tags: string[];
  page: number;
  hasOlder: boolean;
  /** What was ignored in the query ("… is not a date"). */
  problems: string[];
  /** What the last action did ("The activity was deleted."). */
  notice?: string | null;
}

/** The list's query string for `filters` at `page`. */
export function listHref(filters: ListFilters, page: number): string {
  const query = new URLSearchParams();
  if (filters.start) query.set('start', filters.start);
  if (filters.end) query.set('end', filters.end);
  if (filters.sport) query.set('sport', filters.sport);
  if (filters.tag) query.set('tags', filters.tag);
  if (page > 1) query.set('page', String(page));
  const text = query.toString();
  return text ? `/training?${text}` : '/training';
}

function metric(value: number | null | undefined, format: (value: number) => string, unit: string): Html {
  return value === null || value === undefined ? html`<span class="muted">–</span>` : html`${format(value)}<small>${unit}</small>`;
}

function row(activity: ListedActivity): Html {
  const when = localParts(activity.start_local);
  const summary = activity.summary ?? {};
  const distance = summary.distance?.sum;
  const speed = summary.speed?.mean;
  const pace = usesPace(activity.sport);
  return html`<li><a class="activity-row" href="/training/activities/${encodeURIComponent(activity.id)}">
<div class="when">${when.day}<span>${when.time}</span></div>
<div class="what"><strong>${sportName(activity.sport)}</strong>${activity.tags.map((tag) => html`<span class="chip">${tag}</span>`)}</div>
<div class="m dur">${clockOf(secondsOf(activity.duration))}</div>
<div class="m dist">${metric(distance, (metres) => oneDecimal(metres / 1000), 'km')}</div>
<div class="m spd">${pace ? metric(speed, (value) => paceOfSpeed(value, paceCap(activity.sport)), '/km') : metric(speed, (value) => oneDecimal(kmh(value)), 'km/h')}</div>
<div class="m pow">${metric(summary.power?.mean, whole, 'W')}</div>
<div class="m hr">${metric(summary.heart_rate?.mean, whole, 'bpm')}</div>
</a></li>`;
}

export function activityListPage(view: ListView): PageOptions {
  const { filters } = view;
  const filtered = Boolean(filters.start || filters.end || filters.sport || filters.tag);
  // Nothing to filter yet: the page is the welcome, without the filter form.
  const none = view.activities.length === 0 && !filtered && view.page === 1;
  const body = html`<div class="page-head"><div><h1>Activities</h1>${none ? null : html`<p class="muted">Newest first${filtered ? ', filtered' : ''}.</p>`}</div>${none ? null : html`<a class="button action" href="/training/upload">Upload files</a>`}</div>
${view.notice ? html`<p class="notice success" role="status">${view.notice}</p>` : null}
${view.problems.map((problem) => html`<p class="notice warn" role="alert">${problem}</p>`)}
${none ? null : html`<section class="panel" aria-label="Filters">
<form class="filters" method="get" action="/training">
<div><label for="start">From</label><input id="start" type="date" name="start" value="${filters.start}"></div>
<div><label for="end">To</label><input id="end" type="date" name="end" value="${filters.end}"></div>
<div><label for="sport">Sport</label><select id="sport" name="sport"><option value="">All sports</option>${view.sports.map((sport) => html`<option value="${sport}"${sport === filters.sport ? html` selected` : null}>${sportName(sport)}</option>`)}</select></div>
<div><label for="tags">Tag</label><select id="tags" name="tags"><option value="">Any tag</option>${view.tags.map((tag) => html`<option value="${tag}"${tag === filters.tag ? html` selected` : null}>${tag}</option>`)}</select></div>
<div><button type="submit">Apply</button></div>
</form>
</section>`}
<section class="panel" aria-label="Activities">
${view.activities.length === 0
  ? none
    ? html`<div class="empty welcome"><p><strong>No activities yet.</strong></p><p>Upload FIT files from your watch or bike computer, or CSV files, and each shows here with its charts, laps and best efforts.</p><a class="button action" href="/training/upload">Upload files</a></div>`
    : html`<p class="empty">No activity matches these filters. <a href="/training">Clear the filters</a></p>`
  : html`<div class="activity-row head" aria-hidden="true"><div>Date</div><div>Activity</div><div class="m">Time</div><div class="m">Distance</div><div class="m">Pace/speed</div><div class="m">Avg power</div><div class="m">Avg HR</div></div>
<ul class="activities">${view.activities.map(row)}</ul>`}
${view.page > 1 || view.hasOlder
  ? html`<nav class="pager" aria-label="Pages">${view.page > 1 ? html`<a href="${listHref(filters, view.page - 1)}">← Newer</a>` : html`<span></span>`}<span class="muted">Page ${view.page}</span>${view.hasOlder ? html`<a href="${listHref(filters, view.page + 1)}">Older →</a>` : html`<span></span>`}</nav>`
  : null}
</section>`;
  return athletePage({ title: 'Activities', current: 'activities', body });
}
