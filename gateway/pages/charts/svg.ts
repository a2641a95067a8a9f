/**
 * Shared pieces of the server-rendered charts: the two sizes every chart is drawn at (a wide one, and a
 * narrow one the page swaps in on a phone, so axis text stays at its real size instead of being scaled down
 * with the drawing), number formatting for path data, and the colours of each metric. Presentation
 * attributes only: the pages' CSP allows no inline `style` attribute.
 */
import { html, trusted, type Html } from '../html.js';

export interface ChartSize {
  name: 'wide' | 'narrow';
  width: number;
  /** Left margin for the value axis, px. */
  left: number;
  right: number;
  /** How many ticks an axis aims for. */
  ticks: number;
  /** Width of a time-series bucket, px of the viewBox (the wide chart is drawn at about 1.1 screen px per unit). */
  bucket: number;
}

export const SIZES: readonly ChartSize[] = [
  { name: 'wide', width: 1000, left: 44, right: 12, ticks: 8, bucket: 2 },
  { name: 'narrow', width: 360, left: 38, right: 8, ticks: 4, bucket: 1.5 },
];

export const METRIC_COLORS: Record<string, string> = {
  power: '#7c3aed',
  heart_rate: '#dc2626',
  speed: '#0284c7',
  altitude: '#64748b',
  cadence: '#d97706',
};

/** A coordinate with at most one decimal: shorter path data, no visible difference. */
export function px(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** `<svg>` of `size` (a viewBox scaled to the container's width) with the drawing `inner`. */
export function svg(size: ChartSize, height: number, label: string, inner: Html, data: Record<string, string> = {}): Html {
  const attributes = Object.entries(data).map(([key, value]) => html` data-${trusted(key)}="${value}"`);
  return html`<svg class="chart chart-${size.name}" viewBox="0 0 ${size.width} ${height}" role="img" aria-label="${label}" font-size="11" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif"${attributes}>${inner}</svg>`;
}
