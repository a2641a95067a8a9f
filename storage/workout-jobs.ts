/**
 * Job records of scheduled workouts (engine/jobs/workout-jobs.ts runs them): one delivery job per
 * workout (`workout_delivery:<id>`), written in the same batch as the workout so nothing is lost on a
 * crash, and one removal job per deleted workout (`workout_removal:<id>`) carrying what was created at
 * each provider (the workout record is gone by then).
 */
import type { JobRecord, JsonObject } from './records.js';
import { newJob } from './jobs.js';

export const WORKOUT_DELIVERY_JOB = 'workout_delivery';
export const WORKOUT_REMOVAL_JOB = 'workout_removal';

export function workoutDeliveryJob(userId: string, workoutId: string, now = Date.now()): JobRecord {
  return newJob(WORKOUT_DELIVERY_JOB, userId, `${WORKOUT_DELIVERY_JOB}:${workoutId}`, { workout_id: workoutId }, now);
}

/** `targets`: each integration and the remote ids of what was created there. */
export function workoutRemovalJob(userId: string, workoutId: string, targets: { integration: string; remote: JsonObject }[], now = Date.now()): JobRecord {
  return newJob(WORKOUT_REMOVAL_JOB, userId, `${WORKOUT_REMOVAL_JOB}:${workoutId}`, { workout_id: workoutId, targets }, now);
}
