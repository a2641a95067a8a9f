/**
 * The athlete's markers and settings (issue 28 items 4 and 7), signed in by the browser session as the other
 * athlete pages (routes/athlete-pages.ts):
 *
 *   GET  /training/settings            the form, today's values with provenance, maps, zones, what is missing
 *   POST /training/settings            declare (CSRF token) → 303 ?saved=1, or 422 with each field's error
 *   GET  /training/settings/derived    the derived section alone: 200 HTML when ready, 202 while recomputing
 *   GET  /training/assets/settings-….js  the page's polling script (settings-script.ts)
 *
 * Writes go through the services the API uses, nothing else: a marker through services/markers.ts
 * `writeMarker` (POST /api/v1/profile/markers), a daily through `checkDailyValue` and `upsertDaily`
 * (POST /api/v1/dailies/{measure}). CP or FTP → cycling `critical_power` or `second_threshold` (power, W);
 * maximum heart rate → `heart_rate_max` (heart_rate, bpm) for cycling and running, the sports whose maps
 * carry it; threshold pace (min:ss per km) → running `second_threshold` in m/s, the interface's unit;
 * resting heart rate and body mass are dailies (`resting_hr`, `body_mass`), as the interface files them.
 * Reads are the API's too: the metabolic maps (services/analyses.ts), the engine's zones as
 * /api/v1/profile/zones answers them, the marker rows of /api/v1/profile/markers, the dailies, and the
 * training load of /api/v1/ext/training-load. After a change the page answers at once with the derived
 * section "recomputing" (the first read after a write refits the model) and its script polls
 * /training/settings/derived until the engine has answered.
 * Kept honest by test/gateway/athlete-settings.test.ts and test/browser/athlete-settings.test.ts.
 */
import type { Context } from 'koa';
import { tableFromIPC } from 'apache-arrow';
import type { MarkerRecord, SessionRecord, UserRecord } from '../../storage/store.js';
import { readDailyRange, upsertDaily } from '../../storage/dailies.js';
import { addDays, parseDate, todayLocal } from '../../domain/time.js';
import { rootSport } from '../../domain/sport.js';
import type { MarkerName } from '../../domain/markers.js';
import type { DailyMeasure } from '../../domain/daily-measures.js';
import { Sessions } from '../auth/sessions.js';
import { engineCallOptions } from '../client-gone.js';
import type { CallOptions } from '../engine-client.js';
import type { GatewayDeps } from '../deps.js';
import { formBody, seeOther, signInFirst, stringField, type FormBody } from '../pages/forms.js';
import { sendPage } from '../pages/layout.js';
import { forbiddenPage } from '../pages/messages.js';
import {
  derivedSection, settingsPage, DERIVED_PATH, type CurrentValue, type DerivedState, type DerivedView, type MapView, type SettingsField,
  type SettingsValues, type ZonesView,
} from '../pages/athlete/settings-page.js';
import { SETTINGS_SCRIPT, SETTINGS_SCRIPT_INTEGRITY, SETTINGS_SCRIPT_PATH } from '../pages/athlete/settings-script.js';
import { metabolicMap } from '../services/analyses.js';
import { findMarkers, writeMarker } from '../services/markers.js';
import { checkDailyValue } from '../services/dailies.js';
import type { PublishedMap } from '../presenters/metabolic-map.js';
import type { RouteTable } from '../route-table.js';

/** How long the page waits for the maps before it shows "recomputing" and lets its script poll, ms. */
const PAGE_BUDGET_MS = 2_000;
/** How long one poll of the derived section waits before answering 202, ms. */
const POLL_BUDGET_MS = 5_000;
/** The model window (ANALYTICS.md §7): the 90 days ending on the date. */
const WINDOW_DAYS = 90;
/** How far back the page looks for the last recorded resting heart rate or body mass, days. */
const DAILY_LOOKBACK_DAYS = 365;
/** Longest value kept from a field, characters (a longer one is refused, and shown back cut). */
const FIELD_MAX = 20;

/** Accepted ranges, inclusive: wide enough for every athlete, narrow enough to catch a unit slip. */
export const SETTINGS_RANGES = {
  power: { min: 50, max: 800, unit: 'W' },
  heart_rate_max: { min: 100, max: 240, unit: 'bpm' },
  resting_hr: { min: 25, max: 120, unit: 'bpm' },
  /** Seconds per km: 1:30 to 20:00. */
  threshold_pace: { min: 90, max: 1200, unit: 's/km' },
  body_mass: { min: 20, max: 300, unit: 'kg' },
} as const;

const MARKER_LABELS: Record<string, string> = {
  fatmax: 'FatMax', first_threshold: 'First threshold', second_threshold: 'Second threshold', critical_power: 'Critical power',
  max_aerobic_power: 'Maximal aerobic power', w_prime: 'W′', critical_speed: 'Critical speed', max_aerobic_speed: 'Maximal aerobic speed',
  d_prime: 'D′', mlss: 'MLSS', lt1: 'LT1', lt2: 'LT2', vt1: 'VT1', vt2: 'VT2', heart_rate_max: 'Maximum heart rate', vo2max: 'VO2max',
};

const ZONE_TITLES: Record<string, string> = {
  unsupported_quantity: 'This zone system is not defined for this quantity.',
  missing_marker: 'A marker these zones need has no value today',
  inconsistent_markers: 'The markers give zone bounds that do not increase',
};

type Quantity = 'power' | 'heart_rate' | 'speed';

interface Write {
  marker?: { sport: string; marker: MarkerName; metric: 'power' | 'heart_rate' | 'speed'; value: number };
  daily?: { measure: DailyMeasure; value: number };
}

const EMPTY_VALUES: SettingsValues = { power_kind: 'critical_power', power: '', heart_rate_max: '', resting_hr: '', threshold_pace: '', body_mass: '', date: '' };

export function athleteSettingsRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { sessions } = deps;
  const script = { src: SETTINGS_SCRIPT_PATH, integrity: SETTINGS_SCRIPT_INTEGRITY };

  table.page({ method: 'get', path: SETTINGS_SCRIPT_PATH, name: 'settingsScript' }, async function settingsScript(ctx) {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = SETTINGS_SCRIPT;
  });

  table.page({ method: 'get', path: '/training/settings', name: 'trainingSettings' }, async function showSettings(ctx) {
    const found = await sessions.signedInUser(ctx);
    if (!found) return signInFirst(ctx);
    const saved = ctx.query.saved === '1';
    // Just after a change the maps are being refitted: answer at once and let the script follow.
    const derived: DerivedState = saved ? { state: 'recomputing' } : await derivedWithin(ctx, found.user, PAGE_BUDGET_MS);
    sendSettings(ctx, 200, found.session, { values: { ...EMPTY_VALUES }, errors: {}, derived, notice: saved ? 'Saved. Your maps, zones and training load are recomputed from the new values.' : null });
  });

  table.page({ method: 'get', path: DERIVED_PATH, name: 'trainingSettingsDerived' }, async function derivedPart(ctx) {
    const found = await sessions.signedInUser(ctx);
    ctx.set('Cache-Control', 'no-store');
    if (!found) {
      ctx.status = 401;
      ctx.body = { detail: 'Sign in first.' };
      return;
    }
    const derived = await derivedWithin(ctx, found.user, POLL_BUDGET_MS);
    if (derived.state === 'recomputing') {
      ctx.status = 202;
      ctx.body = { state: 'recomputing' };
      return;
    }
    ctx.status = 200;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'; base-uri 'none'");
    ctx.body = derivedSection(derived).toString();
  });

  table.page({ method: 'post', path: '/training/settings', name: 'saveTrainingSettings' }, async function saveSettings(ctx) {
    const found = await sessions.signedInUser(ctx);
    if (!found) return seeOther(ctx, '/signin');
    const body = formBody(ctx);
    if (!Sessions.csrfMatches(found.session, body.csrf)) return sendPage(ctx, 403, forbiddenPage());
    const today = todayLocal();
    const { values, errors, writes, date } = readForm(body, today);
    if (Object.keys(errors).length > 0) {
      const derived = await derivedWithin(ctx, found.user, PAGE_BUDGET_MS);
      return sendSettings(ctx, 422, found.session, { values, errors, derived, notice: null });
    }
    const userId = found.user.id;
    for (const write of writes) {
      if (write.marker) {
        await writeMarker(deps.store, userId, { ...write.marker, date, provenance: 'declared', pinned: false }, null);
      } else if (write.daily) {
        checkDailyValue(write.daily.measure, write.daily.value);
        await upsertDaily(deps.store, { userId, measure: write.daily.measure, date, value: write.daily.value, source: 'manual' });
      }
    }
    seeOther(ctx, '/training/settings?saved=1');
  });

  function sendSettings(ctx: Context, status: number, session: SessionRecord, view: { values: SettingsValues; errors: Partial<Record<SettingsField | 'form', string>>; derived: DerivedState; notice: string | null }): void {
    sendPage(ctx, status, settingsPage({ csrfToken: session.csrf_token, script, ...view }));
  }

  /** The derived section if the engine answers within `budget` ms, else "recomputing" (the work goes on and is cached). */
  async function derivedWithin(ctx: Context, user: UserRecord, budget: number): Promise<DerivedState> {
    const work = readDerived(deps, user.id, todayLocal(), engineCallOptions(ctx)).then(
      (view): DerivedState => ({ state: 'ready', view }),
      (error: unknown): DerivedState => {
        deps.logger.error({ err: error }, 'settings: the maps could not be read');
        return { state: 'unavailable' };
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<DerivedState>((resolve) => { timer = setTimeout(resolve, budget, { state: 'recomputing' }); });
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

// ---- the form ----

function readForm(body: FormBody, today: string): { values: SettingsValues; errors: Partial<Record<SettingsField | 'form', string>>; writes: Write[]; date: string } {
  const text = (name: SettingsField) => (stringField(body, name) ?? '').trim();
  const kind = stringField(body, 'power_kind');
  const values: SettingsValues = {
    power_kind: kind === 'ftp' ? 'ftp' : 'critical_power',
    power: text('power'), heart_rate_max: text('heart_rate_max'), resting_hr: text('resting_hr'),
    threshold_pace: text('threshold_pace'), body_mass: text('body_mass'), date: text('date'),
  };
  const errors: Partial<Record<SettingsField | 'form', string>> = {};
  const writes: Write[] = [];
  for (const field of Object.keys(values) as (keyof SettingsValues)[]) {
    if (field !== 'power_kind' && values[field].length > FIELD_MAX) {
      errors[field] = `At most ${FIELD_MAX} characters.`;
      values[field] = values[field].slice(0, FIELD_MAX);
    }
  }
  if (kind !== null && kind !== 'ftp' && kind !== 'critical_power') errors.power = 'Choose CP or FTP.';

  let date = today;
  if (values.date && !errors.date) {
    const parsed = parseDate(values.date);
    if (parsed === null) errors.date = 'Enter a date as YYYY-MM-DD, e.g. 2024-05-01.';
    else if (parsed > today) errors.date = `The date cannot be after today (${today}).`;
    else date = parsed;
  }

  const number = (field: 'power' | 'heart_rate_max' | 'resting_hr' | 'body_mass', example: string, wholeOnly: boolean): number | null => {
    const value = values[field];
    if (!value || errors[field]) return null;
    const { min, max, unit } = SETTINGS_RANGES[field];
    const pattern = wholeOnly ? /^\d{1,4}$/ : /^\d{1,4}(?:[.,]\d{1,2})?$/;
    const parsed = pattern.test(value) ? Number(value.replace(',', '.')) : Number.NaN;
    if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
      errors[field] = `Enter ${wholeOnly ? 'a whole number' : 'a number'} of ${unit} from ${min} to ${max}, e.g. ${example}.`;
      return null;
    }
    return parsed;
  };
  const power = number('power', '265', false);
  const maxHr = number('heart_rate_max', '186', true);
  const restingHr = number('resting_hr', '48', true);
  const bodyMass = number('body_mass', '71.5', false);
  if (maxHr !== null && restingHr !== null && restingHr >= maxHr) errors.resting_hr = `Your resting heart rate must be below your maximum (${maxHr} bpm).`;

  let paceSeconds: number | null = null;
  if (values.threshold_pace && !errors.threshold_pace) {
    const match = /^(\d{1,2}):([0-5]\d)$/.exec(values.threshold_pace);
    const seconds = match ? Number(match[1]) * 60 + Number(match[2]) : Number.NaN;
    const { min, max } = SETTINGS_RANGES.threshold_pace;
    if (!(seconds >= min && seconds <= max)) errors.threshold_pace = `Enter minutes:seconds per km from ${pace(min)} to ${pace(max)}, e.g. 4:30.`;
    else paceSeconds = seconds;
  }

  if (power !== null) writes.push({ marker: { sport: 'cycling', marker: values.power_kind === 'ftp' ? 'second_threshold' : 'critical_power', metric: 'power', value: power } });
  if (maxHr !== null) for (const sport of ['cycling', 'running']) writes.push({ marker: { sport, marker: 'heart_rate_max', metric: 'heart_rate', value: maxHr } });
  // "stored in the unit the interface uses": m/s, to the millimetre.
  if (paceSeconds !== null) writes.push({ marker: { sport: 'running', marker: 'second_threshold', metric: 'speed', value: Math.round((1000 / paceSeconds) * 1000) / 1000 } });
  if (restingHr !== null) writes.push({ daily: { measure: 'resting_hr', value: restingHr } });
  if (bodyMass !== null) writes.push({ daily: { measure: 'body_mass', value: bodyMass } });
  const filled = [values.power, values.heart_rate_max, values.resting_hr, values.threshold_pace, values.body_mass].some(Boolean);
  if (!filled && Object.keys(errors).length === 0) errors.form = 'Nothing was saved: fill in at least one value.';
  return { values, errors, writes, date };
}

// ---- what the page shows, read as the API reads it ----

interface MapRead { map: PublishedMap | null; problem: string | null }

async function readDerived(deps: GatewayDeps, userId: string, date: string, options: CallOptions): Promise<DerivedView> {
  const map = (quantity: Quantity, sport: string): Promise<MapRead> => metabolicMap(deps, userId, { quantity, sport, date }, options)
    .then((result) => (result.problem ? { map: null, problem: result.problem.message } : { map: result.map, problem: null }));
  const zones = (quantity: Quantity, sport: string, system: 'seven_zone' | 'olt_i_scale') => deps.engine.zones({ user_id: userId, sport, quantity, zone_system: system, date }, options);
  const from = addDays(date, -(WINDOW_DAYS - 1));
  const [powerMap, heartMap, speedMap, powerZones, heartZones, paceZones, rows, resting, mass, recent, load] = await Promise.all([
    map('power', 'cycling'), map('heart_rate', 'cycling'), map('speed', 'running'),
    zones('power', 'cycling', 'seven_zone'), zones('heart_rate', 'cycling', 'olt_i_scale'), zones('speed', 'running', 'seven_zone'),
    findMarkers(deps, userId, { sports: ['cycling', 'running'] }),
    lastDaily(deps, userId, 'resting_hr', date), lastDaily(deps, userId, 'body_mass', date),
    deps.store.activities.findFields({ user_id: userId, local_date: { $gte: from, $lte: date } }, ['sport']),
    deps.engine.trainingLoad({ user_id: userId, sports: [], start_date: from, end_date: date, format: 'ARROW_IPC' }, options),
  ]);
  const tests = new Map<string, string>();
  const testIds = [...new Set(rows.filter((row) => row.test_id).map((row) => row.test_id!))];
  if (testIds.length > 0) {
    for (const test of await deps.store.tests.find({ user_id: userId, id: { $in: testIds } })) tests.set(test.id, test.title ?? test.local_date);
  }
  const inWindow = (sport: string) => recent.filter((activity) => rootSport(activity.sport) === sport).length;
  const provenance = (sport: string, marker: string, metric: string, winner: { value: number; provenance: string }): string => {
    if (winner.provenance === 'modeled') {
      const count = inWindow(sport);
      return `modeled from ${count} ${sport === 'cycling' ? 'ride' : 'run'}${count === 1 ? '' : 's'} in the ${WINDOW_DAYS} days to ${date}`;
    }
    const row = rows.find((candidate) => candidate.sport === sport && candidate.marker === marker && candidate.metric === metric && candidate.provenance === winner.provenance && candidate.date <= date);
    return row ? rowProvenance(row, tests) : winner.provenance;
  };
  /** The map's winner, or (when the map cannot be drawn) the newest row a person or a test wrote. */
  const winner = (read: MapRead, sport: string, marker: string, metric: string): { value: number; provenance: string } | null => {
    if (read.map) return read.map.markers[marker] ?? null;
    const row = rows.find((candidate) => candidate.sport === sport && candidate.marker === marker && candidate.metric === metric && candidate.date <= date && candidate.provenance !== 'external')
      ?? rows.find((candidate) => candidate.sport === sport && candidate.marker === marker && candidate.metric === metric && candidate.date <= date);
    return row ? { value: row.value, provenance: row.provenance } : null;
  };
  const item = (label: string, sport: string, marker: string, metric: Quantity, read: MapRead, missing: string): CurrentValue => {
    const found = winner(read, sport, marker, metric);
    return found === null
      ? { label, value: null, provenance: null, missing }
      : { label, value: formatMarker(marker, metric, found.value), provenance: provenance(sport, marker, metric, found), missing };
  };

  const current: CurrentValue[] = [
    item('Critical power', 'cycling', 'critical_power', 'power', powerMap, 'Declare it above, or ride 15 minutes with body mass recorded.'),
    item('Threshold power', 'cycling', 'second_threshold', 'power', powerMap, 'Declare your FTP above.'),
    item('Maximum heart rate', 'cycling', 'heart_rate_max', 'heart_rate', heartMap, 'Declare it above.'),
    dailyValue('Resting heart rate', resting, 'bpm', 0, 'Record it above.'),
    item('Threshold pace', 'running', 'second_threshold', 'speed', speedMap, 'Declare it above.'),
    dailyValue('Body mass', mass, 'kg', 1, 'Record it above.'),
  ];

  const missing: string[] = [];
  const value = (label: string) => current.find((entry) => entry.label === label)!.value;
  if (value('Body mass') === null) missing.push('Body mass: record it above. Every map needs it, and nothing can be modeled without it.');
  if (value('Threshold power') === null) missing.push('Threshold power: rides with power get no training load and no power zones until there is one. Declare your FTP above, or record body mass and ride at least 15 minutes so it can be modeled.');
  if (value('Maximum heart rate') === null) missing.push('Maximum heart rate: activities with heart rate only get no training load, and there are no heart-rate zones, until you declare it.');
  if (value('Maximum heart rate') !== null && winner(heartMap, 'cycling', 'second_threshold', 'heart_rate') === null) {
    missing.push(`Heart-rate threshold: activities with heart rate only get no training load until there is a second threshold in heart rate. It is modeled once body mass is recorded and a ride of at least 15 minutes is in the last ${WINDOW_DAYS} days; a lactate test sets it too.`);
  }
  if (value('Resting heart rate') === null) missing.push('Resting heart rate: activities with heart rate only get no training load until you record it.');
  if (value('Threshold pace') === null) missing.push('Threshold pace: runs without power get no training load and no pace zones until you declare it above (or record body mass and run at least 15 minutes so it can be modeled).');
  for (const [read, what] of [[powerMap, 'cycling power'], [speedMap, 'running speed']] as const) {
    if (read.problem && !/body_mass|body mass/i.test(read.problem)) missing.push(`The ${what} model: ${read.problem} Upload an activity of at least 15 minutes (the model reads the last ${WINDOW_DAYS} days).`);
  }

  const maps: MapView[] = [
    mapView('Cycling power', 'power', 'cycling', powerMap, provenance),
    mapView('Cycling heart rate', 'heart_rate', 'cycling', heartMap, provenance),
    mapView('Running pace', 'speed', 'running', speedMap, provenance),
  ];
  const zoneViews: ZonesView[] = [
    zonesView('Cycling power zones (seven zones)', 'power', powerZones),
    zonesView('Heart-rate zones (Olympiatoppen I-1 to I-5)', 'heart_rate', heartZones),
    zonesView('Running pace zones (seven zones)', 'speed', paceZones),
  ];

  let loadLine: string | null = null;
  const days = tableFromIPC(load.data).toArray() as { activities: number | bigint; activities_without_load: number | bigint }[];
  const total = days.reduce((sum, day) => sum + Number(day.activities), 0);
  const without = days.reduce((sum, day) => sum + Number(day.activities_without_load), 0);
  if (total > 0) {
    loadLine = `${total - without} of your ${total} activit${total === 1 ? 'y' : 'ies'} in the ${WINDOW_DAYS} days to ${date} ${total - without === 1 ? 'has' : 'have'} a training load${without > 0 ? `; ${without} ${without === 1 ? 'has' : 'have'} none yet, for what is listed above` : ''}.`;
  } else {
    loadLine = `No activities in the ${WINDOW_DAYS} days to ${date}: upload some to see your training load.`;
  }
  return { current, maps, zones: zoneViews, missing, load: loadLine };
}

/** The last recorded value of a daily on or before `date`, and today's (as GET /dailies estimates it). */
async function lastDaily(deps: GatewayDeps, userId: string, measure: DailyMeasure, date: string) {
  const entries = await readDailyRange(deps.store, userId, measure, addDays(date, -DAILY_LOOKBACK_DAYS), date, true);
  const today = entries[entries.length - 1] ?? null;
  const stored = [...entries].reverse().find((entry) => entry.status === 'stored') ?? null;
  return { today: today?.value ?? null, stored };
}

function dailyValue(label: string, read: Awaited<ReturnType<typeof lastDaily>>, unit: string, decimals: number, missing: string): CurrentValue {
  if (read.today === null || read.stored === null) return { label, value: null, provenance: null, missing };
  const source = read.stored.source === 'manual' || read.stored.source === null ? `declared on ${read.stored.date}` : `external from ${read.stored.source} on ${read.stored.date}`;
  return { label, value: `${read.today.toFixed(decimals)} ${unit}`, provenance: source, missing };
}

function rowProvenance(row: MarkerRecord, tests: Map<string, string>): string {
  if (row.provenance === 'measured') return `measured by test “${tests.get(row.test_id ?? '') ?? row.test_id}” on ${row.date}`;
  if (row.provenance === 'external') return `external from ${row.source ?? 'an app'} on ${row.date}`;
  return `declared on ${row.date}${row.pinned ? ' (pinned)' : ''}`;
}

function mapView(title: string, quantity: Quantity, sport: string, read: MapRead, provenance: (sport: string, marker: string, metric: string, winner: { value: number; provenance: string }) => string): MapView {
  if (read.map === null) return { title, markers: null, problem: `${read.problem ?? 'No map.'}` };
  const markers = Object.entries(read.map.markers).flatMap(([name, winner]) => (winner === null ? [] : [{
    label: MARKER_LABELS[name] ?? name, value: formatMarker(name, quantity, winner.value), provenance: provenance(sport, name, quantity, winner),
  }]));
  return { title, markers: markers.length > 0 ? markers : null, problem: markers.length > 0 ? null : 'No marker has a value yet.' };
}

function zonesView(title: string, quantity: Quantity, answer: Awaited<ReturnType<GatewayDeps['engine']['zones']>>): ZonesView {
  if (answer.problem !== null) return { title, zones: null, problem: `${ZONE_TITLES[answer.problem.code] ?? answer.problem.code}: ${answer.problem.detail}` };
  return { title, problem: null, zones: answer.zones.map((zone) => ({ name: zone.name, label: zone.label, range: zoneRange(quantity, zone.lower, zone.upper) })) };
}

function zoneRange(quantity: Quantity, lower: number, upper: number | null): string {
  if (quantity === 'speed') {
    if (upper === null) return `faster than ${pace(1000 / lower)} /km`;
    if (lower <= 0) return `slower than ${pace(1000 / upper)} /km`;
    return `${pace(1000 / lower)}–${pace(1000 / upper)} /km`;
  }
  const unit = quantity === 'power' ? 'W' : 'bpm';
  return upper === null ? `from ${Math.round(lower)} ${unit}` : `${Math.round(lower)}–${Math.round(upper)} ${unit}`;
}

function formatMarker(marker: string, metric: string, value: number): string {
  if (marker === 'w_prime') return `${value.toFixed(1)} kJ`;
  if (marker === 'd_prime') return `${Math.round(value)} m`;
  if (metric === 'speed') return `${pace(1000 / value)} /km`;
  if (metric === 'heart_rate') return `${Math.round(value)} bpm`;
  if (metric === 'vo2') return `${Math.round(value)} mL/min`;
  return `${Math.round(value)} W`;
}

/** Seconds (per km) → "4:30". */
function pace(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}
