/**
 * The training hub's pages (issue 28 items 1, 2 and 6), in the athlete pages' frame and security:
 *
 *   GET /training/load                                   load bars, fitness, fatigue and form over a range
 *   GET /training/calendar[?week=YYYY-MM-DD]             weeks as rows, activities and scheduled workouts
 *   GET /teams/:team_id/athletes                         the athletes who authorized the team (team members only)
 *   GET /teams/:team_id/members/:user_id/calendar|load|season   the same pages of one of them, for their coach
 *   GET /teams/:team_id/members/:user_id/activities/:activity_id  one of their activities (no corrections form)
 *
 * Every number comes from the services the API routes call: the load rows of `GET /api/v1/ext/training-load`
 * (services/training-load.ts), each activity's load of `GET /api/v1/ext/activities/{id}/numbers`, the
 * activity list of `GET /api/v1/activities/`, the scheduled workouts of `GET /api/v1/workouts/schedule`
 * and the season of routes/athlete-pages.ts. A coach reads a member's pages through the member's
 * authorization of the team, as a delegated token minted through it would: nothing the granted scopes do not
 * cover (no `activities:read`: a "not shared" state; no `workouts:read`: no scheduled workouts). Someone
 * outside the team, or a user who never authorized it, gets the 404 page, as every team page answers.
 * Kept honest by test/gateway/training-hub-pages.test.ts and test/browser/training-hub.test.ts.
 */
import type { Context } from 'koa';
import { addDays, daysBetween, parseDate, todayLocal } from '../../domain/time.js';
import type { Principal } from '../auth/access-tokens.js';
import { engineCallOptions } from '../client-gone.js';
import type { GatewayDeps } from '../deps.js';
import { HttpError, NotFoundError } from '../errors.js';
import { sendPage } from '../pages/layout.js';
import { notFoundPage } from '../pages/messages.js';
import { calendarPage, mondayOf, type CalendarActivity, type CalendarWeek } from '../pages/athlete/calendar-page.js';
import { secondsOf } from '../pages/athlete/frame.js';
import { selfSubject, type Subject } from '../pages/athlete/hub-frame.js';
import { notSharedPage, teamAthletesPage } from '../pages/athlete/team-athletes-page.js';
import { LOAD_RANGES, loadPage, type LoadRange } from '../pages/athlete/load-page.js';
import { seasonPage } from '../pages/athlete/season-page.js';
import type { ListedActivity } from '../pages/athlete/activity-list.js';
import { displayName } from '../presenters/user.js';
import { activityListJson } from '../services/activity-listing.js';
import { teamAuthorizers, teamOfMember } from '../services/team-access.js';
import { trainingLoadDays, type LoadDay, type LoadQuery } from '../services/training-load.js';
import { findWorkouts, applicationNames } from '../services/workouts.js';
import { presentWorkout } from '../presenters/workout.js';
import type { RouteTable } from '../route-table.js';
import { queryValue, seasonView, signedInHandler } from '../pages/athlete/page-handlers.js';
import { ownActivity, personalPrincipal } from '../services/activities.js';
import { activityPage } from '../pages/athlete/activity-page.js';
import { activityView } from '../pages/athlete/activity-view.js';

/** The longest custom range of the load page, days. */
const MAX_RANGE_DAYS = 731;
/** Weeks on the calendar: three before the chosen one, it, and the one after (planned workouts). */
const WEEKS_BEFORE = 3;
const WEEKS_AFTER = 1;
/** Most activities (and workouts) one calendar page shows. */
const MAX_ON_CALENDAR = 400;
/** The first date the pages show; the last is ten years from today (the engine's table spans at most MAX_LOAD_DAYS). */
const FIRST_DATE = '1900-01-01';
const YEARS_AHEAD = 10;
/** Activity numbers asked of the engine at once. */
const NUMBERS_AT_ONCE = 4;

/** Whose pages, and with which scopes: one's own (every scope), or a member's through their authorization. */
interface Reader {
  subject: Subject;
  principal: Principal;
}

export function trainingHubPageRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;

  /** The member's pages for a signed-in team member or owner; the 404 page for anyone else. */
  function memberPage(page: (ctx: Context, reader: Reader) => Promise<void>) {
    return signedInHandler(deps, async (ctx, { user }) => {
      const teamId = String(ctx.params.team_id ?? '').slice(0, 65);
      const memberId = String(ctx.params.user_id ?? '').slice(0, 65);
      const [membership, authorization] = await Promise.all([
        teamOfMember(store, teamId, user.id),
        store.team_authorizations.findOne({ team_id: teamId, user_id: memberId }),
      ]);
      const member = membership && authorization ? await store.users.get(memberId) : null;
      if (!membership || !authorization || !member) return sendPage(ctx, 404, notFoundPage());
      const name = displayName(member, { revealEmail: false });
      const subject: Subject = {
        userId: member.id, name, base: `/teams/${encodeURIComponent(teamId)}/members/${encodeURIComponent(member.id)}`,
        team: { id: membership.team.id, name: membership.team.name },
      };
      const principal: Principal = { ...personalPrincipal(member.id), scopes: new Set(authorization.scopes), actorId: user.id, org: teamId };
      if (!principal.scopes.has('activities:read')) return sendPage(ctx, 200, notSharedPage(subject, ctx.params.activity_id !== undefined ? 'activity' : ctx.path.split('/').at(-1) ?? 'calendar'));
      await page(ctx, { subject, principal });
    });
  }

  const ownPage = (page: (ctx: Context, reader: Reader) => Promise<void>) => signedInHandler(deps, async (ctx, { user }) => {
    await page(ctx, { subject: selfSubject(user.id), principal: { ...personalPrincipal(user.id), scopes: new Set(['activities:read', 'workouts:read']) } });
  });

  async function showLoad(ctx: Context, { subject }: Reader): Promise<void> {
    const problems: string[] = [];
    const today = todayLocal();
    const rangeText = queryValue(ctx, 'range');
    let range: LoadRange = rangeText === 'custom' || LOAD_RANGES.some(([name]) => name === rangeText) ? rangeText as LoadRange : '6w';
    if (rangeText && rangeText !== range) problems.push(`“${rangeText}” is not a range; showing 6 weeks.`);
    let end = today;
    let start = addDays(today, -41);
    if (range === 'custom') {
      const startText = queryValue(ctx, 'start');
      const endText = queryValue(ctx, 'end');
      const startDate = pageDate(startText);
      const endDate = endText ? pageDate(endText) : today;
      if (startDate === null || endDate === null) {
        problems.push(`${startDate === null ? `“${startText}”` : `“${endText}”`} is not a date (YYYY-MM-DD) from ${FIRST_DATE} to ${lastDate()}; showing 6 weeks.`);
        range = '6w';
      } else if (startDate > endDate) {
        problems.push(`The range starts (${startDate}) after it ends (${endDate}); showing 6 weeks.`);
        range = '6w';
      } else {
        end = endDate;
        start = daysBetween(startDate, endDate) + 1 > MAX_RANGE_DAYS ? addDays(endDate, -(MAX_RANGE_DAYS - 1)) : startDate;
        if (start !== startDate) problems.push(`A range covers at most ${MAX_RANGE_DAYS} days; showing the ${MAX_RANGE_DAYS} days up to ${endDate}.`);
      }
    } else {
      start = addDays(today, -(LOAD_RANGES.find(([name]) => name === range)![2] - 1));
    }
    const [days, first] = await Promise.all([
      loadDaysOrProblem(deps, ctx, subject.userId, { sports: [], start, end }, problems),
      store.activities.findOne({ user_id: subject.userId }),
    ]);
    sendPage(ctx, 200, loadPage({ subject, range, start, end, days, hasActivities: first !== null, problems }));
  }

  async function showCalendar(ctx: Context, { subject, principal }: Reader): Promise<void> {
    const problems: string[] = [];
    const today = todayLocal();
    const weekText = queryValue(ctx, 'week');
    const week = weekText ? pageDate(weekText) : today;
    if (week === null) problems.push(`“${weekText}” is not a date (YYYY-MM-DD) from ${FIRST_DATE} to ${lastDate()}; showing this week.`);
    const anchor = mondayOf(week ?? today);
    const first = addDays(anchor, -7 * WEEKS_BEFORE);
    const last = addDays(anchor, 7 * WEEKS_AFTER + 6);
    const showsWorkouts = principal.scopes.has('workouts:read');
    const [listed, days, workouts] = await Promise.all([
      activityListJson(deps, principal, { start: first, end: last, limit: MAX_ON_CALENDAR + 1, offset: 0, sports: [] }).then((json) => JSON.parse(json.toString()) as ListedActivity[]),
      loadDaysOrProblem(deps, ctx, subject.userId, { sports: [], start: first, end: last }, problems),
      showsWorkouts ? findWorkouts(store, subject.userId, { start: first, end: last, limit: MAX_ON_CALENDAR, offset: 0 }) : Promise.resolve([]),
    ]);
    if (listed.length > MAX_ON_CALENDAR) problems.push(`These weeks hold more than ${MAX_ON_CALENDAR} activities; the latest ${MAX_ON_CALENDAR} are shown.`);
    const loads = await activityLoads(ctx, subject.userId, listed.slice(0, MAX_ON_CALENDAR).map((activity) => activity.id));
    const activities: CalendarActivity[] = listed.slice(0, MAX_ON_CALENDAR).reverse().map((activity) => ({
      id: activity.id, sport: activity.sport, startLocal: activity.start_local, seconds: secondsOf(activity.duration),
      metres: activity.summary?.distance?.sum ?? null, load: loads.get(activity.id) ?? null,
    }));
    const names = await applicationNames(store, workouts);
    const planned = workouts.map((record) => presentWorkout(record, record.application_id ? names.get(record.application_id) ?? null : null));
    const byDate = new Map(days.map((day) => [day.date, day]));
    const weeks: CalendarWeek[] = [];
    for (let monday = first; monday <= anchor || monday <= addDays(anchor, 7 * WEEKS_AFTER); monday = addDays(monday, 7)) {
      // Fitness and form at the week's end, or today in the current week; a week still to come shows none.
      const endDate = addDays(monday, 6) <= today ? addDays(monday, 6) : today;
      const sunday = monday <= today ? byDate.get(endDate) : undefined;
      weeks.push({
        monday,
        days: Array.from({ length: 7 }, (_, index) => {
          const date = addDays(monday, index);
          return {
            date,
            activities: activities.filter((activity) => activity.startLocal.slice(0, 10) === date),
            workouts: planned.filter((workout) => workout.start_local.slice(0, 10) === date).map((workout) => ({ title: titleOf(workout.swf), sport: workout.sport, startLocal: workout.start_local, from: workout.application_name })),
          };
        }),
        end: sunday ? { date: sunday.date, fitness: sunday.fitness, form: sunday.form } : null,
      });
    }
    const notShared = subject.team !== null && !showsWorkouts ? [`${subject.name} has not shared scheduled workouts with the team.`] : [];
    sendPage(ctx, 200, calendarPage({ subject, anchor, today, weeks, notShared, problems }));
  }

  /** Each activity's load as `GET /api/v1/ext/activities/{id}/numbers` answers it, a few at a time. */
  async function activityLoads(ctx: Context, userId: string, ids: string[]): Promise<Map<string, number | null>> {
    const out = new Map<string, number | null>();
    const options = engineCallOptions(ctx);
    for (let from = 0; from < ids.length; from += NUMBERS_AT_ONCE) {
      const numbers = await Promise.all(ids.slice(from, from + NUMBERS_AT_ONCE).map((id) => deps.engine.activityNumbers({ user_id: userId, activity_id: id, zone_system: '' }, options)));
      for (const entry of numbers) out.set(entry.activity_id, entry.load);
    }
    return out;
  }

  /** A member's activity as their page shows it, read through their grant; theirs only (another's id is the 404 page). */
  async function showActivity(ctx: Context, { subject, principal }: Reader): Promise<void> {
    const id = String(ctx.params.activity_id ?? '');
    if (id.length > 64) throw new NotFoundError('Activity not found');
    const record = await ownActivity(deps, id, subject.userId);
    sendPage(ctx, 200, activityPage({ ...(await activityView(deps, ctx, record, principal, `${subject.base}/activities/${encodeURIComponent(record.id)}`)), owner: { name: subject.name ?? '', base: subject.base } }));
  }

  async function showSeason(ctx: Context, { subject }: Reader): Promise<void> {
    sendPage(ctx, 200, seasonPage({ ...(await seasonView(deps, ctx, subject.userId)), subject }));
  }

  table.page({ method: 'get', path: '/training/load', name: 'trainingLoadPage' }, ownPage(showLoad));
  table.page({ method: 'get', path: '/training/calendar', name: 'trainingCalendar' }, ownPage(showCalendar));
  table.page({ method: 'get', path: '/teams/:team_id/members/:user_id/load', name: 'memberLoadPage' }, memberPage(showLoad));
  table.page({ method: 'get', path: '/teams/:team_id/members/:user_id/calendar', name: 'memberCalendar' }, memberPage(showCalendar));
  table.page({ method: 'get', path: '/teams/:team_id/members/:user_id/season', name: 'memberSeason' }, memberPage(showSeason));
  table.page({ method: 'get', path: '/teams/:team_id/members/:user_id/activities/:activity_id', name: 'memberActivity' }, memberPage(showActivity));

  table.page({ method: 'get', path: '/teams/:team_id/athletes', name: 'teamAthletes' }, signedInHandler(deps, async (ctx, { user }) => {
    const membership = await teamOfMember(store, String(ctx.params.team_id ?? '').slice(0, 65), user.id);
    if (!membership) return sendPage(ctx, 404, notFoundPage());
    const athletes = (await teamAuthorizers(store, membership.team.id))
      .map(({ user: athlete, scopes }) => ({ id: athlete.id, name: displayName(athlete, { revealEmail: false }), shares: scopes.includes('activities:read') }));
    sendPage(ctx, 200, teamAthletesPage({ viewerId: user.id, team: { id: membership.team.id, name: membership.team.name }, athletes }));
  }));
}

/** `text` as a date the pages show (FIRST_DATE to ten years ahead), or null. */
function pageDate(text: string): string | null {
  const date = parseDate(text);
  return date !== null && date >= FIRST_DATE && date <= lastDate() ? date : null;
}

function lastDate(): string {
  return addDays(todayLocal(), Math.round(365.25 * YEARS_AHEAD));
}

/** The load rows, or none with the engine's reason as a problem when it refuses the span (a 400: more days than a table holds). */
async function loadDaysOrProblem(deps: GatewayDeps, ctx: Context, userId: string, query: LoadQuery, problems: string[]): Promise<LoadDay[]> {
  try {
    return await trainingLoadDays(deps, userId, query, engineCallOptions(ctx));
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 400) throw error;
    problems.push(`Load, fitness and fatigue are not available for these dates: ${error.message}.`);
    return [];
  }
}

/** The SWF's title, when it is a string. */
function titleOf(swf: unknown): string | null {
  const title = (swf as { title?: unknown } | null)?.title;
  return typeof title === 'string' && title.trim() ? title.trim().slice(0, 200) : null;
}
