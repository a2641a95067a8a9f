/**
 * One activity's page (/training/activities/{id}): its summary blocks (only those present), power / heart
 * rate / speed / altitude / cadence over a shared time axis, its mean-max curve on a log duration axis with
 * the peaks at 5 s, 1 min, 5 min, 20 min and 1 h, and its laps (when there are two or more). A foot sport's speed is pace (min:ss per km,
 * charts/pace.ts) everywhere on the page: summary, laps, chart axis and read-out, mean-max. Everything is the API's: the details as
 * `GET /activities/{id}` presents them, the series and curve as the engine answers `/data` and `/mean-max`, the
 * training numbers, time in zones and GPS route as `/ext/activities/{id}/numbers` and `/data` answer them
 * (activity-numbers.ts). Below,
 * the athlete's notes and the form correcting sport, tags and notes or deleting the activity (activity-corrections.ts).
 * Pure renderer for routes/athlete-pages.ts.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { durationLabel, meanMaxFigure } from '../charts/mean-max.js';
import { METRIC_COLORS } from '../charts/svg.js';
import { paceCap, paceOf, paceOfSpeed, paceText, usesPace } from '../charts/pace.js';
import { timeSeriesFigure, type SeriesPanel } from '../charts/time-series.js';
import { athletePage, clockOf, kmh, localParts, oneDecimal, secondsOf, sportName, stat, whole } from './frame.js';
import { CORRECTIONS_STYLE, correctionsPanel, type CorrectionsForm } from './activity-corrections.js';
import { NUMBERS_STYLE, numbersSection, type NumbersView } from './activity-numbers.js';

type Blocks = Record<string, Record<string, number | null> | undefined>;

/** The fields of the API's activity details this page reads. */
export interface ActivityDetailsView {
  id: string;
  sport: string;
  start: string;
  start_local: string;
  end_local: string;
  duration: string;
  tags: string[];
  devices: string[];
  distance: number | null;
  summary: Blocks | null;
  laps: (Blocks & { start: string; duration: string })[] | null;
}

export interface ActivityView {
  activity: ActivityDetailsView;
  series: { elapsed: Float64Array; duration: number; panels: SeriesPanel[] } | null;
  meanMax: { metric: 'power' | 'speed'; points: { duration: number; value: number }[] } | null;
  /** The numbers endpoint's answer and the GPS fixes; absent on a page that shows none. */
  numbers?: NumbersView | null;
  /** The athlete's notes (not in the API's details) and the corrections form; absent on a page that offers none. */
  notes?: string | null;
  corrections?: CorrectionsForm | null;
  notice?: string | null;
  /** A team member's activity seen by their coach: the member's name for the heading, their pages' prefix for the crumb. */
  owner?: { name: string; base: string } | null;
}

const PEAKS = [5, 60, 300, 1200, 3600] as const;

const has = (value: number | null | undefined): value is number => value !== null && value !== undefined;

function summaryStats(activity: ActivityDetailsView): Html[] {
  const s: Blocks = activity.summary ?? {};
  const out: Html[] = [];
  const start = localParts(activity.start_local);
  const end = localParts(activity.end_local);
  out.push(stat('Duration', clockOf(secondsOf(activity.duration)), '', `${start.time}–${end.time}`));
  const distance = s.distance?.sum ?? activity.distance;
  if (has(distance)) out.push(stat('Distance', oneDecimal(distance / 1000), 'km'));
  if (has(s.power?.mean)) out.push(stat('Avg power', whole(s.power.mean), 'W', has(s.power.max) ? `max ${whole(s.power.max)} W` : null));
  if (has(s.heart_rate?.mean)) out.push(stat('Avg heart rate', whole(s.heart_rate.mean), 'bpm', has(s.heart_rate.max) ? `max ${whole(s.heart_rate.max)} bpm` : null));
  if (has(s.speed?.mean) && usesPace(activity.sport)) {
    const cap = paceCap(activity.sport);
    out.push(stat('Avg pace', paceOfSpeed(s.speed.mean, cap), '/km', has(s.speed.max) ? `fastest ${paceOfSpeed(s.speed.max, cap)} /km` : null));
  } else if (has(s.speed?.mean)) out.push(stat('Avg speed', oneDecimal(kmh(s.speed.mean)), 'km/h', has(s.speed.max) ? `max ${oneDecimal(kmh(s.speed.max))} km/h` : null));
  if (has(s.altitude?.gain)) out.push(stat('Elevation gain', whole(s.altitude.gain), 'm', has(s.altitude.max) ? `highest ${whole(s.altitude.max)} m` : null));
  else if (has(s.altitude?.mean)) out.push(stat('Altitude', whole(s.altitude.mean), 'm', has(s.altitude.min) && has(s.altitude.max) ? `${whole(s.altitude.min)}–${whole(s.altitude.max)} m` : null));
  if (has(s.cadence?.mean)) out.push(stat('Avg cadence', whole(s.cadence.mean), 'rpm', has(s.cadence.max) ? `max ${whole(s.cadence.max)} rpm` : null));
  if (has(s.temperature?.mean)) out.push(stat('Temperature', oneDecimal(s.temperature.mean), '°C', has(s.temperature.min) && has(s.temperature.max) ? `${oneDecimal(s.temperature.min)}–${oneDecimal(s.temperature.max)} °C` : null));
  if (has(s.core_temperature?.mean)) out.push(stat('Core temperature', oneDecimal(s.core_temperature.mean), '°C'));
  if (has(s.smo2?.mean)) out.push(stat('SmO₂', oneDecimal(s.smo2.mean), '%'));
  return out;
}

interface LapColumn {
  title: string;
  value: (lap: Blocks) => number | null | undefined;
  format: (value: number) => string;
  unit: string;
  optional?: boolean;
}

function lapColumns(sport: string): LapColumn[] {
  const speed: LapColumn = usesPace(sport)
    ? { title: 'Avg pace', value: (lap) => lap.speed?.mean, format: (v) => paceOfSpeed(v, paceCap(sport)), unit: '/km' }
    : { title: 'Avg speed', value: (lap) => lap.speed?.mean, format: (v) => oneDecimal(kmh(v)), unit: 'km/h', optional: true };
  const columns = [...LAP_COLUMNS];
  columns.splice(usesPace(sport) ? 1 : columns.length - 1, 0, speed);
  return columns;
}

const LAP_COLUMNS: readonly LapColumn[] = [
  { title: 'Distance', value: (lap) => lap.distance?.sum, format: (m) => oneDecimal(m / 1000), unit: 'km' },
  { title: 'Avg power', value: (lap) => lap.power?.mean, format: whole, unit: 'W' },
  { title: 'Max power', value: (lap) => lap.power?.max, format: whole, unit: 'W', optional: true },
  { title: 'Avg HR', value: (lap) => lap.heart_rate?.mean, format: whole, unit: 'bpm' },
  { title: 'Max HR', value: (lap) => lap.heart_rate?.max, format: whole, unit: 'bpm', optional: true },
  { title: 'Cadence', value: (lap) => lap.cadence?.mean, format: whole, unit: 'rpm', optional: true },
];

function lapsTable(activity: ActivityDetailsView): Html {
  const laps = activity.laps ?? [];
  // One lap is the whole activity again: the summary above already says it (Strava shows none either).
  if (laps.length < 2) return html``;
  const columns = lapColumns(activity.sport).filter((column) => laps.some((lap) => has(column.value(lap))));
  const t0 = Date.parse(activity.start);
  return html`<section class="panel" aria-labelledby="laps"><h2 id="laps">Laps</h2><div class="scroll"><table class="data">
<thead><tr><th scope="col">Lap</th><th scope="col" class="num opt">Start</th><th scope="col" class="num">Time</th>${columns.map((column) => html`<th scope="col" class="num${column.optional ? ' opt' : ''}">${column.title} <span class="unit">${column.unit}</span></th>`)}</tr></thead>
<tbody>${laps.map((lap, index) => html`<tr><td>${index + 1}</td><td class="num opt">${clockOf(Math.max(0, (Date.parse(lap.start) - t0) / 1000))}</td><td class="num">${clockOf(secondsOf(lap.duration))}</td>${columns.map((column) => {
    const value = column.value(lap);
    return html`<td class="num${column.optional ? ' opt' : ''}">${has(value) ? column.format(value) : html`<span class="muted">–</span>`}</td>`;
  })}</tr>`)}</tbody></table></div></section>`;
}

function meanMaxPanel(view: ActivityView): Html {
  const curve = view.meanMax;
  if (!curve || curve.points.length === 0) return html``;
  const sport = view.activity.sport;
  const kind = curve.metric === 'power' ? 'power' : usesPace(sport) ? 'pace' : 'speed';
  const unit = { power: 'W', pace: '/km', speed: 'km/h' }[kind];
  const convert = { power: (v: number) => v, pace: (v: number) => paceOf(v, paceCap(sport)), speed: kmh }[kind];
  const format = { power: whole, pace: paceText, speed: oneDecimal }[kind];
  const points = curve.points.map((point) => ({ duration: point.duration, value: convert(point.value) }));
  const peaks = PEAKS.map((seconds) => [seconds, points.find((point) => point.duration === seconds)] as const).filter(([, point]) => point !== undefined);
  return html`<section class="panel" aria-labelledby="mean-max"><div class="panel-head"><h2 id="mean-max">Mean-max ${kind}</h2><span class="muted">best average over each duration</span></div>
${peaks.length > 0 ? html`<div class="stats peaks">${peaks.map(([seconds, point]) => stat(durationLabel(seconds), format(point!.value), unit, null, { plainLabel: true }))}</div>` : null}
${meanMaxFigure([{ label: kind.slice(0, 1).toUpperCase() + kind.slice(1), color: METRIC_COLORS[curve.metric]!, points }], { unit, decimals: kind === 'power' ? 0 : 1, pace: kind === 'pace' })}
</section>`;
}

export function activityPage(view: ActivityView): PageOptions {
  const { activity } = view;
  const when = localParts(activity.start_local, true);
  const { owner } = view;
  const title = owner ? `${sportName(activity.sport)} — ${owner.name}` : sportName(activity.sport);
  const body = html`<p class="crumb">${owner ? html`<a href="${owner.base}/calendar">← Calendar — ${owner.name}</a>` : html`<a href="/training">← Activities</a>`}</p>
<div class="page-head"><div><h1>${title}</h1><p class="muted">${when.day} at ${when.time}${activity.devices.length > 0 ? html` · ${activity.devices.join(', ')}` : null}</p>
${activity.tags.length > 0 ? html`<p>${activity.tags.map((tag) => html`<span class="chip">${tag}</span>`)}</p>` : null}${view.notes ? html`<p class="notes">${view.notes}</p>` : null}</div></div>
${view.notice ? html`<p class="notice success" role="status">${view.notice}</p>` : null}
<section class="panel" aria-label="Summary"><div class="stats">${summaryStats(activity)}</div></section>
${view.numbers ? numbersSection(view.numbers) : null}
${view.series && view.series.panels.length > 0
  ? html`<section class="panel" aria-labelledby="over-time"><div class="panel-head"><h2 id="over-time">Over time</h2><span class="muted">band: range within each pixel · line: average</span></div>${timeSeriesFigure(view.series.elapsed, view.series.duration, view.series.panels)}</section>`
  : null}
${meanMaxPanel(view)}
${lapsTable(activity)}
${view.corrections ? correctionsPanel(view.corrections) : null}`;
  return athletePage({ title: `${title}, ${when.day}`, current: owner ? null : 'activities', body, style: CORRECTIONS_STYLE + NUMBERS_STYLE });
}
