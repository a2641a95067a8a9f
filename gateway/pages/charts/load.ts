/**
 * The training-load chart (ANALYTICS.md §10): one bar per day for the day's load, and the fitness (42 d),
 * fatigue (7 d) and form lines over the same days, on one value axis (form may be negative: the axis then
 * reaches below zero). Drawn at both sizes (svg.ts); each bar carries its day's numbers as data attributes
 * (`data-date`, `data-load`, `data-fitness`, `data-fatigue`, `data-form`) for the read-out and the tests.
 * Kept honest by test/gateway/training-hub-pages.test.ts and test/browser/training-hub.test.ts.
 */
import { scaleLinear } from 'd3-scale';
import { line } from 'd3-shape';
import { html, type Html } from '../html.js';
import { px, SIZES, svg, type ChartSize } from './svg.js';

export interface LoadPoint {
  date: string;
  load: number;
  fitness: number;
  fatigue: number;
  form: number;
}

export const LOAD_COLORS = { load: '#94a3b8', fitness: '#2563eb', fatigue: '#db2777', form: '#059669' } as const;
export const LOAD_LINES = [['fitness', 'Fitness'], ['fatigue', 'Fatigue'], ['form', 'Form']] as const;

const TOP = 10;
const PLOT = 220;
const AXIS = 24;
const SHORT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

function figure(size: ChartSize, days: readonly LoadPoint[]): Html {
  const values = days.flatMap((day) => [day.load, day.fitness, day.fatigue, day.form]);
  const y = scaleLinear().domain([Math.min(0, ...values), Math.max(10, ...values)]).nice(size.ticks).range([TOP + PLOT, TOP]);
  const step = (size.width - size.left - size.right) / days.length;
  const x = (index: number): number => size.left + step * (index + 0.5);
  const zero = y(0);
  const barWidth = Math.max(0.6, step * 0.7);
  const ticks = y.ticks(size.ticks / 2);
  const grid = ticks.map((tick) => html`<line x1="${size.left}" x2="${size.width - size.right}" y1="${px(y(tick))}" y2="${px(y(tick))}" stroke="${tick === 0 ? '#94a3b8' : '#eef0f4'}"/><text x="${size.left - 6}" y="${px(y(tick) + 4)}" text-anchor="end" fill="#667085">${tick}</text>`);
  const labelEvery = Math.max(1, Math.ceil(days.length / (size.ticks * 1.5)));
  const dates = days.flatMap((day, index) => (index % labelEvery === 0
    ? [html`<text x="${px(x(index))}" y="${TOP + PLOT + 16}" text-anchor="middle" fill="#667085">${SHORT.format(new Date(`${day.date}T00:00:00Z`))}</text>`]
    : []));
  const bars = days.map((day, index) => html`<rect class="day" x="${px(x(index) - barWidth / 2)}" y="${px(Math.min(y(day.load), zero))}" width="${px(barWidth)}" height="${px(Math.abs(zero - y(day.load)))}" fill="${LOAD_COLORS.load}" data-date="${day.date}" data-load="${String(day.load)}" data-fitness="${String(day.fitness)}" data-fatigue="${String(day.fatigue)}" data-form="${String(day.form)}"/>`);
  const lines = LOAD_LINES.map(([key]) => {
    const path = line<LoadPoint>().x((_, index) => x(index)).y((day) => y(day[key]))(days as LoadPoint[]) ?? '';
    return html`<path class="line" data-line="${key}" d="${path.replace(/\d+\.\d+/g, (n) => px(Number(n)))}" fill="none" stroke="${LOAD_COLORS[key]}" stroke-width="2"${key === 'form' ? html` stroke-dasharray="5 3"` : null}/>`;
  });
  return svg(size, TOP + PLOT + AXIS, 'Daily load bars with fitness, fatigue and form lines', html`${grid}${dates}${bars}${lines}`);
}

/** The chart at both sizes with its legend, or null when there are no days. */
export function loadFigure(days: readonly LoadPoint[]): Html | null {
  if (days.length === 0) return null;
  const legend = [
    html`<li><svg viewBox="0 0 24 8" aria-hidden="true"><rect x="6" y="0" width="12" height="8" fill="${LOAD_COLORS.load}"/></svg>Load</li>`,
    ...LOAD_LINES.map(([key, label]) => html`<li><svg viewBox="0 0 24 8" aria-hidden="true"><line x1="0" x2="24" y1="4" y2="4" stroke="${LOAD_COLORS[key]}" stroke-width="3"${key === 'form' ? html` stroke-dasharray="5 3"` : null}/></svg>${label}</li>`),
  ];
  return html`<figure class="load">${SIZES.map((size) => figure(size, days))}<ul class="legend">${legend}</ul></figure>`;
}
