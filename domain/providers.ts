/**
 * The training platforms a user can connect (gaps.md: Source `origin` garmin_connect | intervals_icu |
 * wahoo) and what each supplies, as far as account status and the portal need to know: every one
 * delivers activities and their history and accepts scheduled workouts; Garmin Connect and intervals.icu
 * also deliver daily measures (Wahoo keeps none). The integrations themselves arrive with issue 15.
 */
export const PROVIDERS = ['garmin_connect', 'intervals_icu', 'wahoo'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const PROVIDER_NAMES: Readonly<Record<Provider, string>> = {
  garmin_connect: 'Garmin Connect',
  intervals_icu: 'intervals.icu',
  wahoo: 'Wahoo',
};

/** Providers whose connection delivers daily measures (body mass, resting heart rate, sleep, HRV). */
export const DAILY_PROVIDERS: ReadonlySet<Provider> = new Set(['garmin_connect', 'intervals_icu']);

/** Providers a scheduled workout can be sent to. */
export const WORKOUT_PROVIDERS: ReadonlySet<Provider> = new Set(['garmin_connect', 'intervals_icu', 'wahoo']);
