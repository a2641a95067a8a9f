/**
 * Time in zones as a horizontal bar chart, one SVG per size (svg.ts): a row per zone, low to high, its name,
 * label and range, a bar as long as its time relative to the longest zone, and the time with its share of
 * the time in all zones. Each bar carries `data-zone` and `data-seconds` (the API's `duration_s`, unrounded)
 * so a test or a script reads exactly what the numbers endpoint answered. Presentation attributes only (the
 * CSP allows no inline style). Kept honest by test/gateway/activity-numbers-page.test.ts.
 */
import { html, type Html } from '../html.js';
import { clock } from './time-series.js';
import { px, SIZES, svg, type ChartSize } from './svg.js';

export interface ZoneBar {
  name: string;
  label: string;
  /** The zone's range as a person reads it ("188–225 W", "faster than 4:10 /km"). */
  range: string;
  seconds: number;
}

/** Low to high intensity: slate, blue, green, yellow, orange, red, violet. */
const PALETTE = ['#94a3b8', '#3b82f6', '#22c55e', '#eab308', '#f97316', '#ef4444', '#7c3aed'] as const;

/** The colour of zone `index` of `count`, spread over the palette so the top zone is always the hottest. */
export function zoneColor(index: number, count: number): string {
  if (count <= 1) return PALETTE[1]!;
  const at = count >= PALETTE.length ? index : Math.round((index * (PALETTE.length - 1)) / (count - 1));
  return PALETTE[Math.min(PALETTE.length - 1, at)]!;
}

function share(seconds: number, total: number): string {
  return total > 0 ? `${Math.round((100 * seconds) / total)}%` : '0%';
}

function barsSvg(size: ChartSize, title: string, bars: readonly ZoneBar[]): Html {
  const longest = Math.max(1, ...bars.map((bar) => bar.seconds));
  const total = bars.reduce((sum, bar) => sum + bar.seconds, 0);
  const wide = size.name === 'wide';
  // Wide: name and label | range | bar | time. Narrow: name, label and range over time, the bar below.
  const row = wide ? 30 : 38;
  const barLeft = wide ? 330 : 0;
  const barRoom = wide ? size.width - barLeft - 120 : size.width;
  const height = bars.length * row + 4;
  const rows = bars.map((bar, index) => {
    const y = index * row;
    const length = Math.max(bar.seconds > 0 ? 2 : 0, (bar.seconds / longest) * barRoom);
    const color = zoneColor(index, bars.length);
    const value = `${clock(bar.seconds)} · ${share(bar.seconds, total)}`;
    const rect = html`<rect class="zone-bar" x="${barLeft}" y="${px(wide ? y + 7 : y + 20)}" width="${px(length)}" height="${wide ? 16 : 12}" rx="3" fill="${color}" data-zone="${bar.name}" data-seconds="${String(bar.seconds)}"><title>${bar.name} ${bar.label}, ${bar.range}: ${value}</title></rect>`;
    return wide
      ? html`<g><text x="0" y="${y + 19}" fill="#111827"><tspan font-weight="650">${bar.name}</tspan> ${bar.label}</text><text x="${barLeft - 12}" y="${y + 19}" text-anchor="end" fill="#6b7280">${bar.range}</text>${rect}<text x="${px(barLeft + length + 8)}" y="${y + 19}" fill="#374151">${value}</text></g>`
      : html`<g><text x="0" y="${y + 13}" fill="#111827"><tspan font-weight="650">${bar.name}</tspan> ${bar.label} <tspan fill="#6b7280">${bar.range}</tspan></text><text x="${size.width}" y="${y + 13}" text-anchor="end" fill="#374151">${value}</text>${rect}</g>`;
  });
  return svg(size, height, title, html`${rows}`);
}

/** The bars at both sizes; `title` names the chart for screen readers ("Time in power zones"). */
export function zoneBarsFigure(title: string, bars: readonly ZoneBar[]): Html {
  return html`<figure class="zone-bars">${SIZES.map((size) => barsSvg(size, title, bars))}</figure>`;
}
