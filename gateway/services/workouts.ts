/**
 * Scheduled workouts, the gateway's part: store the workout with one `pending` delivery per connected
 * integration that accepts workouts (connections with status `connected`, domain/providers.ts
 * WORKOUT_PROVIDERS) and its delivery job in one batch (nothing lost on a crash; the engine's job runner
 * sends it, engine/jobs/workout-jobs.ts); list and read them with the name of the application that
 * scheduled each; delete one and queue its removal at the providers that document deletion.
 * Kept honest by test/gateway/workouts.test.ts.
 */
import type { Filter, JsonObject, Store, WorkoutRecord } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { workoutDeliveryJob, workoutRemovalJob } from '../../storage/workout-jobs.js';
import { localDate } from '../../domain/time.js';
import { PROVIDERS, PROVIDER_NAMES, WORKOUT_PROVIDERS, type Provider } from '../../domain/providers.js';
import { REMOVABLE_WORKOUT_PROVIDERS, scheduleWarnings } from '../../domain/workouts/schedule-warnings.js';
import type { Principal } from '../auth/access-tokens.js';
import { NotFoundError } from '../errors.js';
import type { ScheduleInput } from '../schemas/workouts.js';

/** The user's connected integrations that accept workouts, in PROVIDERS order. */
export async function workoutProviders(store: Store, userId: string): Promise<Provider[]> {
  const connections = await store.connections.find({ user_id: userId, status: 'connected' });
  const connected = new Set(connections.map((connection) => connection.provider));
  return PROVIDERS.filter((provider) => connected.has(provider) && WORKOUT_PROVIDERS.has(provider));
}

export async function scheduleWorkout(store: Store, principal: Principal, input: ScheduleInput, now = Date.now()): Promise<WorkoutRecord> {
  const providers = await workoutProviders(store, principal.userId);
  const record: WorkoutRecord = {
    id: newId(),
    user_id: principal.userId,
    sport: input.swf.sport,
    start: input.start.ms,
    offset: input.start.offset,
    local_date: localDate(input.start.ms, input.start.offset),
    swf: input.swf as unknown as JsonObject,
    parameters: input.parameters as JsonObject | null,
    application_id: principal.applicationId,
    deliveries: providers.map((integration) => ({ integration, status: 'pending', updated_at: now })),
    warnings: scheduleWarnings(providers, input.start.ms, input.start.offset, now),
    created_at: now,
  };
  await store.batch([
    { collection: 'workouts', insert: record },
    ...(providers.length > 0 ? [{ collection: 'jobs' as const, insert: workoutDeliveryJob(record.user_id, record.id, now) }] : []),
  ]);
  return record;
}

export interface WorkoutQuery {
  applicationId?: string;
  start?: string;
  end?: string;
  limit: number;
  offset: number;
}

/** The user's workouts by start, soonest first. */
export async function findWorkouts(store: Store, userId: string, query: WorkoutQuery): Promise<WorkoutRecord[]> {
  const filter: Filter<WorkoutRecord> = { user_id: userId };
  if (query.applicationId) filter.application_id = query.applicationId;
  if (query.start || query.end) filter.local_date = { ...(query.start && { $gte: query.start }), ...(query.end && { $lte: query.end }) };
  return store.workouts.find(filter, { sort: { start: 1, id: 1 }, limit: query.limit, offset: query.offset });
}

export async function ownWorkout(store: Store, id: string, userId: string): Promise<WorkoutRecord> {
  const workout = await store.workouts.findOne({ id, user_id: userId });
  if (!workout || workout.user_id !== userId) throw new NotFoundError('Workout not found');
  return workout;
}

/**
 * The workout `id` when `principal` may delete it; the same 404 as an unknown id otherwise, so nothing
 * confirms that another application's workout exists. Every app reads all of the user's workouts
 * (interface §4: "The list accepts an application_id query filter; workout responses include
 * application_id and application_name"), but an app token deletes only what its application scheduled
 * (issue 26 item 8). A personal token and an application the operator marked first-party (the command
 * line's own, an imported official client: gaps.md "act for the person") act for the person and delete
 * any of the person's workouts.
 */
export async function deletableWorkout(store: Store, id: string, principal: Principal): Promise<WorkoutRecord> {
  const workout = await ownWorkout(store, id, principal.userId);
  if (principal.applicationId === null || workout.application_id === principal.applicationId) return workout;
  const application = await store.applications.get(principal.applicationId);
  if (application?.first_party === true) return workout;
  throw new NotFoundError('Workout not found');
}

/** Application names by id, for `application_name` (null for a personal token's workouts or a deleted app). */
export async function applicationNames(store: Store, records: readonly WorkoutRecord[]): Promise<Map<string, string>> {
  const ids = [...new Set(records.map((record) => record.application_id).filter((id): id is string => id !== null))];
  const applications = ids.length === 0 ? [] : await store.applications.find({ id: { $in: ids } });
  return new Map(applications.map((application) => [application.id, application.name]));
}

/**
 * Deletes the workout and queues its removal wherever it was delivered and the provider documents
 * deletion, in one batch. Answers what was not removed at a provider, as warnings.
 */
export async function deleteWorkout(store: Store, workout: WorkoutRecord): Promise<string[]> {
  const created = workout.deliveries.filter((delivery) => delivery.remote && Object.keys(delivery.remote).length > 0);
  const targets = created.filter((delivery) => REMOVABLE_WORKOUT_PROVIDERS.has(delivery.integration as Provider))
    .map((delivery) => ({ integration: delivery.integration, remote: delivery.remote! }));
  await store.batch([
    { collection: 'workouts', delete: { id: workout.id, user_id: workout.user_id } },
    ...(targets.length > 0 ? [{ collection: 'jobs' as const, insert: workoutRemovalJob(workout.user_id, workout.id, targets) }] : []),
  ]);
  return created.filter((delivery) => !REMOVABLE_WORKOUT_PROVIDERS.has(delivery.integration as Provider)).map((delivery) => {
    const name = PROVIDER_NAMES[delivery.integration as Provider] ?? delivery.integration;
    return `${delivery.integration}: ${name} documents no way to delete a planned workout; it stays there until removed in ${name}`;
  });
}
