/**
 * Garmin's push and ping notifications (providers.md §1 "Notifications"): an HTTPS POST whose JSON is
 * keyed by summary type, each entry naming its Garmin `userId` — one body can carry several users. There
 * is no signature: the `garmin-client-id` header must be our client id, and the URL is kept secret.
 * The receiving route answers 200 at once and processes later (Garmin re-sends after a non-200 or after
 * 30 s). This file turns a body into a flat list of notices; it writes nothing.
 *
 * A notice is a push (the record inline), a ping (a `callbackURL` to pull, within 24 h), an activity file
 * ping (`activityFiles`: one download, then 410), a deregistration or a permissions change. The same
 * `summaryId` twice in one body is one notice (the later, or for Health records the longer, wins); across
 * bodies the framework upserts by summaryId. Kept honest by test/engine/integrations/garmin-notifications.test.ts.
 */
import { timingSafeEqual } from 'node:crypto';

export type GarminRecord = Record<string, unknown>;

export const ACTIVITY_TYPES = ['activities', 'manuallyUpdatedActivities', 'moveIQActivities', 'activityDetails'] as const;
export const HEALTH_TYPES = ['dailies', 'sleeps', 'bodyComps', 'hrv', 'epochs', 'stressDetails', 'userMetrics', 'pulseox'] as const;

export type GarminNotice =
  | { kind: 'push'; type: string; userId: string; summaryId: string; record: GarminRecord }
  | { kind: 'ping'; type: string; userId: string; callbackUrl: string }
  | { kind: 'activity_file'; userId: string; summaryId: string; fileType: string; callbackUrl: string; activityId: string | null; startTimeInSeconds: number | null }
  | { kind: 'deregistration'; userId: string }
  | { kind: 'permissions'; userId: string; permissions: string[]; changeTimeInSeconds: number | null };

export interface ParsedNotifications {
  notices: GarminNotice[];
  /** Entries we could not use (no userId, unknown shape), for the log; never a reason to answer non-200. */
  skipped: number;
}

/** True when the `garmin-client-id` header names our app (compared in constant time). */
export function isFromGarmin(header: string | string[] | undefined, clientId: string): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string') return false;
  const given = Buffer.from(value);
  const expected = Buffer.from(clientId);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function parseGarminNotifications(body: unknown): ParsedNotifications {
  const notices: GarminNotice[] = [];
  let skipped = 0;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { notices, skipped: 1 };
  for (const [type, entries] of Object.entries(body)) {
    if (!Array.isArray(entries)) {
      skipped += 1;
      continue;
    }
    for (const entry of entries) {
      const notice = noticeOf(type, entry);
      if (notice) notices.push(notice);
      else skipped += 1;
    }
  }
  return { notices: oneNoticePerSummary(notices), skipped };
}

function noticeOf(type: string, entry: unknown): GarminNotice | null {
  if (typeof entry !== 'object' || entry === null) return null;
  const record = entry as GarminRecord;
  const userId = idOf(record.userId);
  if (userId === null) return null;
  if (type === 'deregistrations') return { kind: 'deregistration', userId };
  if (type === 'userPermissionsChange') {
    const permissions = Array.isArray(record.permissions) ? record.permissions.filter((name): name is string => typeof name === 'string') : [];
    return { kind: 'permissions', userId, permissions, changeTimeInSeconds: numberOf(record.changeTimeInSeconds) };
  }
  const callbackUrl = typeof record.callbackURL === 'string' ? record.callbackURL : null;
  const summaryId = idOf(record.summaryId);
  if (type === 'activityFiles') {
    if (callbackUrl === null || summaryId === null) return null;
    return {
      kind: 'activity_file', userId, summaryId, callbackUrl,
      fileType: typeof record.fileType === 'string' ? record.fileType : 'FIT',
      activityId: idOf(record.activityId),
      startTimeInSeconds: numberOf(record.startTimeInSeconds),
    };
  }
  if (callbackUrl !== null) return { kind: 'ping', type, userId, callbackUrl };
  if (summaryId === null) return null;
  return { kind: 'push', type, userId, summaryId, record };
}

/** Same type and summaryId in one body: keep one — the longer record (Health records grow), else the later. */
function oneNoticePerSummary(notices: GarminNotice[]): GarminNotice[] {
  const kept = new Map<string, number>();
  const out: (GarminNotice | null)[] = [];
  for (const notice of notices) {
    if (notice.kind !== 'push' && notice.kind !== 'activity_file') {
      out.push(notice);
      continue;
    }
    const key = `${notice.kind}:${notice.kind === 'push' ? notice.type : 'file'}:${notice.userId}:${notice.summaryId}`;
    const earlier = kept.get(key);
    if (earlier === undefined) {
      kept.set(key, out.length);
      out.push(notice);
      continue;
    }
    const previous = out[earlier]!;
    if (previous.kind === 'push' && notice.kind === 'push' && durationOf(notice.record) < durationOf(previous.record)) continue;
    out[earlier] = null;
    kept.set(key, out.length);
    out.push(notice);
  }
  return out.filter((notice): notice is GarminNotice => notice !== null);
}

export const durationOf = (record: GarminRecord): number => numberOf(record.durationInSeconds) ?? 0;

function idOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function numberOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
