/**
 * The FIT corpus imported as a user would (issue 27 item 1): every FIT file of test/fixtures/fit (and the GPL
 * folder from ../shared when present, bench/support.ts corpusFitFiles) uploaded through
 * `POST /api/v1/activities/upload` of a running stack, a few at a time, and each source polled until it
 * settles (the decode failures the corpus pins are counted, not thrown). What a bench then asks for is the
 * user's activities as the service stored them: laps, gaps, smart recording, multisport files and all.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ActivityRecord } from '../storage/store.js';
import type { TestStack } from '../test/support/stack.js';
import { settled, upload } from '../test/support/uploads.js';
import { corpusFitFiles } from './support.js';

const IN_FLIGHT = 4;
const SETTLE_MS = 300_000;

export type CorpusActivity = Pick<ActivityRecord, 'id' | 'sport' | 'start' | 'end' | 'metrics'>;

export interface ImportedCorpus {
  userId: string;
  token: string;
  files: number;
  /** Files whose source failed (the corpus's pinned decode failures). */
  failed: number;
  /** Every stored activity, oldest first. */
  activities: CorpusActivity[];
  /** Hours of activity stored. */
  hours: number;
}

/**
 * Uploads the corpus (or `files`, paths of corpus files) for a new user with `scopes` (plus activities:write)
 * and waits for every source to settle.
 */
export async function importCorpus(stack: TestStack, scopes: string[], files: string[] = corpusFitFiles()): Promise<ImportedCorpus> {
  const { userId, token } = await stack.userWithToken([...new Set([...scopes, 'activities:write'])]);
  let next = 0;
  let failed = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < files.length) {
      const file = files[next++]!;
      const response = await upload(stack, token, [{ name: path.basename(file), bytes: readFileSync(file) }]);
      if (response.status !== 202) throw new Error(`bench corpus: upload of ${file} answered ${response.status}: ${await response.text()}`);
      const { sources } = (await response.json()) as { sources: { id: string }[] };
      if ((await settled(stack, token, sources[0]!.id, SETTLE_MS)).status !== 'processed') failed++;
    }
  }));
  const activities = (await stack.store.activities.findFields({ user_id: userId }, ['id', 'sport', 'start', 'end', 'metrics']))
    .sort((a, b) => a.start - b.start);
  const hours = activities.reduce((total, activity) => total + (activity.end - activity.start) / 3_600_000, 0);
  return { userId, token, files: files.length, failed, activities, hours };
}
