/**
 * A season of rides for the training hub's tests: CSV generated here (power and heart rate at 1 Hz, a
 * distance), one ride every other day and a second one every seventh day, over the `days` days ending on
 * `end` (default today, UTC, so the pages' defaults hold them), uploaded ten files at a time through the
 * API; then the thresholds declared through the markers endpoint and the resting heart rate as a daily.
 */
import { okJson } from './json-api.js';
import { settled, upload } from './uploads.js';
import type { TestStack } from './stack.js';

export const SEASON_THRESHOLDS = { power: 250, heartRate: 165, maxHr: 190, restingHr: 50 } as const;

function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** One ride's CSV: `seconds` samples from `start` (UTC), power around `watts`, heart rate following it. */
export function rideCsv(start: string, seconds: number, watts: number): string {
  const t0 = Date.parse(`${start}Z`);
  const lines = ['timestamp,sport,power,heart_rate,distance'];
  for (let s = 0; s < seconds; s++) {
    const power = Math.round(watts + 40 * Math.sin(s / 60));
    lines.push(`${new Date(t0 + s * 1000).toISOString().slice(0, 19)}+00:00,cycling.road,${power},${Math.round(110 + power / 5 + (s % 7))},${(s * 8.5).toFixed(1)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The season's rides: local start (UTC) and length. */
export function seasonRides(days = 60, end = new Date().toISOString().slice(0, 10)): { start: string; seconds: number; watts: number }[] {
  const first = addDays(end, -(days - 1));
  const rides: { start: string; seconds: number; watts: number }[] = [];
  for (let day = 0; day < days; day++) {
    const date = addDays(first, day);
    if (day % 2 === 0) rides.push({ start: `${date}T06:30:00`, seconds: 1800 + 120 * (day % 5), watts: 170 + (day % 9) * 5 });
    if (day % 7 === 3) rides.push({ start: `${date}T17:00:00`, seconds: 1200, watts: 230 });
  }
  return rides;
}

/** Uploads the rides (ten per request) and waits for each to be processed; the activity ids in ride order. */
export async function uploadSeason(stack: TestStack, token: string, rides = seasonRides()): Promise<string[]> {
  const ids: string[] = [];
  for (let from = 0; from < rides.length; from += 10) {
    const files = rides.slice(from, from + 10).map((ride, i) => ({ name: `ride-${from + i}.csv`, bytes: rideCsv(ride.start, ride.seconds, ride.watts) }));
    const response = await upload(stack, token, files);
    if (response.status !== 202) throw new Error(`season upload: ${response.status} ${await response.text()}`);
    const { sources } = (await response.json()) as { sources: { id: string }[] };
    for (const source of sources) {
      const done = await settled(stack, token, source.id, 120_000);
      if (done.status !== 'processed') throw new Error(`season upload: ${done.status} ${JSON.stringify(done.error)}`);
      ids.push(done.activity_ids[0]!);
    }
  }
  return ids;
}

/** Declares the power and heart-rate thresholds and the maximum heart rate from `date`, and the resting heart rate (token: wellness:write, activities:write). */
export async function declareThresholds(stack: TestStack, token: string, date: string): Promise<void> {
  const marker = (marker: string, metric: string, value: number) => okJson(stack, 'POST', '/api/v1/profile/markers', token, { sport: 'cycling', marker, metric, value, date, provenance: 'declared', pinned: null });
  await marker('second_threshold', 'power', SEASON_THRESHOLDS.power);
  await marker('second_threshold', 'heart_rate', SEASON_THRESHOLDS.heartRate);
  await marker('heart_rate_max', 'heart_rate', SEASON_THRESHOLDS.maxHr);
  await okJson(stack, 'POST', '/api/v1/dailies/resting_hr', token, { date, value: SEASON_THRESHOLDS.restingHr });
}
