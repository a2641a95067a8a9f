/**
 * What the activity page shows of one activity, read through the services the API routes call, for the
 * athlete's own page (routes/athlete-pages.ts) and a coach's view of a member's activity
 * (routes/training-hub-pages.ts): the details as `GET /activities/{id}` presents them to `principal` (so a
 * member's grant decides what a coach sees), the series over time with the GPS fixes of the route, the
 * mean-max curve and the numbers of `GET /api/v1/ext/activities/{id}/numbers`. No notes and no corrections
 * form: the caller adds those for the athlete only.
 */
import type { Context } from 'koa';
import type { ActivityRecord } from '../../../storage/store.js';
import { ZONE_SYSTEM_NAMES } from '../../../engine/contract.js';
import type { Principal } from '../../auth/access-tokens.js';
import { engineCallOptions } from '../../client-gone.js';
import type { GatewayDeps } from '../../deps.js';
import { HttpError, NotFoundError } from '../../errors.js';
import { activityDetails } from '../../services/activities.js';
import { activityNumbers } from '../../services/activity-numbers.js';
import { activityMeanMax, activitySeries } from '../../services/analyses.js';
import type { SeriesPanel } from '../charts/time-series.js';
import { paceCap, usesPace } from '../charts/pace.js';
import type { ActivityDetailsView, ActivityView } from './activity-page.js';
import { kmh } from './frame.js';
import { queryValue } from './page-handlers.js';
import { numberColumn, points, readTable, tableOf } from './table-columns.js';

/** Series panels, in the order drawn: metric, label, unit, decimals, display conversion (speed is pace for a foot sport). */
const PANELS: readonly { metric: string; label: string; unit: string; decimals: number; convert?: (v: number) => number; profile?: boolean; fromZero?: boolean }[] = [
  { metric: 'power', label: 'Power', unit: 'W', decimals: 0, fromZero: true },
  { metric: 'heart_rate', label: 'Heart rate', unit: 'bpm', decimals: 0 },
  { metric: 'speed', label: 'Speed', unit: 'km/h', decimals: 1, convert: kmh, fromZero: true },
  { metric: 'cadence', label: 'Cadence', unit: 'rpm', decimals: 0, fromZero: true },
  { metric: 'altitude', label: 'Altitude', unit: 'm', decimals: 0, profile: true },
];

/**
 * The activity page's view of `record` as `principal` may see it (`?zone_system=` as the numbers endpoint
 * reads it); `pagePath` is the page's own path, which the zone chooser asks again.
 */
export async function activityView(deps: GatewayDeps, ctx: Context, record: ActivityRecord, principal: Principal, pagePath: string): Promise<ActivityView> {
  const userId = record.user_id;
  const options = engineCallOptions(ctx);
  const curveMetric = record.metrics.includes('power') ? 'power' : record.metrics.includes('speed') ? 'speed' : null;
  // An unknown zone system is left out (each quantity's default), as the list leaves out a bad filter.
  const zoneSystem = ZONE_SYSTEM_NAMES.find((system) => system === queryValue(ctx, 'zone_system')) ?? null;
  const [details, seriesTable, curve, numbers] = await Promise.all([
    activityDetails(deps, record, principal),
    activitySeries(deps, userId, record.id, { metrics: [...PANELS.map((panel) => panel.metric), 'latitude', 'longitude'] }, 'ARROW_IPC', options).then(readTable),
    curveMetric ? activityMeanMax(deps, userId, record.id, { metric: curveMetric, durations: 'all' }, 'ARROW_IPC', options).then(tableOf) : null,
    // Numbers the engine cannot give (an activity without a stored series) leave the block out, not the page.
    activityNumbers(deps, userId, record.id, zoneSystem, options).catch((error: unknown) => {
      if (error instanceof HttpError && error.status < 500 && !(error instanceof NotFoundError)) return null;
      throw error;
    }),
  ]);
  const latitude = numberColumn(seriesTable, 'latitude');
  const longitude = numberColumn(seriesTable, 'longitude');
  const timestamps = numberColumn(seriesTable, 'timestamp');
  let series = null;
  if (timestamps && timestamps.length > 1) {
    const t0 = timestamps[0]!;
    const elapsed = timestamps.map((t) => (t - t0) / 1000);
    const panels: SeriesPanel[] = [];
    for (const panel of PANELS) {
      const column = numberColumn(seriesTable, panel.metric);
      if (!column || column.every(Number.isNaN)) continue;
      if (panel.metric === 'speed' && usesPace(record.sport)) {
        panels.push({ metric: 'speed', label: 'Pace', unit: '/km', values: column, decimals: 0, pace: { cap: paceCap(record.sport) } });
        continue;
      }
      const values = panel.convert ? column.map(panel.convert) : column;
      panels.push({ metric: panel.metric, label: panel.label, unit: panel.unit, values, decimals: panel.decimals, profile: panel.profile ?? false, fromZero: panel.fromZero ?? false });
    }
    series = { elapsed, duration: elapsed[elapsed.length - 1]!, panels };
  }
  return {
    activity: details as unknown as ActivityDetailsView,
    series,
    meanMax: curve && curveMetric ? { metric: curveMetric, points: points(curve, curveMetric) } : null,
    numbers: numbers && { numbers: numbers.body, zoneSystem, route: latitude && longitude ? { latitude, longitude } : null, pagePath },
  };
}
