/**
 * Wahoo's only wellness value (providers.md §3): `GET /v1/user` `weight` (kg) → body_mass. Wahoo keeps no
 * history, so the value is dated the day it is read. assume: the day is the UTC calendar date of the read
 * (Wahoo gives no time zone for the user). Kept honest by test/engine/integrations/wahoo-client.test.ts.
 */
import type { ImportedDaily } from '../daily-import.js';
import type { WahooUser } from './records.js';

export function wahooDailiesOf(user: WahooUser, readAt: number): ImportedDaily[] {
  if (user.weight === null || user.weight <= 0) return [];
  return [{ measure: 'body_mass', date: new Date(readAt).toISOString().slice(0, 10), value: user.weight }];
}
