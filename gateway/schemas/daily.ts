/** The Daily resource's shape for the OpenAPI document (gaps.md "Daily"); presenters/daily.ts builds it. */
import { z } from 'zod';
import { named } from './components.js';
import { DAILY_SOURCES } from '../../storage/dailies.js';

export const Daily = named('Daily', z.object({
  date: z.string().meta({ format: 'date', description: 'Local calendar date' }),
  value: z.number().nullable().meta({ description: 'null when the date has no value and none is estimated' }),
  status: z.enum(['stored', 'estimated', 'missing']),
  source: z.enum(DAILY_SOURCES).nullable().meta({ description: 'Provenance: of the value, or of the nearest stored value for an estimate; null when missing' }),
}));
