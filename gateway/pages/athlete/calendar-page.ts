/**
 * The calendar (/training/calendar, and a member's `/teams/{team}/members/{user}/calendar`): weeks as rows
 * (Monday to Sunday), days as cells, each activity with its sport, duration, distance and load (linking to
 * its page on one's own calendar), the scheduled workouts on their days, and per week the totals (time,
 * distance, load) with the fitness and form at the week's end. Four weeks up to the chosen one and the week
 * after it; previous and next links move by four weeks (`?week=` any date of the week). At phone width the
 * weeks stack as cards and empty days fold away. Pure renderer for routes/training-hub-pages.ts.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { addDays } from '../../../domain/time.js';
import { clockOf, localParts, oneDecimal, sportName, whole } from './frame.js';
import { headingOf, hubPage, memberNav, type Subject } from './hub-frame.js';
import { signed } from './load-page.js';

export interface CalendarActivity {
  id: string;
  sport: string;
  startLocal: string;
  seconds: number;
  metres: number | null;
  load: number | null;
}

export interface CalendarWorkout {
  /** The workout's SWF title, when it has one. */
  title: string | null;
  sport: string;
  startLocal: string;
  from: string | null;
}

export interface CalendarWeek {
  monday: string;
  days: { date: string; activities: CalendarActivity[]; workouts: CalendarWorkout[] }[];
  /** The training-load row of the week's Sunday (today's in the current week); null for weeks to come or before the first activity. */
  end: { date: string; fitness: number; form: number } | null;
}

export interface CalendarView {
  subject: Subject;
  /** The Monday of the week the page opened on. */
  anchor: string;
  today: string;
  weeks: CalendarWeek[];
  /** What the member's grant leaves out; empty on one's own calendar. */
  notShared: string[];
  problems: string[];
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const SHORT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** The Monday of the ISO week holding `date` (YYYY-MM-DD). */
export function mondayOf(date: string): string {
  const weekday = (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}

export function weekTotals(week: CalendarWeek): { seconds: number; metres: number; load: number } {
  const all = week.days.flatMap((day) => day.activities);
  return {
    seconds: all.reduce((sum, activity) => sum + activity.seconds, 0),
    metres: all.reduce((sum, activity) => sum + (activity.metres ?? 0), 0),
    load: all.reduce((sum, activity) => sum + (activity.load ?? 0), 0),
  };
}

function shortDate(date: string): string {
  return SHORT.format(new Date(`${date}T00:00:00Z`));
}

function activityCell(subject: Subject, activity: CalendarActivity): Html {
  const inner = html`<strong>${sportName(activity.sport)}</strong><span>${clockOf(activity.seconds)}${activity.metres !== null ? html` · ${oneDecimal(activity.metres / 1000)} km` : null}</span><span>${activity.load !== null ? html`Load ${whole(activity.load)}` : html`<span class="muted">No load</span>`}</span>`;
  const data = html` data-activity="${activity.id}" data-seconds="${String(activity.seconds)}" data-metres="${String(activity.metres ?? 0)}" data-load="${String(activity.load ?? 0)}"`;
  return html`<a class="cal-act" href="${subject.base}/activities/${encodeURIComponent(activity.id)}"${data}>${inner}</a>`;
}

function workoutCell(workout: CalendarWorkout): Html {
  return html`<div class="cal-plan" data-workout><strong>${workout.title ?? `Planned ${sportName(workout.sport).toLowerCase()}`}</strong>${workout.title ? html`<span>Planned ${sportName(workout.sport).toLowerCase()}</span>` : null}<span>${localParts(workout.startLocal).time}${workout.from ? ` · ${workout.from}` : ''}</span></div>`;
}

function weekRow(view: CalendarView, week: CalendarWeek): Html {
  const totals = weekTotals(week);
  const current = week.monday === mondayOf(view.today);
  const cells = week.days.map((day, index) => {
    const empty = day.activities.length === 0 && day.workouts.length === 0;
    const classes = [empty ? 'rest' : '', day.date === view.today ? 'today' : ''].filter(Boolean).join(' ');
    return html`<td${classes ? html` class="${classes}"` : null} data-date="${day.date}"><span class="cal-date"><span class="wd">${WEEKDAYS[index]} </span>${shortDate(day.date)}</span><div>${day.activities.map((activity) => activityCell(view.subject, activity))}${day.workouts.map(workoutCell)}</div></td>`;
  });
  const total = html`<td class="total"><div class="week-total" data-week-total data-seconds="${String(totals.seconds)}" data-metres="${String(totals.metres)}" data-load="${String(totals.load)}"><span class="week-head">Week of ${shortDate(week.monday)}</span><b>${clockOf(totals.seconds)}</b><span>${oneDecimal(totals.metres / 1000)} km · load ${whole(totals.load)}</span>${week.end ? html`<span class="muted" data-fitness="${String(week.end.fitness)}" data-form="${String(week.end.form)}">Fitness ${signed(week.end.fitness)}, form ${signed(week.end.form)}${week.end.date === view.today && week.end.date !== addDays(week.monday, 6) ? ' today' : ''}</span>` : null}</div></td>`;
  return html`<tr id="week-${week.monday}"${current ? html` class="current"` : null} data-week="${week.monday}">${cells}${total}</tr>`;
}

export function calendarPage(view: CalendarView): PageOptions {
  const href = (monday: string) => `${view.subject.base}/calendar?week=${monday}#week-${monday}`;
  const pager = html`<div class="pager weeks"><a href="${href(addDays(view.anchor, -28))}" rel="prev">← Earlier</a><a href="${href(mondayOf(view.today))}">This week</a><a href="${href(addDays(view.anchor, 28))}" rel="next">Later →</a></div>`;
  const body = html`${memberNav(view.subject, 'calendar')}<div class="page-head"><div><h1>${headingOf(view.subject, 'Calendar')}</h1><p class="muted">Weeks ${shortDate(view.weeks[0]!.monday)} to ${shortDate(addDays(view.weeks.at(-1)!.monday, 6))}: activities with duration, distance and load; week totals with fitness and form at the week’s end.</p></div></div>
${view.problems.map((problem) => html`<p class="notice warn">${problem}</p>`)}
${view.notShared.map((what) => html`<p class="notice warn not-shared">${what}</p>`)}
<section class="panel" aria-label="Weeks">${pager}<div class="scroll"><table class="calendar"><thead><tr>${WEEKDAYS.map((day) => html`<th scope="col">${day}</th>`)}<th scope="col" class="total">Week</th></tr></thead><tbody>${view.weeks.map((week) => weekRow(view, week))}</tbody></table></div>${pager}</section>`;
  return hubPage(view.subject, { title: 'Calendar', section: 'calendar', body });
}
