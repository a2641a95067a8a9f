/**
 * Pace, as runners, walkers and hikers read speed: minutes and seconds per kilometre ("4:35 /km"). Which
 * sports use it (decided by the activity's Open Sport Taxonomy root, so `running.trail` and `walking.hiking`
 * do too; cycling and the rest keep km/h), how it is written, the cap that stands for standing still (pace
 * is infinite at 0 m/s, so anything slower than the cap is drawn and written at the cap), and a pace axis
 * whose ticks fall on round values with the faster pace at the top. It does not compute any value: speeds
 * are the API's, in m/s. Kept honest by test/gateway/pace.test.ts and the Chromium screenshots.
 */
import { isFootSport, rootSport } from '../../../domain/sport.js';

/** Slowest pace drawn or written, s/km: slower than this is standing still for the sport. */
const CAP_RUNNING = 15 * 60;
const CAP_WALKING = 30 * 60;

/** True when the sport's pages show pace (min:ss per km) instead of km/h. */
export function usesPace(sport: string): boolean {
  return isFootSport(sport);
}

/** The standing-still cap for the sport, s/km: 15:00 /km running, 30:00 /km walking and hiking. */
export function paceCap(sport: string): number {
  return rootSport(sport) === 'running' ? CAP_RUNNING : CAP_WALKING;
}

/** m/s → s/km, at most `cap` (0 m/s and slower than the cap are the cap); NaN stays NaN. */
export function paceOf(metresPerSecond: number, cap: number): number {
  if (Number.isNaN(metresPerSecond)) return Number.NaN;
  return metresPerSecond <= 1000 / cap ? cap : 1000 / metresPerSecond;
}

/** s/km → "4:35" (or "1:02:03" past an hour), rounded to the second. */
export function paceText(secondsPerKm: number): string {
  const s = Math.round(secondsPerKm);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** m/s → "4:35", with the cap; "–" when there is no speed. */
export function paceOfSpeed(metresPerSecond: number, cap: number): string {
  return Number.isNaN(metresPerSecond) ? '–' : paceText(paceOf(metresPerSecond, cap));
}

/** Tick steps of a pace axis, s/km: 5 s, 10 s, 15 s, 30 s, 1 min, 2 min, 5 min, 10 min. */
const STEPS = [5, 10, 15, 30, 60, 120, 300, 600] as const;

export interface PaceAxis {
  /** Fastest (top) and slowest (bottom) ends, s/km: the bottom on a tick, the top on a whole minute or a tick. */
  fast: number;
  slow: number;
  /** Ascending s/km, every one a multiple of the step. */
  ticks: number[];
}

/**
 * An axis covering [fastest, slowest] s/km with at most `target` intervals between round ticks: the slow end
 * is moved out to the next multiple of the step; the fast end to the previous one, or, for steps above a
 * minute, only to the previous whole minute (so a 3:10 /km best does not stretch a 5-minute-step axis up
 * to 0:00); a span too small to draw is widened to one step.
 */
export function paceAxis(fastest: number, slowest: number, target: number): PaceAxis {
  // To the millisecond, so that 1000 / (1000 / 240) still lands on the 4:00 tick.
  const low = Math.round(Math.min(fastest, slowest) * 1000) / 1000;
  const high = Math.round(Math.max(fastest, slowest) * 1000) / 1000;
  const step = STEPS.find((candidate) => Math.ceil(high / candidate) - Math.floor(low / candidate) <= target) ?? STEPS[STEPS.length - 1]!;
  const fast = Math.floor(low / Math.min(step, 60)) * Math.min(step, 60);
  let slow = Math.ceil(high / step) * step;
  if (slow <= fast) slow = fast + step;
  const ticks: number[] = [];
  for (let tick = Math.ceil(fast / step) * step; tick <= slow + 1e-9; tick += step) ticks.push(tick);
  return { fast, slow, ticks };
}

/** The `q` quantile (0…1) of the values that are not NaN; NaN when there are none. */
export function quantile(values: ArrayLike<number>, q: number): number {
  const present = Array.from(values).filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (present.length === 0) return Number.NaN;
  return present[Math.min(present.length - 1, Math.max(0, Math.round(q * (present.length - 1))))]!;
}
