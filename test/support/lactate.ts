/** Lactate-test points the engine and gateway tests share. */
import type { LactatePoint } from '../../engine/contract.js';

/**
 * lactater's demo_data (cycling; W, mmol/L, bpm; the 0 W row is the resting point): ANALYTICS.md §7's worked
 * example, LT1 83.4 W and LT2 140.1 W at 3.6 mmol/L (R package lactater, README, github.com/fmmattioni/lactater).
 */
export const LACTATER_DEMO: readonly LactatePoint[] = [
  [0, 0.93, 96], [50, 0.98, 114], [75, 1.23, 134], [100, 1.88, 154], [125, 2.8, 170], [150, 4.21, 182], [175, 6.66, 193], [191, 8.64, 198],
].map(([intensity, lactate, heart_rate]) => ({ intensity: intensity!, lactate: lactate!, heart_rate: heart_rate!, vo2: null }));
