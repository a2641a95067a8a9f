/**
 * The activity's metrics over time as one SVG per size: a panel per metric (power, heart rate, speed,
 * altitude, cadence — whichever the activity has) stacked on a shared elapsed-time axis. Each panel buckets
 * its samples per pixel column (buckets.ts) and draws the min–max band under the mean line, so no peak is
 * dropped however long the ride; altitude is drawn as a filled profile. Bucket means ride along as data
 * attributes for the optional hover read-out (pages/athlete/client-script.ts); the chart is complete without it.
 * Kept honest by test/gateway/athlete-pages.test.ts (structure) and the Chromium screenshots.
 */
import { scaleLinear } from 'd3-scale';
import { area, line } from 'd3-shape';
import { html, type Html } from '../html.js';
import { bridgeGaps, bucketize, type Buckets } from './buckets.js';
import { paceAxis, paceOf, paceText, quantile } from './pace.js';
import { METRIC_COLORS, px, SIZES, svg, type ChartSize } from './svg.js';

export interface SeriesPanel {
  metric: string;
  /** "Power", "Heart rate" … */
  label: string;
  /** "W", "bpm", "km/h", "m", "rpm". */
  unit: string;
  /** Values in display units, NaN where missing, aligned with `elapsed`. */
  values: Float64Array;
  /** Decimals of read-outs and tick labels. */
  decimals: number;
  /** Filled profile (altitude) instead of band and line. */
  profile?: boolean;
  /** Axis from zero (power, cadence) instead of fitted to the data. */
  fromZero?: boolean;
  /**
   * Drawn as pace (charts/pace.ts): `values` are m/s, bucketed as speed and then written as min:ss per km,
   * faster at the top, anything slower than `cap` (s/km, standing still) at the cap; `unit` is "/km".
   */
  pace?: { cap: number };
}

const PANEL = { title: 22, plot: 96, gap: 14 } as const;
/** Longest gap without samples drawn across, s: smart recording writes every 1–14 s; a longer gap is a pause. */
const BRIDGE_SECONDS = 15;
const AXIS = 26;

/** Seconds → "1:05:00" (or "5:00" under an hour). */
export function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(rest).padStart(2, '0')}` : `${m}:${String(rest).padStart(2, '0')}`;
}

/** Tick positions on the time axis: a round step giving at most `target` ticks. */
export function timeTicks(duration: number, target: number): number[] {
  const steps = [30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 14400];
  const step = steps.find((candidate) => duration / candidate <= target) ?? 21600;
  const ticks: number[] = [];
  for (let t = 0; t <= duration + 1e-9; t += step) ticks.push(t);
  return ticks;
}

function tickLabel(seconds: number, duration: number): string {
  if (duration < 3600) return `${Math.round(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}`;
}

/** A value axis fitted to the buckets' range (from zero when asked), on d3's round ticks; null when empty. */
function valueAxis(buckets: Buckets, fromZero: boolean): { domain: [number, number]; ticks: number[] } | null {
  let low = Infinity;
  let high = -Infinity;
  for (let b = 0; b < buckets.count; b++) {
    if (buckets.min[b]! < low) low = buckets.min[b]!;
    if (buckets.max[b]! > high) high = buckets.max[b]!;
  }
  if (!Number.isFinite(low)) return null;
  if (fromZero) low = Math.min(0, low);
  if (high - low < 1e-9) high = low + 1;
  const scale = scaleLinear().domain([low, high]).nice(4);
  return { domain: scale.domain() as [number, number], ticks: scale.ticks(3) };
}

/** Speed buckets (m/s) as pace buckets (s/km, capped): the fastest pace is the highest speed. */
export function paceBuckets(speeds: Buckets, cap: number): Buckets {
  const pace = (values: Float64Array) => values.map((value) => paceOf(value, cap));
  return { count: speeds.count, min: pace(speeds.max), max: pace(speeds.min), mean: pace(speeds.mean) };
}

/**
 * The pace axis, slow end at the bottom: from the fastest 1 % of the buckets to the slowest 2 % of the means
 * of buckets in motion (a stop's band runs off the bottom edge rather than squashing the running into a
 * strip), never past the cap; round ticks (charts/pace.ts). Null when there is no pace.
 */
export function fittedPaceAxis(buckets: Buckets, cap: number): { domain: [number, number]; ticks: number[] } | null {
  const fastest = quantile(buckets.min, 0.01);
  const moving = buckets.mean.filter((value) => value < cap);
  const slowest = moving.length > 0 ? quantile(moving, 0.98) : cap;
  if (Number.isNaN(fastest) || Number.isNaN(slowest)) return null;
  const axis = paceAxis(fastest, Math.max(fastest, slowest), 3);
  return { domain: [axis.slow, axis.fast], ticks: axis.ticks };
}

function panelSvg(size: ChartSize, elapsed: Float64Array, duration: number, panels: readonly SeriesPanel[]): Html {
  const plotWidth = size.width - size.left - size.right;
  const count = Math.max(1, Math.round(plotWidth / size.bucket));
  const x = scaleLinear().domain([0, duration]).range([size.left, size.left + plotWidth]);
  const height = panels.length * (PANEL.title + PANEL.plot + PANEL.gap) + AXIS;
  const parts: Html[] = [];
  const ticks = timeTicks(duration, size.ticks);
  panels.forEach((panel, index) => {
    const top = index * (PANEL.title + PANEL.plot + PANEL.gap);
    const plotTop = top + PANEL.title;
    const bottom = plotTop + PANEL.plot;
    const speeds = bucketize(elapsed, panel.values, 0, duration, count);
    bridgeGaps(speeds, duration / count, BRIDGE_SECONDS);
    const buckets = panel.pace ? paceBuckets(speeds, panel.pace.cap) : speeds;
    const axis = panel.pace ? fittedPaceAxis(buckets, panel.pace.cap) : valueAxis(buckets, panel.fromZero ?? false);
    if (axis === null) return;
    const y = scaleLinear().domain(axis.domain).range([bottom, plotTop + 2]).clamp(true);
    const text = (value: number): string => (panel.pace ? paceText(value) : value.toFixed(panel.decimals));
    const color = METRIC_COLORS[panel.metric] ?? '#334155';
    const at = (b: number) => size.left + ((b + 0.5) * plotWidth) / count;
    const defined = (b: number) => !Number.isNaN(buckets.mean[b]!);
    const indices = Array.from({ length: count }, (_, b) => b);
    const grid = axis.ticks.map((value) => html`<line x1="${size.left}" x2="${size.left + plotWidth}" y1="${px(y(value))}" y2="${px(y(value))}" stroke="#e5e7eb"/><text x="${size.left - 6}" y="${px(y(value) + 4)}" text-anchor="end" fill="#6b7280">${panel.pace ? paceText(value) : value.toLocaleString('en-GB')}</text>`);
    const verticals = ticks.map((t) => html`<line x1="${px(x(t))}" x2="${px(x(t))}" y1="${plotTop}" y2="${bottom}" stroke="#f1f5f9"/>`);
    let drawing: Html;
    if (panel.profile) {
      const fill = area<number>().digits(1).defined(defined).x(at).y0(bottom).y1((b) => y(buckets.mean[b]!))(indices) ?? '';
      const edge = line<number>().digits(1).defined(defined).x(at).y((b) => y(buckets.mean[b]!))(indices) ?? '';
      drawing = html`<path d="${fill}" fill="${color}" fill-opacity="0.18"/><path d="${edge}" fill="none" stroke="${color}" stroke-width="1.5"/>`;
    } else {
      const band = area<number>().digits(1).defined(defined).x(at).y0((b) => y(buckets.min[b]!)).y1((b) => y(buckets.max[b]!))(indices) ?? '';
      const mean = line<number>().digits(1).defined(defined).x(at).y((b) => y(buckets.mean[b]!))(indices) ?? '';
      drawing = html`<path d="${band}" fill="${color}" fill-opacity="0.16"/><path d="${mean}" fill="none" stroke="${color}" stroke-width="1.4" stroke-linejoin="round"/>`;
    }
    const means = Array.from(buckets.mean, (value) => (Number.isNaN(value) ? '' : text(value))).join(',');
    parts.push(html`<g class="panel" data-metric="${panel.metric}" data-label="${panel.label}" data-unit="${panel.unit}" data-values="${means}">
<text x="${size.left}" y="${top + 14}" font-weight="600" font-size="12" fill="#111827">${panel.label}</text><text x="${size.left + plotWidth}" y="${top + 14}" text-anchor="end" fill="#6b7280">${panel.unit}</text>
${verticals}${grid}${drawing}<line x1="${size.left}" x2="${size.left + plotWidth}" y1="${bottom}" y2="${bottom}" stroke="#cbd5e1"/></g>`);
  });
  const axisTop = height - AXIS;
  const axis = ticks.map((t, i) => {
    const anchor = i === 0 ? 'start' : x(t) > size.left + plotWidth - 20 ? 'end' : 'middle';
    return html`<text x="${px(x(t))}" y="${axisTop + 14}" text-anchor="${anchor}" fill="#6b7280">${tickLabel(t, duration)}</text>`;
  });
  const label = `${panels.map((panel) => panel.label).join(', ')} over ${clock(duration)}`;
  return svg(size, height, label, html`${parts}${axis}<text x="${size.left + plotWidth}" y="${axisTop + 25}" text-anchor="end" fill="#9ca3af" font-size="10">elapsed time</text><line class="cursor" x1="0" x2="0" y1="0" y2="${axisTop}" stroke="#111827" stroke-width="1" visibility="hidden"/>`, {
    left: String(size.left), plot: String(plotWidth), duration: String(duration), buckets: String(count),
  });
}

/** Every panel at both sizes, in one figure; `elapsed` is seconds since the start, ascending. */
export function timeSeriesFigure(elapsed: Float64Array, duration: number, panels: readonly SeriesPanel[]): Html {
  if (panels.length === 0 || duration <= 0) return html``;
  return html`<figure class="series" data-chart="series"><output class="readout" aria-live="polite"></output>${SIZES.map((size) => panelSvg(size, elapsed, duration, panels))}</figure>`;
}
