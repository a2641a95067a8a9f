/**
 * Mean-max curves on a log-scaled duration axis (readable ticks: 5 s, 1 min, 5 min, 20 min, 1 h …), one SVG
 * per size, with a legend. Used for an activity's curve and the season's (best, each `after` fatigue state,
 * and the intensity-duration model dashed). Kept honest by test/gateway/athlete-pages.test.ts and the
 * Chromium screenshots.
 */
import { scaleLinear, scaleLog } from 'd3-scale';
import { line } from 'd3-shape';
import { html, type Html } from '../html.js';
import { paceAxis, paceText } from './pace.js';
import { px, SIZES, svg, type ChartSize } from './svg.js';

/** How the value axis reads: a number with `decimals`, or pace (s/km as min:ss, faster at the top). */
export interface CurveAxis {
  unit: string;
  decimals: number;
  pace?: boolean;
}

export interface Curve {
  label: string;
  color: string;
  /** Dashed (a model, not a measurement). */
  dashed?: boolean;
  /** Ascending durations, seconds; values in display units (s/km, capped, for a pace chart). */
  points: { duration: number; value: number }[];
}

const TICKS: readonly [number, string][] = [
  [1, '1 s'], [5, '5 s'], [15, '15 s'], [60, '1 min'], [300, '5 min'], [1200, '20 min'], [3600, '1 h'], [7200, '2 h'], [18000, '5 h'],
];
const NARROW_TICKS = new Set([5, 60, 300, 1200, 3600, 18000]);
const HEIGHT = { wide: 300, narrow: 230 } as const;

/** "5 s", "1 min", "20 min", "1 h 30 min": a duration in seconds as a person reads it. */
export function durationLabel(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return seconds % 60 === 0 ? `${seconds / 60} min` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const m = Math.round((seconds % 3600) / 60);
  return m === 0 ? `${Math.floor(seconds / 3600)} h` : `${Math.floor(seconds / 3600)} h ${m} min`;
}

function curveSvg(size: ChartSize, curves: readonly Curve[], axis: CurveAxis): Html {
  const { unit } = axis;
  const height = HEIGHT[size.name];
  const top = 24;
  const bottom = height - 28;
  const plotWidth = size.width - size.left - size.right;
  const all = curves.flatMap((curve) => curve.points);
  const longest = Math.max(...all.map((point) => point.duration));
  const highest = Math.max(...all.map((point) => point.value));
  const x = scaleLog().domain([1, Math.max(longest, 60)]).range([size.left, size.left + plotWidth]);
  const ticksWanted = size.name === 'wide' ? 5 : 4;
  let y = scaleLinear().domain([0, highest * 1.05]).nice(4).range([bottom, top]);
  let yTicks = y.ticks(ticksWanted);
  if (axis.pace) {
    const pace = paceAxis(Math.min(...all.map((point) => point.value)), highest, ticksWanted);
    y = scaleLinear().domain([pace.slow, pace.fast]).range([bottom, top]);
    yTicks = pace.ticks;
  }
  const text = (value: number): string => (axis.pace ? paceText(value) : value.toFixed(axis.decimals));
  const ticks = TICKS.filter(([seconds]) => seconds <= x.domain()[1]! && (size.name === 'wide' || NARROW_TICKS.has(seconds)));
  const grid = yTicks.map((value) => html`<line x1="${size.left}" x2="${size.left + plotWidth}" y1="${px(y(value))}" y2="${px(y(value))}" stroke="#e5e7eb"/><text x="${size.left - 6}" y="${px(y(value) + 4)}" text-anchor="end" fill="#6b7280">${axis.pace ? paceText(value) : value.toLocaleString('en-GB')}</text>`);
  const verticals = ticks.map(([seconds, label]) => html`<line x1="${px(x(seconds))}" x2="${px(x(seconds))}" y1="${top}" y2="${bottom}" stroke="#eef2f6"/><text x="${px(x(seconds))}" y="${bottom + 16}" text-anchor="${seconds === 1 ? 'start' : 'middle'}" fill="#6b7280">${label}</text>`);
  const paths = curves.map((curve) => {
    const d = line<{ duration: number; value: number }>().digits(1).x((point) => x(point.duration)).y((point) => y(point.value))(curve.points) ?? '';
    return html`<path d="${d}" fill="none" stroke="${curve.color}" stroke-width="${curve.dashed ? 1.6 : 2}" stroke-linejoin="round"${curve.dashed ? html` stroke-dasharray="6 4"` : null}/>`;
  });
  const first = curves[0]!;
  const values = first.points.map((point) => `${point.duration}:${text(point.value)}`).join(',');
  return svg(size, height, `Mean-max curve, ${unit}, log-scaled duration`, html`${grid}${verticals}<line x1="${size.left}" x2="${size.left + plotWidth}" y1="${bottom}" y2="${bottom}" stroke="#cbd5e1"/>
<text x="${size.left - 6}" y="${top - 12}" text-anchor="end" fill="#6b7280" font-size="10">${unit}</text>
${paths}<line class="cursor" x1="0" x2="0" y1="${top}" y2="${bottom}" stroke="#111827" visibility="hidden"/>`, {
    left: String(size.left), plot: String(plotWidth), 'log-max': String(x.domain()[1]), points: values, unit,
  });
}

/** The curves at both sizes with a legend (when there is more than one), or nothing when no curve has a point. */
export function meanMaxFigure(curves: readonly Curve[], options: CurveAxis): Html {
  const drawn = curves.filter((curve) => curve.points.length > 0);
  if (drawn.length === 0) return html``;
  const legend = drawn.length > 1
    ? html`<ul class="legend">${drawn.map((curve) => html`<li><svg viewBox="0 0 24 8" aria-hidden="true"><line x1="0" x2="24" y1="4" y2="4" stroke="${curve.color}" stroke-width="3"${curve.dashed ? html` stroke-dasharray="5 3"` : null}/></svg>${curve.label}</li>`)}</ul>`
    : null;
  return html`<figure class="mean-max" data-chart="mean-max"><output class="readout" aria-live="polite"></output>${SIZES.map((size) => curveSvg(size, drawn, options))}${legend}</figure>`;
}
