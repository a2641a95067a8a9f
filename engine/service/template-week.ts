/**
 * The GetTemplateWeek RPC (engine.proto "Models"; ANALYTICS.md §9): one store query for the user's
 * activities whose own local date lies in the template's 12-week window, reading only the three fields the
 * model needs, then engine/models/template-week.ts. It runs on the main thread, as LactateThresholds does: a
 * fold over at most a few hundred small rows costs less than a pool round trip.
 *
 * Not here: which weeks count or how a day is summarised (the model), HTTP shaping (the gateway).
 * test/gateway/template-week.test.ts runs it on the real stack.
 */
import type { Store } from '../../storage/store.js';
import type { GetTemplateWeekResponse } from '../contract.js';
import { templateWeek, templateWindow } from '../models/template-week.js';
import { requireDate, requireField } from './request-fields.js';

/** The algorithm version every answer names (the `Threshold-Algorithm` header); bump it when results change. */
export const TEMPLATE_WEEK_ALGORITHM = 'template-week/1';

const SUBSYSTEM = 'template week';

interface WireRequest {
  user_id?: string;
  date?: string;
}

export function getTemplateWeek(deps: { store: Store }) {
  return async function getTemplateWeekCall(request: WireRequest): Promise<GetTemplateWeekResponse> {
    const userId = requireField(request.user_id, 'user_id', SUBSYSTEM);
    const date = requireDate(request.date, 'date', SUBSYSTEM);
    const { start, end } = templateWindow(date);
    const activities = await deps.store.activities.findFields(
      { user_id: userId, local_date: { $gte: start, $lte: end } }, ['local_date', 'duration_s', 'sport'],
    );
    return { ...templateWeek(activities, date), algorithm: TEMPLATE_WEEK_ALGORITHM };
  };
}
