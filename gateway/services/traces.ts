/**
 * Trace writes and lookups (interface §4 "Traces"). A write replaces every field: "every omitted field is
 * cleared, including test_id". A `test_id` must name one of the caller's tests ("A test_id that does not
 * exist gives not found"; another user's is the same 404). Kept honest by test/gateway/traces.test.ts.
 */
import type { Store, TraceRecord } from '../../storage/store.js';
import { localDate } from '../../domain/time.js';
import { newId } from '../../storage/ids.js';
import type { Principal } from '../auth/access-tokens.js';
import { NotFoundError } from '../errors.js';
import { presentTrace } from '../presenters/trace.js';
import { jsonWriter } from '../presenters/json-writer.js';
import { Trace } from '../schemas/records.js';
import type { TraceInput } from '../schemas/records.js';
import { traceLinks } from './trace-links.js';
import { ownTest } from './test-records.js';

/** The caller's trace; another user's is a 404, never a 403 that leaks its existence. */
export async function ownTrace(store: Store, traceId: string, userId: string): Promise<TraceRecord> {
  const record = await store.traces.findOne({ id: traceId, user_id: userId });
  if (!record || record.user_id !== userId) throw new NotFoundError('Trace not found');
  return record;
}

/** The record a write stores: every field from `input` (absent → null or []), identity and metadata from `existing`. */
export async function traceFromInput(store: Store, userId: string, input: TraceInput, existing: TraceRecord | null): Promise<TraceRecord> {
  if (input.test_id) await ownTest(store, input.test_id, userId);
  const now = Date.now();
  const { ms, offset } = input.timestamp;
  return {
    id: existing?.id ?? newId(),
    user_id: userId,
    timestamp: ms,
    offset,
    local_date: localDate(ms, offset),
    test_id: input.test_id ?? null,
    lactate: input.lactate ?? null,
    rpe: input.rpe ?? null,
    notes: input.notes ?? null,
    power: input.power ?? null,
    speed: input.speed ?? null,
    heart_rate: input.heart_rate ?? null,
    vo2: input.vo2 ?? null,
    tags: input.tags ?? [],
    sport: input.sport ?? null,
    app_metadata: existing?.app_metadata ?? {},
    created_at: existing?.created_at ?? now,
    updated_at: existing ? Math.max(now, existing.updated_at + 1) : now,
  };
}

/** Traces as the API answers them, links resolved for all of them at once. */
export async function presentTraces(store: Store, userId: string, traces: readonly TraceRecord[], principal: Principal): Promise<object[]> {
  const links = await traceLinks(store, userId, traces);
  const shared = new Map<object, object>();
  return traces.map((trace) => presentTrace(trace, links(trace), principal, shared));
}

/**
 * A list page of traces as the JSON array the route would write, in one Buffer: each trace written (the
 * activity, laps and test it shares with others written once), then copied once, not a page-long string
 * encoded again on its way to the socket (the page is 4 KB a trace linked to an activity with 10 laps).
 */
export async function traceListJson(store: Store, userId: string, traces: readonly TraceRecord[], principal: Principal): Promise<Buffer> {
  const write = jsonWriter(Trace);
  const texts = (await presentTraces(store, userId, traces, principal)).map((trace) => write(trace));
  let length = 1 + Math.max(1, texts.length);
  for (const text of texts) length += Buffer.byteLength(text);
  const page = Buffer.allocUnsafe(length);
  let at = page.write('[', 0, 'latin1');
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) at += page.write(',', at, 'latin1');
    at += page.write(texts[i]!, at);
  }
  page.write(']', at, 'latin1');
  return page;
}
