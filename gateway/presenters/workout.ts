/**
 * Workout records → the scheduled-workout response of gaps.md, every key present. Explicit field list:
 * `user_id`, `offset`, `local_date`, `created_at` and each delivery's `remote` ids stay inside.
 */
import type { JsonObject, WorkoutRecord } from '../../storage/store.js';
import { formatLocal, formatUtc } from '../../domain/time.js';
import type { ScheduledWorkout } from '../schemas/workouts.js';

export function presentWorkout(record: WorkoutRecord, applicationName: string | null): ScheduledWorkout {
  return {
    id: record.id,
    sport: record.sport,
    start: formatUtc(record.start),
    start_local: formatLocal(record.start, record.offset),
    swf: record.swf as ScheduledWorkout['swf'],
    parameters: record.parameters as JsonObject | null,
    application_id: record.application_id,
    application_name: applicationName,
    deliveries: record.deliveries.map((delivery) => ({
      integration: delivery.integration as ScheduledWorkout['deliveries'][number]['integration'],
      status: delivery.status as ScheduledWorkout['deliveries'][number]['status'],
      ...(delivery.reason !== undefined && { reason: delivery.reason }),
      ...(delivery.detail !== undefined && { detail: delivery.detail }),
      ...(delivery.updated_at !== undefined && { updated_at: formatUtc(delivery.updated_at) }),
    })),
    warnings: [...record.warnings],
  };
}
