/**
 * The numbers part of an activity's page (issue 28 item 3): moving time, work, weighted power (or pace or
 * speed for a foot sport without power), intensity factor and load with the threshold it came from — or,
 * when there is no load, why, in words, with a link to the settings where the missing value is declared —
 * then time in each zone as bar charts (charts/zone-bars.ts), one per quantity, with a chooser of the zone
 * system, and the route from GPS (charts/route-track.ts). Every number is the body of
 * `GET /api/v1/ext/activities/{id}/numbers` (presenters/activity-numbers.ts) as the route fetched it, only
 * formatted. Pure renderers for activity-page.ts.
 */
import { html, type Html } from '../html.js';
import type { ActivityNumbersBody } from '../../presenters/activity-numbers.js';
import { ZONE_SYSTEM_NAMES } from '../../../engine/contract.js';
import { paceCap, paceOfSpeed, usesPace } from '../charts/pace.js';
import { routeFigure } from '../charts/route-track.js';
import { zoneBarsFigure, type ZoneBar } from '../charts/zone-bars.js';
import { clockOf, kmh, oneDecimal, stat, whole } from './frame.js';

export const SETTINGS_PATH = '/training/settings';

export interface NumbersView {
  numbers: ActivityNumbersBody;
  /** The zone system asked for (null: each quantity's default). */
  zoneSystem: string | null;
  /** GPS fixes as `/data` answers latitude and longitude (degrees, NaN where none); null without the columns. */
  route: { latitude: ArrayLike<number>; longitude: ArrayLike<number> } | null;
  /** The page the zone chooser asks again (`/training/activities/{id}`, or the coach's view of it). */
  pagePath: string;
}

export const NUMBERS_STYLE = `
.load-problem{margin:.75rem 0 0;padding:.65rem .85rem;border-radius:10px;background:#fffbeb;border:1px solid #fde68a;color:#713f12;font-size:.9rem}
.load-problem a{font-weight:600}
.zone-chart{margin:0 0 1rem}.zone-chart:last-child{margin-bottom:0}
.zone-chart h3{font-size:.9rem;margin:0 0 .4rem}
.zone-chart p{margin:0;font-size:.9rem}
form.zone-system{display:flex;align-items:center;flex-wrap:wrap;gap:.5rem;margin:0;min-width:0;max-width:100%}
form.zone-system label{margin:0;font-size:.85rem;font-weight:600;color:var(--muted)}
form.zone-system select{min-width:0;max-width:100%;height:2.2rem;padding:0 .5rem;border:1px solid #c5cbd5;border-radius:8px;font:inherit;font-size:.875rem;background:#fff}
form.zone-system button{margin:0;height:2.2rem;padding:0 .8rem;width:auto;font-size:.875rem}
figure.route{margin:0}
svg.route-track{display:block;width:100%;height:auto;max-height:30rem}
figure.route figcaption{font-size:.8rem;margin-top:.4rem}
.key{display:inline-block;width:.7rem;height:.7rem;margin:0 .3rem 0 0;vertical-align:-.05rem}
.start-key{border-radius:50%;background:#16a34a}.finish-key{background:#111827}
.numbers-grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1rem;margin:0 0 1rem}.numbers-grid>.panel{margin:0}
@media (max-width:760px){.numbers-grid{grid-template-columns:minmax(0,1fr)}}
`;

const SYSTEM_LABELS: Record<string, string> = {
  seven_zone: '7 zones (of threshold)', five_zone: '5 zones (around the thresholds)', three_zone: '3 zones (Seiler)', olt_i_scale: 'I-1 … I-5 (Olympiatoppen)',
};
const QUANTITY_NAMES: Record<string, string> = { power: 'power', speed: 'speed', heart_rate: 'heart rate' };

/** "250 W", "4:10 /km", "28.4 km/h", "165 bpm": a value of `quantity` as the page writes it for `sport`. */
function intensityText(quantity: string, value: number, sport: string): string {
  if (quantity === 'power') return `${whole(value)} W`;
  if (quantity === 'heart_rate') return `${whole(value)} bpm`;
  return usesPace(sport) ? `${paceOfSpeed(value, paceCap(sport))} /km` : `${oneDecimal(kmh(value))} km/h`;
}

/** The threshold a load came from, as a person reads it: "threshold 250 W, declared". */
function thresholdText(numbers: ActivityNumbersBody): string | null {
  const threshold = numbers.threshold;
  if (threshold === null) return null;
  return `threshold ${intensityText(threshold.quantity, threshold.value, numbers.sport)}, ${threshold.provenance}`;
}

/** Why there is no load, in words, and what to declare. */
function loadProblemText(numbers: ActivityNumbersBody): string {
  const problem = numbers.load_problem!;
  const quantity = QUANTITY_NAMES[numbers.intensity_quantity] ?? numbers.intensity_quantity;
  const threshold = numbers.intensity_quantity === 'power'
    ? 'threshold power (FTP or critical power)'
    : numbers.intensity_quantity === 'speed' ? 'threshold pace' : 'threshold heart rate';
  switch (problem.code) {
    case 'no_intensity':
      return 'No load: this activity recorded no power, speed or heart rate to compute one from.';
    case 'no_threshold':
      return `No load yet: it is computed from your ${quantity} against your ${threshold}, and none is known for ${numbers.local_date}. Declare it, or record your body mass so the model can estimate it.`;
    case 'no_heart_rate_max':
      return `No load yet: a load from heart rate needs your maximum heart rate (above your resting heart rate) on ${numbers.local_date}.`;
    case 'no_resting_hr':
      return `No load yet: a load from heart rate needs your resting heart rate on ${numbers.local_date}.`;
    default:
      return `No load: ${problem.detail}`;
  }
}

/** The numbers block: the stats, and the reason when there is no load. */
export function numbersPanel(view: NumbersView): Html {
  const { numbers } = view;
  const stats: Html[] = [];
  stats.push(stat('Moving time', clockOf(numbers.moving_time_s), '', numbers.recorded_time_s !== numbers.moving_time_s ? `recorded ${clockOf(numbers.recorded_time_s)}` : null));
  if (numbers.work_kj !== null) stats.push(stat('Work', whole(numbers.work_kj), 'kJ'));
  if (numbers.weighted_intensity !== null) {
    const quantity = numbers.intensity_quantity;
    if (quantity === 'power') stats.push(stat('Weighted power', whole(numbers.weighted_intensity), 'W'));
    else if (usesPace(numbers.sport)) stats.push(stat('Weighted pace', paceOfSpeed(numbers.weighted_intensity, paceCap(numbers.sport)), '/km'));
    else stats.push(stat('Weighted speed', oneDecimal(kmh(numbers.weighted_intensity)), 'km/h'));
  }
  if (numbers.intensity_factor !== null) stats.push(stat('Intensity factor', numbers.intensity_factor.toFixed(2), ''));
  if (numbers.load !== null) {
    const from = numbers.intensity_quantity === 'heart_rate' && numbers.trimp !== null ? `from heart rate (TRIMP ${whole(numbers.trimp)}), ` : '';
    stats.push(stat('Load', whole(numbers.load), '', `${from}${thresholdText(numbers) ?? ''}`));
  } else {
    stats.push(stat('Load', '–', ''));
  }
  return html`<section class="panel" aria-labelledby="numbers"><div class="panel-head"><h2 id="numbers">Training numbers</h2><span class="muted">as <code>/api/v1/ext/activities/${numbers.activity_id}/numbers</code> answers</span></div>
<div class="stats">${stats}</div>
${numbers.load_problem ? html`<p class="load-problem" role="note" data-code="${numbers.load_problem.code}">${loadProblemText(numbers)}${numbers.load_problem.code === 'no_intensity' ? null : html` <a href="${SETTINGS_PATH}">Set your thresholds and heart rates in settings →</a>`}</p>` : null}
</section>`;
}

/** A zone's range in display units: "188–225 W", "≥ 375 W", "6:40–5:00 /km", "faster than 4:10 /km". */
function rangeText(quantity: string, lower: number, upper: number | null, sport: string): string {
  if (quantity === 'speed' && usesPace(sport)) {
    const cap = paceCap(sport);
    if (upper === null) return `faster than ${paceOfSpeed(lower, cap)} /km`;
    if (lower <= 0) return `slower than ${paceOfSpeed(upper, cap)} /km`;
    return `${paceOfSpeed(lower, cap)}–${paceOfSpeed(upper, cap)} /km`;
  }
  const unit = quantity === 'power' ? 'W' : quantity === 'heart_rate' ? 'bpm' : 'km/h';
  const value = (v: number): string => (quantity === 'speed' ? oneDecimal(kmh(v)) : whole(v));
  return upper === null ? `≥ ${value(lower)} ${unit}` : `${value(lower)}–${value(upper)} ${unit}`;
}

const MARKER_WORDS: Record<string, string> = {
  first_threshold: 'first threshold', second_threshold: 'threshold', max_aerobic_power: 'maximal aerobic power',
  max_aerobic_speed: 'maximal aerobic speed', heart_rate_max: 'maximum heart rate',
};

/** Why a quantity has no zones, in words (the markers named as /profile/zones names them in its detail). */
function zonesProblemText(quantity: string, system: string, problem: { code: string; detail: string }): Html {
  const name = QUANTITY_NAMES[quantity] ?? quantity;
  if (problem.code === 'unsupported_quantity') return html`<p class="muted">${SYSTEM_LABELS[system] ?? system} are not defined for ${name}.</p>`;
  const missing = /need (.+), which/.exec(problem.detail)?.[1]?.split(' and ').map((marker) => MARKER_WORDS[marker] ?? marker);
  const what = problem.code === 'missing_marker'
    ? `Your ${name} zones need your ${missing ? missing.join(' and ') : 'markers'}, not known on this day.`
    : `Your markers contradict each other (${problem.detail.replace(/^zones: /, '')}).`;
  return html`<p class="muted">${what} <a href="${SETTINGS_PATH}">Settings →</a></p>`;
}

/** Time in zones, one chart per quantity the activity recorded, with the zone-system chooser. */
export function zonesPanel(view: NumbersView): Html {
  const { numbers } = view;
  if (numbers.zones.length === 0) return html``;
  const charts = numbers.zones.map((entry) => {
    const name = QUANTITY_NAMES[entry.quantity] ?? entry.quantity;
    const heading = html`<h3>${name.slice(0, 1).toUpperCase() + name.slice(1)} <span class="muted">· ${SYSTEM_LABELS[entry.zone_system] ?? entry.zone_system}</span></h3>`;
    if (entry.problem !== null || entry.zones.length === 0) {
      return html`<div class="zone-chart" data-quantity="${entry.quantity}" data-zone-system="${entry.zone_system}">${heading}${entry.problem ? zonesProblemText(entry.quantity, entry.zone_system, entry.problem) : null}</div>`;
    }
    const bars: ZoneBar[] = entry.zones.map((zone) => ({
      name: zone.name, label: zone.label, range: rangeText(entry.quantity, zone.lower, zone.upper, numbers.sport), seconds: zone.duration_s,
    }));
    return html`<div class="zone-chart" data-quantity="${entry.quantity}" data-zone-system="${entry.zone_system}">${heading}${zoneBarsFigure(`Time in ${name} zones`, bars)}</div>`;
  });
  const chooser = html`<form class="zone-system" method="get" action="${view.pagePath}#zones"><label for="zone_system">Zones</label><select id="zone_system" name="zone_system">
<option value=""${view.zoneSystem === null ? html` selected` : null}>Default for each</option>${ZONE_SYSTEM_NAMES.map((system) => html`<option value="${system}"${view.zoneSystem === system ? html` selected` : null}>${SYSTEM_LABELS[system]}</option>`)}</select><button type="submit" class="button secondary">Show</button></form>`;
  return html`<section class="panel" aria-labelledby="zones"><div class="panel-head"><h2 id="zones">Time in zones</h2>${chooser}</div>${charts}</section>`;
}

/** The route from GPS, or nothing when the activity has fewer than two fixes (no empty box). */
export function routePanel(view: NumbersView): Html | null {
  if (view.route === null) return null;
  const figure = routeFigure(view.route.latitude, view.route.longitude);
  if (figure === null) return null;
  return html`<section class="panel" aria-labelledby="route"><h2 id="route">Route</h2>${figure}</section>`;
}

/** Numbers and route side by side (stacked on a phone), then time in zones. */
export function numbersSection(view: NumbersView): Html {
  const route = routePanel(view);
  return html`${route ? html`<div class="numbers-grid">${numbersPanel(view)}${route}</div>` : numbersPanel(view)}
${zonesPanel(view)}`;
}
