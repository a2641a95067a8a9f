/**
 * The season page (/training/season): the longitudinal mean-max over a chosen range with the fatigue states
 * the athlete picks (`after`: the curve over the part of each activity after that much work or distance) as
 * extra curves, the intensity-duration model dashed on the same axes, and the metabolic map. When the model or
 * the map does not exist, the page says why in the API's words (its problem detail, or the empty curve's
 * meaning). Speed is pace (min:ss per km, charts/pace.ts) for a foot sport: the chart, its table, the model
 * and the map's speeds. Pure renderer for routes/athlete-pages.ts.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { durationLabel, meanMaxFigure, type Curve } from '../charts/mean-max.js';
import { paceCap, paceOf, paceText, usesPace } from '../charts/pace.js';
import { METRIC_COLORS } from '../charts/svg.js';
import { athletePage, kmh, localParts, oneDecimal, sportName, whole } from './frame.js';
import type { Point } from './table-columns.js';
import { headingOf, hubPage, memberNav, type Subject } from './hub-frame.js';

export type SeasonMetric = 'power' | 'speed';

/** The fatigue states offered, kJ for power and metres for speed (at most 5: the API's limit). */
export const AFTER_PRESETS: Record<SeasonMetric, readonly number[]> = {
  power: [500, 1000, 1500, 2000, 2500],
  speed: [10_000, 20_000, 30_000, 40_000],
};

const AFTER_COLORS = ['#f59e0b', '#ea580c', '#db2777', '#9333ea', '#1d4ed8'];

export interface SeasonForm {
  sport: string;
  metric: SeasonMetric;
  start: string;
  end: string;
  after: number[];
}

export type { Point };

export interface SeasonView {
  form: SeasonForm;
  sports: string[];
  problems: string[];
  best: Point[];
  afterCurves: { after: number; points: Point[] }[];
  /** The curve, or why there is none. */
  model: { curve: Point[] } | { reason: string };
  map: { markers: Record<string, { value: number; provenance: string } | null>; bodyMass: number } | { reason: string; title: string };
  /** Whose season: the signed-in athlete when absent, else a team member seen by their coach (hub-frame.ts). */
  subject?: Subject;
}

const KEY_DURATIONS = [5, 60, 300, 1200, 3600] as const;

export function afterLabel(metric: SeasonMetric, after: number): string {
  return metric === 'power' ? `after ${whole(after)} kJ` : `after ${oneDecimal(after / 1000)} km`;
}

const MARKERS: Record<string, { label: string; kind: 'intensity' | 'w_prime' | 'd_prime' }> = {
  fatmax: { label: 'FatMax', kind: 'intensity' },
  first_threshold: { label: 'First threshold', kind: 'intensity' },
  second_threshold: { label: 'Second threshold', kind: 'intensity' },
  critical_power: { label: 'Critical power', kind: 'intensity' },
  critical_speed: { label: 'Critical speed', kind: 'intensity' },
  max_aerobic_power: { label: 'Maximal aerobic power', kind: 'intensity' },
  max_aerobic_speed: { label: 'Maximal aerobic speed', kind: 'intensity' },
  w_prime: { label: 'W′ (work above critical power)', kind: 'w_prime' },
  d_prime: { label: 'D′ (distance above critical speed)', kind: 'd_prime' },
  mlss: { label: 'MLSS', kind: 'intensity' },
  lt1: { label: 'LT1', kind: 'intensity' },
  lt2: { label: 'LT2', kind: 'intensity' },
  vt1: { label: 'VT1', kind: 'intensity' },
  vt2: { label: 'VT2', kind: 'intensity' },
};

/** How the form's metric reads for its sport: power (W), pace (s/km, capped) or speed (km/h). */
interface Reading {
  kind: 'power' | 'pace' | 'speed';
  unit: string;
  /** The API's value (W or m/s) in display units. */
  convert: (value: number) => number;
  text: (displayed: number) => string;
}

function reading(form: SeasonForm): Reading {
  if (form.metric === 'power') return { kind: 'power', unit: 'W', convert: (value) => value, text: whole };
  if (usesPace(form.sport)) {
    const cap = paceCap(form.sport);
    return { kind: 'pace', unit: '/km', convert: (value) => paceOf(value, cap), text: paceText };
  }
  return { kind: 'speed', unit: 'km/h', convert: kmh, text: oneDecimal };
}

function display(read: Reading, points: Point[]): Point[] {
  return points.map((point) => ({ duration: point.duration, value: read.convert(point.value) }));
}

function form(view: SeasonView): Html {
  const { form: f } = view;
  return html`<section class="panel" aria-label="Range"><form class="filters" method="get" action="${view.subject?.base ?? '/training'}/season">
<div><label for="sport">Sport</label><select id="sport" name="sport">${(view.sports.length > 0 ? view.sports : [f.sport]).map((sport) => html`<option value="${sport}"${sport === f.sport ? html` selected` : null}>${sportName(sport)}</option>`)}</select></div>
<div><label for="metric">Metric</label><select id="metric" name="metric"><option value="power"${f.metric === 'power' ? html` selected` : null}>Power (W)</option><option value="speed"${f.metric === 'speed' ? html` selected` : null}>${usesPace(f.sport) ? 'Pace (min/km)' : 'Speed (km/h)'}</option></select></div>
<div><label for="start">From</label><input id="start" type="date" name="start" value="${f.start}"></div>
<div><label for="end">To</label><input id="end" type="date" name="end" value="${f.end}"></div>
<fieldset><legend>Fatigue states (the curve after that much ${f.metric === 'power' ? 'work' : 'distance'} in each activity)</legend><div class="checks">${AFTER_PRESETS[f.metric].map((after) => html`<label><input type="checkbox" name="after" value="${after}"${f.after.includes(after) ? html` checked` : null}>${afterLabel(f.metric, after)}</label>`)}</div></fieldset>
<div><button type="submit">Show</button></div>
</form></section>`;
}

function keyTable(read: Reading, curves: { label: string; points: Point[] }[]): Html {
  const unit = read.unit;
  const rows = KEY_DURATIONS.filter((seconds) => curves.some((curve) => curve.points.some((point) => point.duration === seconds)));
  if (rows.length === 0) return html``;
  return html`<div class="scroll"><table class="data"><thead><tr><th scope="col">Duration</th>${curves.map((curve) => html`<th scope="col" class="num">${curve.label} <span class="unit">${unit}</span></th>`)}</tr></thead>
<tbody>${rows.map((seconds) => html`<tr><td>${durationLabel(seconds)}</td>${curves.map((curve) => {
    const point = curve.points.find((candidate) => candidate.duration === seconds);
    return html`<td class="num">${point ? read.text(point.value) : html`<span class="muted">–</span>`}</td>`;
  })}</tr>`)}</tbody></table></div>`;
}

function curvesPanel(view: SeasonView): Html {
  const metric = view.form.metric;
  const read = reading(view.form);
  const best = display(read, view.best);
  const range = `${localParts(`${view.form.start}T00:00:00`).day} – ${localParts(`${view.form.end}T00:00:00`).day}`;
  if (best.length === 0) {
    return html`<section class="panel" aria-labelledby="best"><h2 id="best">Best efforts</h2><p class="empty">No ${sportName(view.form.sport).toLowerCase()} activity with ${metric === 'power' ? 'power' : 'speed'} in ${range}.</p></section>`;
  }
  const curves: Curve[] = [{ label: 'Best', color: METRIC_COLORS[metric]!, points: best }];
  view.afterCurves.forEach((curve, index) => curves.push({ label: afterLabel(metric, curve.after), color: AFTER_COLORS[index % AFTER_COLORS.length]!, points: display(read, curve.points) }));
  const model = 'curve' in view.model && view.model.curve.length > 0 ? display(read, view.model.curve) : null;
  if (model) curves.push({ label: 'Model', color: '#475569', dashed: true, points: model });
  const missing = view.form.after.filter((after) => !view.afterCurves.some((curve) => curve.after === after));
  return html`<section class="panel" aria-labelledby="best"><div class="panel-head"><h2 id="best">Best efforts</h2><span class="muted">${range}</span></div>
${meanMaxFigure(curves, { unit: read.unit, decimals: read.kind === 'speed' ? 1 : 0, pace: read.kind === 'pace' })}
${missing.length > 0 ? html`<p class="muted">No activity reached ${missing.map((after) => afterLabel(metric, after).replace('after ', '')).join(', ')}, so ${missing.length === 1 ? 'that state has' : 'those states have'} no curve.</p>` : null}
${keyTable(read, curves.map((curve) => ({ label: curve.label.replace(/^after /, 'After '), points: curve.points })))}
</section>`;
}

function modelPanel(view: SeasonView): Html {
  const asOf = localParts(`${view.form.end}T00:00:00`).day;
  const model = view.model;
  const read = reading(view.form);
  const body = 'reason' in model
    ? html`<p class="notice">${model.reason}</p>`
    : model.curve.length === 0
      ? html`<p class="notice">Not enough data yet: the model is fitted to best efforts in the 90 days ending ${asOf}, and there are too few of them.</p>`
      : html`<p class="muted">Fitted to best efforts in the 90 days ending ${asOf}; drawn dashed above. It keeps declining beyond about 30 minutes, so long durations sit below the thresholds of the map.</p>
<div class="stats peaks">${KEY_DURATIONS.map((seconds) => [seconds, model.curve.find((point) => point.duration === seconds)] as const).filter(([, point]) => point).map(([seconds, point]) => html`<div class="stat"><span class="label plain">${durationLabel(seconds)}</span><span class="value">${read.text(read.convert(point!.value))}<span class="unit">${read.unit}</span></span></div>`)}</div>`;
  return html`<section class="panel" aria-labelledby="model"><h2 id="model">Intensity-duration model</h2>${body}</section>`;
}

function mapPanel(view: SeasonView): Html {
  const map = view.map;
  const read = reading(view.form);
  if ('reason' in map) {
    return html`<section class="panel" aria-labelledby="map"><h2 id="map">Metabolic map</h2><p class="notice warn"><strong>${map.title}.</strong> ${map.reason}</p></section>`;
  }
  const entries = Object.entries(map.markers);
  const shown = entries.filter(([, marker]) => marker !== null) as [string, { value: number; provenance: string }][];
  const absent = entries.filter(([, marker]) => marker === null).map(([name]) => MARKERS[name]?.label ?? name);
  const valueOf = (name: string, value: number): Html => {
    const kind = MARKERS[name]?.kind ?? 'intensity';
    if (kind === 'w_prime') return html`${oneDecimal(value)} <span class="muted">kJ</span>`;
    if (kind === 'd_prime') return html`${whole(value)} <span class="muted">m</span>`;
    return html`${read.text(read.convert(value))} <span class="muted">${read.unit}</span>`;
  };
  return html`<section class="panel" aria-labelledby="map"><div class="panel-head"><h2 id="map">Metabolic map</h2><span class="muted">body mass ${oneDecimal(map.bodyMass)} kg</span></div>
${shown.length === 0 ? html`<p class="notice">No marker could be determined yet.</p>` : html`<div class="scroll"><table class="data"><thead><tr><th scope="col">Marker</th><th scope="col" class="num">Value</th><th scope="col">Source</th></tr></thead>
<tbody>${shown.map(([name, marker]) => html`<tr><td>${MARKERS[name]?.label ?? name}</td><td class="num">${valueOf(name, marker.value)}</td><td><span class="chip">${marker.provenance}</span></td></tr>`)}</tbody></table></div>`}
${absent.length > 0 ? html`<p class="muted">Not determined: ${absent.join(', ')}.</p>` : null}
</section>`;
}

export function seasonPage(view: SeasonView): PageOptions {
  const subject = view.subject ?? null;
  const body = html`${subject ? memberNav(subject, 'season') : null}<div class="page-head"><div><h1>${subject ? headingOf(subject, 'Season') : 'Season'}</h1><p class="muted">Best efforts across ${subject?.name ? `${subject.name}’s` : 'your'} ${sportName(view.form.sport).toLowerCase()} activities, and what they say about ${subject?.name ?? 'you'}.</p></div></div>
${view.problems.map((problem) => html`<p class="notice warn" role="alert">${problem}</p>`)}
${form(view)}
${curvesPanel(view)}
<div class="grid2">${modelPanel(view)}${mapPanel(view)}</div>`;
  return subject ? hubPage(subject, { title: 'Season', section: 'season', body }) : athletePage({ title: 'Season', current: 'season', body });
}
