/**
 * One activity's numbers (ANALYTICS.md §10) as `GET /api/v1/ext/activities/{activity_id}/numbers` answers
 * them, for the route and the activity page alike: the engine's GetActivityNumbers (which answers NOT_FOUND,
 * a 404, for another user's activity) presented by presenters/activity-numbers.ts.
 */
import type { ZONE_SYSTEM_NAMES } from '../../engine/contract.js';
import type { CallOptions } from '../engine-client.js';
import type { GatewayDeps } from '../deps.js';
import { presentActivityNumbers, type ActivityNumbersBody } from '../presenters/activity-numbers.js';

/** The numbers and the algorithm that computed them (the `Threshold-Algorithm` header); zoneSystem null: each quantity's default. */
export async function activityNumbers(
  deps: Pick<GatewayDeps, 'engine'>, userId: string, activityId: string, zoneSystem: (typeof ZONE_SYSTEM_NAMES)[number] | null, options: CallOptions,
): Promise<{ algorithm: string; body: ActivityNumbersBody }> {
  const numbers = await deps.engine.activityNumbers({ user_id: userId, activity_id: activityId, zone_system: zoneSystem ?? '' }, options);
  return { algorithm: numbers.algorithm, body: presentActivityNumbers(numbers) };
}
