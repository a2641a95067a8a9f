/**
 * Test records (gaps.md "Tests"): lookups, writes, and what a test's details gather — its traces
 * (`?traces=auto|linked`) and the activities overlapping it in time. Kept honest by
 * test/gateway/tests-records.test.ts.
 */
import type { ActivityRecord, JsonObject, Store, TestRecord, TraceRecord } from '../../storage/store.js';
import { localDate } from '../../domain/time.js';
import { newId } from '../../storage/ids.js';
import type { Principal } from '../auth/access-tokens.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { completeResults } from '../presenters/test-record.js';
import type { TestInput } from '../schemas/records.js';
import { ACTIVITY_LOOKBACK_MS, MAX_TEST_SPAN_MS } from './trace-links.js';

/** "end (optional; defaults to start plus 3 hours)". */
export const DEFAULT_TEST_SPAN_MS = 3 * 3_600_000;

/** The caller's test; another user's is a 404, never a 403 that leaks its existence. */
export async function ownTest(store: Store, testId: string, userId: string): Promise<TestRecord> {
  const record = await store.tests.findOne({ id: testId, user_id: userId });
  if (!record || record.user_id !== userId) throw new NotFoundError('Test not found');
  return record;
}

/**
 * The record a write stores: every field from `input` (PUT replaces every field; absent → null, [] or the
 * default end), `created_by` ("the application that wrote it, or 'user'") kept from `existing`.
 */
export function testFromInput(userId: string, input: TestInput, principal: Principal, existing: TestRecord | null): TestRecord {
  const start = input.start;
  const end = input.end ?? { ms: start.ms + DEFAULT_TEST_SPAN_MS, offset: start.offset };
  if (end.ms <= start.ms) throw ValidationError.single(['body', 'end'], 'end must be after start');
  if (end.ms - start.ms > MAX_TEST_SPAN_MS) throw ValidationError.single(['body', 'end'], 'a test lasts at most 7 days');
  const now = Date.now();
  return {
    id: existing?.id ?? newId(),
    user_id: userId,
    sport: input.sport,
    start: start.ms,
    start_offset: start.offset,
    end: end.ms,
    end_offset: end.offset,
    local_date: localDate(start.ms, start.offset),
    title: input.title ?? null,
    results: completeResults((input.results ?? null) as JsonObject | null) as unknown as JsonObject,
    tags: input.tags ?? [],
    created_by: existing ? existing.created_by : (principal.applicationId ?? 'user'),
    app_metadata: existing?.app_metadata ?? {},
    created_at: existing?.created_at ?? now,
    updated_at: existing ? Math.max(now, existing.updated_at + 1) : now,
  };
}

/**
 * gaps.md: "`traces=auto` = traces in the time range plus traces linked to this test minus traces linked to
 * another; `traces=linked` = only linked ones". Oldest first.
 */
export async function testTraces(store: Store, test: TestRecord, mode: 'auto' | 'linked'): Promise<TraceRecord[]> {
  const sort = { sort: { timestamp: 1 } } as const;
  if (mode === 'linked') return store.traces.find({ user_id: test.user_id, test_id: test.id }, sort);
  const candidates = await store.traces.find(
    { user_id: test.user_id, $or: [{ user_id: test.user_id, timestamp: { $gte: test.start, $lte: test.end } }, { user_id: test.user_id, test_id: test.id }] },
    sort,
  );
  return candidates.filter((trace) => trace.test_id === null || trace.test_id === test.id);
}

/** "activities overlapping the test in time", oldest first. */
export async function overlappingActivities(store: Store, test: TestRecord): Promise<ActivityRecord[]> {
  const candidates = await store.activities.find({ user_id: test.user_id, start: { $gte: test.start - ACTIVITY_LOOKBACK_MS, $lte: test.end } }, { sort: { start: 1 } });
  return candidates.filter((activity) => activity.end >= test.start);
}
