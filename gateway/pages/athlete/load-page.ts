/**
 * The training-load page (/training/load, and a member's `/teams/{team}/members/{user}/load`): the daily load
 * bars with the fitness, fatigue and form lines (charts/load.ts) over a chosen range (6 weeks, 3 months, a
 * season of a year, or a custom start and end), the values of the range's last day stated in words, and an
 * empty state saying what to do next (no activities: upload; no threshold: declare one). Every number is a
 * row of `GET /api/v1/ext/training-load`. Pure renderer for routes/training-hub-pages.ts.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { loadFigure } from '../charts/load.js';
import type { LoadDay } from '../../services/training-load.js';
import { localParts, whole } from './frame.js';
import { headingOf, hubPage, memberNav, type Subject } from './hub-frame.js';

/** The ranges offered, with their length in days ending on `end`. */
export const LOAD_RANGES = [['6w', '6 weeks', 42], ['3m', '3 months', 91], ['season', 'Season', 365]] as const;
export type LoadRange = (typeof LOAD_RANGES)[number][0] | 'custom';

export interface LoadView {
  subject: Subject;
  range: LoadRange;
  start: string;
  end: string;
  days: LoadDay[];
  /** Whether the athlete has any activity at all (an empty range may still be followed by older ones). */
  hasActivities: boolean;
  problems: string[];
}

/** A signed whole number with a real minus sign: "−17". */
export function signed(value: number): string {
  const rounded = Math.round(value);
  return rounded < 0 ? `−${whole(-rounded)}` : whole(rounded);
}

/** What the form says, in the usual reading of the fitness–fatigue balance. */
export function formMeaning(form: number): string {
  if (form > 25) return 'very fresh: fitness is fading for want of training';
  if (form > 5) return 'fresh: rested and ready for a hard day or a race';
  if (form >= -10) return 'neutral: training and recovery in balance';
  if (form >= -30) return 'productive: fatigue is building fitness';
  return 'overreaching: fatigue far above fitness, a risk to recover from';
}

function words(subject: Subject, day: LoadDay): Html {
  const when = localParts(`${day.date}T00:00:00`, true).day;
  return html`<p class="words" id="current" data-date="${day.date}" data-fitness="${String(day.fitness)}" data-fatigue="${String(day.fatigue)}" data-form="${String(day.form)}">On ${when}${subject.name === null ? '' : html` ${subject.name}’s`} <strong>fitness <span data-value="fitness">${signed(day.fitness)}</span>, fatigue <span data-value="fatigue">${signed(day.fatigue)}</span>, form <span data-value="form">${signed(day.form)}</span></strong>: ${formMeaning(day.form)}.</p>`;
}

function rangeLinks(view: LoadView): Html {
  const href = (range: string) => `${view.subject.base}/load?range=${range}`;
  return html`<div class="ranges" aria-label="Range">${LOAD_RANGES.map(([range, label]) => html`<a href="${href(range)}"${view.range === range ? html` aria-current="true"` : null}>${label}</a>`)}</div>
<form class="filters" method="get" action="${view.subject.base}/load"><input type="hidden" name="range" value="custom"><div><label for="start">From</label><input id="start" name="start" type="date" value="${view.start}"></div><div><label for="end">To</label><input id="end" name="end" type="date" value="${view.end}"></div><div><button class="button" type="submit">Show</button></div></form>`;
}

function emptyState(view: LoadView, withoutLoad: number, activities: number): Html | null {
  const self = view.subject.name === null;
  if (!view.hasActivities) {
    return self
      ? html`<div class="empty welcome"><p><strong>No activities yet.</strong></p><p>Load, fitness and fatigue come from your activities. Upload your rides and runs (FIT or CSV) to see them here.</p><a class="button action" href="/training/upload">Upload activities</a></div>`
      : html`<div class="empty"><p>${view.subject.name} has no activities yet.</p></div>`;
  }
  if (activities > 0 && withoutLoad === activities) {
    return self
      ? html`<div class="empty welcome"><p><strong>No load without a threshold.</strong></p><p>Your activities have no load because there is no threshold to measure them by. Declare your critical power or FTP, threshold pace, or maximum and resting heart rate.</p><a class="button action" href="/training/settings">Declare a threshold</a></div>`
      : html`<div class="empty"><p>${view.subject.name}’s activities have no load yet: they have declared no threshold.</p></div>`;
  }
  return null;
}

export function loadPage(view: LoadView): PageOptions {
  const activities = view.days.reduce((sum, day) => sum + day.activities, 0);
  const withoutLoad = view.days.reduce((sum, day) => sum + day.activities_without_load, 0);
  const empty = emptyState(view, withoutLoad, activities);
  const last = view.days.at(-1);
  const partial = empty === null && withoutLoad > 0
    ? html`<p class="notice warn">${whole(withoutLoad)} of ${whole(activities)} activities in this range have no load (no threshold for their sport or signal).${view.subject.name === null ? html` <a href="/training/settings">Declare a threshold</a>.` : null}</p>`
    : null;
  const body = html`${memberNav(view.subject, 'load')}<div class="page-head"><div><h1>${headingOf(view.subject, 'Training load')}</h1><p class="muted">Daily load with fitness (42-day average), fatigue (7-day average) and form (yesterday’s fitness minus fatigue), ${view.start} to ${view.end}.</p></div></div>
${view.problems.map((problem) => html`<p class="notice warn">${problem}</p>`)}
<section class="panel" aria-labelledby="load-chart"><h2 id="load-chart">Load, fitness, fatigue and form</h2>${rangeLinks(view)}
${empty ?? html`${last ? words(view.subject, last) : null}${partial}${loadFigure(view.days)}`}</section>`;
  return hubPage(view.subject, { title: 'Training load', section: 'load', body });
}
