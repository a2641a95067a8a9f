/**
 * The frame of the athlete's pages (/training …): the shared navigation, their CSS (added to the frame's
 * under the same CSP hash), the optional enhancement script, and the formatting every page uses (units,
 * dates, durations). Pure functions; the routes are in routes/athlete-pages.ts, kept honest by
 * test/gateway/athlete-pages.test.ts and test/browser/athlete-pages.test.ts.
 */
import { parseDuration } from '../../../domain/time.js';
import { sportLabel } from '../../../domain/sport.js';
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { SCRIPT_PATH, SCRIPT_INTEGRITY } from './client-script.js';
import { clock } from '../charts/time-series.js';

export type Section = 'activities' | 'calendar' | 'load' | 'season' | 'upload' | 'settings';

const SECTIONS: readonly [Section, string, string][] = [
  ['activities', '/training', 'Activities'],
  ['calendar', '/training/calendar', 'Calendar'], ['load', '/training/load', 'Load'],
  ['season', '/training/season', 'Season'],
  ['upload', '/training/upload', 'Upload'],
  ['settings', '/training/settings', 'Settings'],
];

const STYLE = `
main.dashboard{max-width:72rem;padding:1.25rem 1.25rem 3rem}
header.top{display:flex;align-items:center;justify-content:space-between;gap:.75rem 1rem;flex-wrap:wrap;margin:0 0 1.25rem}
header.top .mark{margin:0;text-decoration:none}
nav.athlete{display:flex;gap:.25rem;flex-wrap:wrap}
nav.athlete a{padding:.4rem .75rem;border-radius:8px;color:var(--muted);text-decoration:none;font-weight:600;font-size:.925rem;border:1px solid transparent}
nav.athlete a:hover{color:var(--ink)}
nav.athlete a[aria-current=page]{background:#fff;color:var(--ink);border-color:var(--line);box-shadow:0 1px 2px rgba(16,24,40,.05)}
.panel{background:#fff;border:1px solid var(--line);border-radius:12px;padding:1.1rem 1.25rem;margin:0 0 1rem;box-shadow:0 1px 2px rgba(16,24,40,.05);min-width:0}
.panel>h2:first-child{margin-top:0}
.panel h2{font-size:1rem;margin:0 0 .75rem}
.panel-head{display:flex;justify-content:space-between;align-items:baseline;gap:.5rem 1rem;flex-wrap:wrap;margin:0 0 .75rem}
.panel-head h2{margin:0}
.page-head{display:flex;justify-content:space-between;align-items:flex-end;gap:.5rem 1rem;flex-wrap:wrap;margin:0 0 1rem}
.page-head h1{font-size:1.6rem;margin:0;letter-spacing:-.01em}
.page-head p{margin:.2rem 0 0}
.button.action{width:auto;margin:0;padding:.55rem 1.1rem;font-size:.925rem}
.crumb{font-size:.875rem;margin:0 0 .35rem}.crumb a{text-decoration:none}
.num,.stat .value,td.num,th.num{font-variant-numeric:tabular-nums}
.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.6rem}
.stat{border:1px solid var(--line);border-radius:10px;padding:.7rem .85rem;min-width:0}
.stat .label{display:block;font-size:.72rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);font-weight:600}
.stat .value{display:block;font-size:1.4rem;font-weight:650;line-height:1.25;margin-top:.15rem;white-space:nowrap}
.stat .unit{font-size:.85rem;color:var(--muted);font-weight:500;margin-left:.2rem}
.stat .label.plain{text-transform:none;letter-spacing:0;font-size:.8rem}
.stats.peaks{grid-template-columns:repeat(auto-fill,minmax(7.5rem,1fr));margin-bottom:.75rem}.peaks .stat{padding:.55rem .75rem}.peaks .stat .value{font-size:1.2rem}
.stat .sub{display:block;font-size:.8rem;color:var(--muted);margin-top:.1rem;font-variant-numeric:tabular-nums}
table.data{width:100%;border-collapse:collapse;font-size:.9rem}
table.data th .unit{text-transform:none;letter-spacing:0;font-weight:500}
table.data th{font-size:.72rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);font-weight:600;border-top:0;border-bottom:1px solid var(--line);padding:.45rem .5rem;white-space:nowrap}
table.data td{padding:.5rem;border-top:1px solid #eef0f4;vertical-align:middle}
table.data .num{text-align:right;white-space:nowrap}
table.data tbody tr:hover{background:#f8fafc}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
figure{margin:0}figure.mean-max{margin-bottom:1rem}
svg.chart{display:block;width:100%;height:auto;touch-action:pan-y}
svg.chart-narrow{display:none}
.readout{display:block;min-height:1.4rem;font-size:.85rem;color:var(--muted);font-variant-numeric:tabular-nums}
ul.legend{display:flex;flex-wrap:wrap;gap:.35rem 1.1rem;list-style:none;padding:0;margin:.6rem 0 0;font-size:.85rem;color:var(--muted)}
ul.legend li{display:flex;align-items:center;gap:.4rem}ul.legend svg{width:1.5rem;height:.5rem}
.chip{display:inline-block;padding:.05rem .5rem;border-radius:999px;background:#eef2ff;color:#3730a3;font-size:.75rem;font-weight:600;margin:.1rem .25rem .1rem 0;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:middle}
.badge{display:inline-block;padding:.1rem .55rem;border-radius:999px;font-size:.78rem;font-weight:650;white-space:nowrap}
.badge.processing{background:#eff6ff;color:#1d4ed8}.badge.processed{background:#ecfdf3;color:#067647}.badge.failed{background:#fef3f2;color:var(--danger)}
form.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.6rem .75rem;align-items:end}
form.filters label{margin:0 0 .3rem;font-size:.8rem}
form.filters input,form.filters select{width:100%;height:2.5rem;padding:0 .6rem;border:1px solid #c5cbd5;border-radius:8px;font:inherit;font-size:.925rem;background:#fff}
form.filters button{margin:0;height:2.5rem;padding:0 1rem}
form.filters fieldset{grid-column:1/-1;border:0;padding:0;margin:0}
form.filters legend{font-weight:600;font-size:.8rem;margin:0 0 .3rem;padding:0}
.checks{display:flex;flex-wrap:wrap;gap:.4rem 1.1rem}.checks label{display:flex;align-items:center;gap:.4rem;font-weight:500;font-size:.9rem;margin:0;white-space:nowrap}
form.filters .checks input{width:1rem;height:1rem;margin:0;padding:0;accent-color:var(--accent)}
.activities{list-style:none;margin:0;padding:0}
.activities li{border-top:1px solid #eef0f4}.activities li:first-child{border-top:0}
.activity-row{display:grid;grid-template-columns:8.5rem minmax(0,1fr) 5.5rem 5.5rem 6.5rem 5.5rem 5.5rem;gap:.75rem;align-items:center;padding:.7rem .5rem;color:inherit;text-decoration:none;border-radius:8px}
a.activity-row:hover{background:#f8fafc}
.activity-row.head{font-size:.72rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);font-weight:600;padding-top:0;padding-bottom:.4rem;border-bottom:1px solid var(--line);border-radius:0}
.activity-row .when{font-size:.875rem;line-height:1.3}.activity-row .when span{display:block;color:var(--muted);font-size:.8rem}
.activity-row .what{min-width:0}.activity-row .what strong{display:block;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:var(--accent)}
.activity-row .m{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;font-size:.925rem}
.activity-row .m small{color:var(--muted);margin-left:.15rem}
.activity-row.head .m{font-size:inherit}
.pager{display:flex;justify-content:space-between;align-items:center;gap:1rem;margin-top:.75rem;font-size:.9rem}
.pager a{font-weight:600;text-decoration:none}
.empty{padding:1.5rem .5rem;text-align:center;color:var(--muted)}
.empty.welcome{padding:2.5rem 1rem}.empty.welcome p{margin:0 auto .5rem;max-width:32rem}.empty.welcome strong{color:var(--ink);font-size:1.1rem}.empty.welcome .button{margin-top:.75rem}
.grid2{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1rem;margin:0 0 1rem}.grid2>.panel{margin:0}
.drop{display:block;border:2px dashed #c5cbd5;border-radius:12px;padding:2rem 1rem;text-align:center;background:#fafbfd;margin:0;cursor:pointer;font-weight:500}
.drop strong{display:block;font-size:1.1rem;margin-bottom:.25rem}
.drop.over{border-color:var(--accent);background:#eef4ff}
.drop input[type=file]{margin:1rem auto 0;display:block;max-width:100%;font:inherit;font-size:.875rem;color:var(--muted)}
.drop input[type=file]::file-selector-button{margin-right:.75rem;padding:.45rem .9rem;border:1px solid #c5cbd5;border-radius:8px;background:#fff;color:var(--ink);font:inherit;font-weight:600;cursor:pointer}
#upload-form button{width:auto;padding:.6rem 1.4rem}
.uploads{list-style:none;margin:0;padding:0}
.uploads li{display:flex;justify-content:space-between;align-items:center;gap:.75rem;padding:.65rem 0;border-top:1px solid #eef0f4}
.uploads li:first-child{border-top:0}
.uploads .file{min-width:0}.uploads .file strong{display:block;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.uploads .file span{font-size:.85rem;color:var(--muted)}.uploads .file .error-text{color:var(--danger)}
.uploads .state{display:flex;align-items:center;gap:.6rem;flex:none}
.uploads .state a{font-weight:600;font-size:.9rem;text-decoration:none;padding:.2rem .6rem;border:1px solid var(--line);border-radius:8px}.uploads .state a:hover{background:#f8fafc}
.js .nojs{display:none}
@media (max-width:760px){
main.dashboard{padding:1rem .75rem 2rem}
header.top{margin-bottom:1rem}
nav.athlete{width:100%;display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:.25rem}
nav.athlete a{padding:.45rem .2rem;text-align:center;font-size:.875rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;border-color:#eef0f4}
table.data th,table.data th.num{white-space:normal;padding:.4rem .35rem}table.data td{padding:.45rem .35rem}table.data th .unit{display:block}
.stats.peaks{grid-template-columns:repeat(3,minmax(0,1fr))}
.grid2{grid-template-columns:minmax(0,1fr)}
.activity-row{grid-template-columns:auto auto auto auto minmax(0,1fr);grid-template-areas:"what what what when when" "dur dist spd pow hr";gap:.25rem .85rem;padding:.7rem .25rem}
.activity-row .what{grid-area:what}.activity-row .when{grid-area:when;text-align:right;white-space:nowrap}
.activity-row .dur{grid-area:dur}.activity-row .dist{grid-area:dist}.activity-row .spd{grid-area:spd}.activity-row .pow{grid-area:pow}.activity-row .hr{grid-area:hr}.activity-row .m{text-align:left;font-size:.875rem;color:#374151}
.activity-row.head{display:none}
.panel{padding:.9rem .85rem}
.stats{grid-template-columns:repeat(2,minmax(0,1fr))}
.stat .value{font-size:1.2rem}
table.data .opt{display:none}
}
@media (max-width:640px){svg.chart-wide{display:none}svg.chart-narrow{display:block}}
`;

export function athleteNav(current: Section | null): Html {
  return html`<nav class="athlete" aria-label="Training">${SECTIONS.map(([section, href, label]) => html`<a href="${href}"${section === current ? html` aria-current="page"` : null}>${label}</a>`)}<a href="/account">Account</a></nav>`;
}

/** A page of the athlete's section: the dashboard frame, the nav with `current` marked, the script. */
export function athletePage(view: { title: string; current: Section | null; body: Html; style?: string }): PageOptions {
  return {
    title: view.title,
    body: view.body,
    dashboard: { nav: athleteNav(view.current) },
    extraStyle: STYLE + (view.style ?? ''),
    script: { src: SCRIPT_PATH, integrity: SCRIPT_INTEGRITY },
  };
}

/** An unknown activity, or another person's: the same page, so nothing says which. */
export function athleteNotFound(): PageOptions {
  return athletePage({
    title: 'Not found', current: null,
    body: html`<section class="panel"><h1>Not found</h1><p>There is nothing here, or it is not yours to see.</p><p><a href="/training">Back to your activities</a></p></section>`,
  });
}

// ---- formatting ----

const number = (decimals: number) => new Intl.NumberFormat('en-GB', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
const WHOLE = number(0);
const ONE = number(1);

export function whole(value: number): string {
  return WHOLE.format(value);
}

export function oneDecimal(value: number): string {
  return ONE.format(value);
}

/** Seconds → "2:19:17", or "45:10" under an hour. */
export const clockOf = clock;

/** An ISO 8601 duration as the API writes it ("PT2H19M17S") → seconds, 0 when unreadable. */
export function secondsOf(duration: string): number {
  return parseDuration(duration) ?? 0;
}

/** m/s → km/h. */
export function kmh(metresPerSecond: number): number {
  return metresPerSecond * 3.6;
}

/** "Road cycling" from `cycling.road` (the taxonomy's label, capitalised). */
export function sportName(sport: string): string {
  const label = sportLabel(sport) ?? sport;
  return label.slice(0, 1).toUpperCase() + label.slice(1);
}

const DAY = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const LONG_DAY = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });

/** A naive local date-time ("2019-09-20T16:12:03") as the athlete read it then: "Fri, 20 Sept 2019" and "16:12". */
export function localParts(local: string, long = false): { day: string; time: string } {
  const date = new Date(`${local}Z`);
  if (Number.isNaN(date.getTime())) return { day: local, time: '' };
  return { day: (long ? LONG_DAY : DAY).format(date), time: TIME.format(date) };
}

/** A value with its unit in the stat style. */
export function stat(label: string, value: string, unit: string, sub?: string | null, options: { plainLabel?: boolean } = {}): Html {
  return html`<div class="stat"><span class="label${options.plainLabel ? ' plain' : ''}">${label}</span><span class="value">${value}${unit ? html`<span class="unit">${unit}</span>` : null}</span>${sub ? html`<span class="sub">${sub}</span>` : null}</div>`;
}
