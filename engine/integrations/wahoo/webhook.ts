/**
 * Wahoo's webhook (providers.md §3 "Webhooks", [WAH-doc]): `{"event_type":"workout_summary","webhook_token",
 * "user":{"id"},"workout_summary":{…,"file":{"url"},"workout":{…}}}`. No signature: a body without our
 * portal-set `webhook_token` is dropped (answer 200 or 401 — either way nothing is processed). Wahoo
 * retries non-200 after 30 min, 4 h, 24 h, 72 h and re-sends when a file changes, so the same delivery
 * can come twice: `deliveryKey` names the workout summary and its version, for the framework to process
 * each version once (and the source's content hash catches identical files anyway).
 * Kept honest by test/engine/integrations/wahoo-webhook.test.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import { idOf, summaryOf, workoutOf, type WahooWorkout, type WahooWorkoutSummary } from './records.js';

export type WahooWebhook =
  | { kind: 'workout_summary'; wahooUserId: string; summary: WahooWorkoutSummary; workout: WahooWorkout | null; deliveryKey: string }
  | { kind: 'ignored'; reason: string };

export function parseWahooWebhook(body: unknown, webhookToken: string): WahooWebhook {
  if (typeof body !== 'object' || body === null) return { kind: 'ignored', reason: 'not a JSON object' };
  const record = body as Record<string, unknown>;
  if (!sameSecret(record.webhook_token, webhookToken)) return { kind: 'ignored', reason: 'webhook_token does not match' };
  if (record.event_type !== 'workout_summary') return { kind: 'ignored', reason: `event_type ${String(record.event_type)} is not handled` };
  const wahooUserId = idOf((record.user as Record<string, unknown> | undefined)?.id);
  const raw = record.workout_summary as Record<string, unknown> | undefined;
  const summary = summaryOf(raw);
  if (wahooUserId === null || summary === null) return { kind: 'ignored', reason: 'no user id or workout_summary id' };
  return { kind: 'workout_summary', wahooUserId, summary, workout: workoutOf(raw?.workout), deliveryKey: `${summary.id}@${summary.updatedAt ?? summary.fileUrl ?? ''}` };
}

function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || expected === '') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
