/**
 * What the athlete's pages and the coach's views of an athlete share: the query's values, the handler for a
 * signed-in person, and the season page's view of one athlete's season (read through the same services as
 * the API's longitudinal and model endpoints).
 */
import type { Context, Middleware } from 'koa';
import type { SessionRecord, UserRecord } from '../../../storage/store.js';
import { canonicalSport, rootSport } from '../../../domain/sport.js';
import { MAX_AFTER_STATES } from '../../../engine/contract.js';
import { parseDate, todayLocal, yearBefore } from '../../../domain/time.js';
import { engineCallOptions } from '../../client-gone.js';
import type { GatewayDeps } from '../../deps.js';
import { HttpError, NotFoundError } from '../../errors.js';
import { sendPage } from '../layout.js';
import { signInFirst } from '../forms.js';
import { messagePage } from '../messages.js';
import type { Point, SeasonForm, SeasonMetric, SeasonView } from './season-page.js';
import { athleteNotFound } from './frame.js';
import { afterStates, points, tableOf } from './table-columns.js';
import { intensityDurationCurve, longitudinalMeanMax, metabolicMap } from '../../services/analyses.js';
import { userSports } from '../../services/profile-listings.js';

const MODEL_SPORTS: Record<SeasonMetric, readonly string[]> = { power: ['cycling', 'running'], speed: ['running'] };

export function queryValues(ctx: Context, name: string): string[] {
  const value = ctx.query[name];
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((item) => item.length <= 200);
}
export function queryValue(ctx: Context, name: string): string {
  return queryValues(ctx, name)[0]?.trim() ?? '';
}
export type SignedInHandler = (ctx: Context, found: { user: UserRecord; session: SessionRecord }) => Promise<void>;
/** A page's handler for a signed-in person; 303 /signin otherwise; an unknown record is the 404 page; an engine failure the 503 page. */
export function signedInHandler(deps: GatewayDeps, handler: SignedInHandler): Middleware {
  return async (ctx) => {
    const found = await deps.sessions.signedInUser(ctx);
    if (!found) return signInFirst(ctx);
    try {
      await handler(ctx, found);
    } catch (error) {
      if (error instanceof NotFoundError) return sendPage(ctx, 404, athleteNotFound());
      if (error instanceof HttpError && error.status >= 500) {
        deps.logger.error({ err: error.cause ?? error }, 'athlete page failed');
        return sendPage(ctx, 503, messagePage({
          title: 'Your data is not available right now', message: 'The analysis service did not answer. Wait a moment and reload the page.', next: { href: '/training', label: 'Back to activities' }, tone: 'error',
        }));
      }
      throw error;
    }
  };
}
/** The season page's view of `userId`'s season as the query asks (problems for what was ignored). */
export async function seasonView(deps: GatewayDeps, ctx: Context, userId: string): Promise<SeasonView> {
  const { store } = deps;
  const problems: string[] = [];
  const sports = await userSports(store, userId, true);
  const requested = queryValue(ctx, 'sport');
  let sport = requested ? canonicalSport(requested) : null;
  if (requested && sport === null) problems.push(`“${requested}” is not a sport; showing ${defaultSport(sports)} instead.`);
  sport ??= defaultSport(sports);
  const metricText = queryValue(ctx, 'metric');
  const metric: SeasonMetric = metricText === 'power' || metricText === 'speed' ? metricText : rootSport(sport) === 'running' ? 'speed' : 'power';
  const endText = queryValue(ctx, 'end');
  const end = endText && parseDate(endText) !== null ? endText : todayLocal();
  const startText = queryValue(ctx, 'start');
  let start = startText && parseDate(startText) !== null ? startText : yearBefore(end);
  if (start > end) {
    problems.push('The range started after it ended; showing the year before its end instead.');
    start = yearBefore(end);
  }
  let after = [...new Set(queryValues(ctx, 'after').map(Number).filter((value) => Number.isFinite(value) && value >= 0 && value <= 1e7))].sort((a, b) => a - b);
  if (after.length > MAX_AFTER_STATES) {
    problems.push(`At most ${MAX_AFTER_STATES} fatigue states at once; the ${MAX_AFTER_STATES} smallest are shown.`);
    after = after.slice(0, MAX_AFTER_STATES);
  }
  if (after.length > 0 && start < yearBefore(end)) {
    problems.push('Fatigue states cover at most one year, so the range was shortened to the year before its end.');
    start = yearBefore(end);
  }
  const form: SeasonForm = { sport, metric, start, end, after };
  const options = engineCallOptions(ctx);
  const query = { sports: [sport], metric, start, end, durations: 'all' as const };
  const [bestTable, afterTable] = await Promise.all([
    longitudinalMeanMax(deps, userId, { ...query, after: [] }, 'ARROW_IPC', options).then(tableOf),
    after.length > 0 ? longitudinalMeanMax(deps, userId, { ...query, after }, 'ARROW_IPC', options).then(tableOf) : null,
  ]);
  const best = points(bestTable, metric);
  const afterCurves = afterTable ? afterStates(afterTable, metric) : [];
  const root = rootSport(sport) ?? sport;
  const offered = MODEL_SPORTS[metric].includes(root);
  const notOffered = `The ${metric} model and map are offered for ${MODEL_SPORTS[metric].join(' and ')} only.`;
  const longest = best.length > 0 ? best[best.length - 1]!.duration : 0;
  const [model, map] = offered
    ? await Promise.all([
      longest > 0
        ? intensityDurationCurve(deps, userId, { quantity: metric, sport: root, date: end, durations: modelDurations(longest) }, options).then((result) => ({ curve: result.curve.map((point) => ({ duration: point.duration, value: point.intensity })) }))
        : Promise.resolve({ curve: [] as Point[] }),
      metabolicMap(deps, userId, { quantity: metric, sport: root, date: end }, options),
    ])
    : [{ reason: notOffered }, null];
  return {
    form, sports: sports.includes(sport) ? sports : [...sports, sport].sort(), problems, best, afterCurves, model,
    map: map === null
      ? { title: 'Not offered', reason: notOffered }
      : map.problem ? { title: map.problem.title, reason: map.problem.message } : { markers: map.map.markers, bodyMass: map.map.inputs.body_mass },
  };
}
/** The sport shown when none is asked for: cycling, else running, else the first the athlete has. */
function defaultSport(sports: readonly string[]): string {
  return ['cycling', 'running'].find((sport) => sports.includes(sport)) ?? sports[0] ?? 'cycling';
}
/** About 80 log-spaced durations from 1 s to `longest`, with the key durations, for the model's dashed curve. */
function modelDurations(longest: number): number[] {
  const out = new Set<number>([5, 60, 300, 1200, 3600].filter((seconds) => seconds <= longest));
  const steps = 80;
  for (let i = 0; i <= steps; i++) out.add(Math.max(1, Math.round(Math.exp((Math.log(longest) * i) / steps))));
  return [...out].sort((a, b) => a - b);
}
