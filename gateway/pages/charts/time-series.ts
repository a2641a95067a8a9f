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
import { bucketize } from './buckets.js';
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
}

const PANEL = { title: 22, plot: 96, gap: 14 } as const;
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
    const buckets = bucketize(elapsed, panel.values, 0, duration, count);
    let low = Infinity;
    let high = -Infinity;
    for (let b = 0; b < count; b++) {
      if (buckets.min[b]! < low) low = buckets.min[b]!;
      if (buckets.max[b]! > high) high = buckets.max[b]!;
    }
    if (!Number.isFinite(low)) return;
    if (panel.fromZero) low = Math.min(0, low);
    if (high - low < 1e-9) high = low + 1;
    const y = scaleLinear().domain([low, high]).nice(4).range([bottom, plotTop + 2]);
    const color = METRIC_COLORS[panel.metric] ?? '#334155';
    const at = (b: number) => size.left + ((b + 0.5) * plotWidth) / count;
    const defined = (b: number) => !Number.isNaN(buckets.mean[b]!);
    const indices = Array.from({ length: count }, (_, b) => b);
    const grid = y.ticks(3).map((value) => html`<line x1="${size.left}" x2="${size.left + plotWidth}" y1="${px(y(value))}" y2="${px(y(value))}" stroke="#e5e7eb"/><text x="${size.left - 6}" y="${px(y(value) + 4)}" text-anchor="end" fill="#6b7280">${value.toLocaleString('en-GB')}</text>`);
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
    const means = Array.from(buckets.mean, (value) => (Number.isNaN(value) ? '' : value.toFixed(panel.decimals))).join(',');
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
