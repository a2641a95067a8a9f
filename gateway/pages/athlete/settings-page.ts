/**
 * The athlete's markers and settings page (/training/settings, issue 28 items 4 and 7): one form that
 * declares critical power or FTP, maximum and resting heart rate, threshold pace and body mass, with each
 * field's error beside it; then, in one section the script can refresh (`#derived`), the values that win
 * on today's maps with their provenance, the metabolic maps, the zones they produce and what is missing
 * for a model or for training load, in words with what to do next. While the maps are being recomputed
 * after a change the section says so, and the script (settings-script.ts) polls until it resolves.
 * Pure renderers for routes/athlete-settings.ts; kept honest by test/gateway/athlete-settings.test.ts
 * and test/browser/athlete-settings.test.ts.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { athletePage } from './frame.js';

/** The form's fields, as typed (strings: a refused value is shown back as it was sent). */
export interface SettingsValues {
  power_kind: 'critical_power' | 'ftp';
  power: string;
  heart_rate_max: string;
  resting_hr: string;
  threshold_pace: string;
  body_mass: string;
  date: string;
}
export type SettingsField = Exclude<keyof SettingsValues, 'power_kind'>;

/** A value that wins today, with where it came from in words ("declared on 2026-11-27"). */
export interface CurrentValue {
  label: string;
  /** Formatted with its unit, or null when there is none. */
  value: string | null;
  provenance: string | null;
  /** What to do when there is no value. */
  missing: string;
}

export interface MapView {
  title: string;
  /** Marker label, formatted value, provenance; null with a problem. */
  markers: { label: string; value: string; provenance: string }[] | null;
  problem: string | null;
}

export interface ZonesView {
  title: string;
  zones: { name: string; label: string; range: string }[] | null;
  problem: string | null;
}

export interface DerivedView {
  current: CurrentValue[];
  maps: MapView[];
  zones: ZonesView[];
  /** Sentences: what a model or training load still needs and what to do. */
  missing: string[];
  /** "12 of your 14 activities in the last 90 days have a load." or null. */
  load: string | null;
}

/** The derived section: its content, still being recomputed, or not available. */
export type DerivedState = { state: 'ready'; view: DerivedView } | { state: 'recomputing' } | { state: 'unavailable' };

export interface SettingsView {
  csrfToken: string;
  values: SettingsValues;
  errors: Partial<Record<SettingsField | 'form', string>>;
  notice: string | null;
  derived: DerivedState;
  script: { src: string; integrity: string };
}

/** Where the script polls the derived section. */
export const DERIVED_PATH = '/training/settings/derived';

const STYLE = `
form.settings{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:.9rem 1rem;align-items:start}
form.settings .field label{margin:0 0 .3rem;font-size:.85rem}
form.settings .field input,form.settings .field select{width:100%;height:2.5rem;padding:0 .6rem;border:1px solid #c5cbd5;border-radius:8px;font:inherit;font-size:.95rem;background:#fff;box-sizing:border-box}
form.settings .power-row{display:grid;grid-template-columns:minmax(0,1fr) 6.5rem;gap:.4rem}
form.settings .hint{display:block;font-size:.78rem;color:var(--muted);margin-top:.25rem}
form.settings .actions{grid-column:1/-1;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
form.settings .actions button{width:auto;margin:0;padding:.6rem 1.4rem}
form.settings [aria-invalid=true]{border-color:var(--danger)}
.field-error{color:var(--danger);font-size:.825rem;margin:.3rem 0 0}
dl.current{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.6rem;margin:0}
dl.current div{border:1px solid var(--line);border-radius:10px;padding:.6rem .8rem;min-width:0}
dl.current dt{font-size:.72rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);font-weight:600}
dl.current dd{margin:.15rem 0 0}dl.current .v{font-size:1.25rem;font-weight:650;font-variant-numeric:tabular-nums}
dl.current .p{display:block;font-size:.8rem;color:var(--muted)}dl.current .none{color:var(--muted);font-size:.9rem}
ul.missing{margin:0;padding-left:1.2rem}ul.missing li{margin:.25rem 0}
.zone-bar{display:flex;height:.6rem;border-radius:4px;overflow:hidden;margin:.2rem 0 .6rem}
.zone-bar span{flex:1}
.z1{background:#cbd5e1}.z2{background:#93c5fd}.z3{background:#86efac}.z4{background:#fde047}.z5{background:#fdba74}.z6{background:#f87171}.z7{background:#c084fc}
.recomputing{display:flex;align-items:center;gap:.6rem;color:var(--muted)}
.recomputing progress{width:8rem}
@media (max-width:760px){form.settings{grid-template-columns:minmax(0,1fr)}dl.current{grid-template-columns:repeat(2,minmax(0,1fr))}}
`;

function fieldError(errors: SettingsView['errors'], field: SettingsField): Html | null {
  const message = errors[field];
  return message ? html`<p class="field-error" id="${field}-error" role="alert">${message}</p>` : null;
}

function described(errors: SettingsView['errors'], field: SettingsField): Html | null {
  return errors[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : null;
}

function input(view: SettingsView, field: SettingsField, attributes: { label: string; hint: string; mode: 'numeric' | 'decimal' | 'text'; placeholder: string }): Html {
  return html`<div class="field"><label for="${field}">${attributes.label}</label>
<input id="${field}" name="${field}" inputmode="${attributes.mode}" autocomplete="off" maxlength="20" placeholder="${attributes.placeholder}" value="${view.values[field]}"${described(view.errors, field)}>
<span class="hint">${attributes.hint}</span>${fieldError(view.errors, field)}</div>`;
}

function powerField(view: SettingsView): Html {
  const option = (kind: SettingsValues['power_kind'], label: string) => html`<option value="${kind}"${view.values.power_kind === kind ? html` selected` : null}>${label}</option>`;
  return html`<div class="field"><label for="power">Cycling power</label>
<div class="power-row"><input id="power" name="power" inputmode="numeric" autocomplete="off" maxlength="20" placeholder="W" value="${view.values.power}"${described(view.errors, 'power')}>
<select name="power_kind" aria-label="Which power">${option('critical_power', 'CP')}${option('ftp', 'FTP')}</select></div>
<span class="hint">Watts: critical power, or FTP (your threshold power)</span>${fieldError(view.errors, 'power')}</div>`;
}

function currentValues(current: CurrentValue[]): Html {
  return html`<dl class="current">${current.map((item) => html`<div><dt>${item.label}</dt><dd>${item.value === null
    ? html`<span class="none">None. ${item.missing}</span>`
    : html`<span class="v">${item.value}</span><span class="p">${item.provenance}</span>`}</dd></div>`)}</dl>`;
}

function mapPanel(map: MapView): Html {
  return html`<section class="panel"><h2>${map.title}</h2>${map.markers === null
    ? html`<p class="muted">${map.problem}</p>`
    : html`<div class="scroll"><table class="data"><thead><tr><th>Marker</th><th class="num">Value</th><th>Provenance</th></tr></thead><tbody>${map.markers.map((marker) => html`<tr><td>${marker.label}</td><td class="num">${marker.value}</td><td>${marker.provenance}</td></tr>`)}</tbody></table></div>`}</section>`;
}

function zonesPanel(zones: ZonesView): Html {
  return html`<section class="panel"><h2>${zones.title}</h2>${zones.zones === null
    ? html`<p class="muted">${zones.problem}</p>`
    : html`<div class="zone-bar" aria-hidden="true">${zones.zones.map((_zone, index) => html`<span class="z${index + 1}"></span>`)}</div>
<div class="scroll"><table class="data zones"><thead><tr><th>Zone</th><th>Name</th><th class="num">Range</th></tr></thead><tbody>${zones.zones.map((zone) => html`<tr><td>${zone.name}</td><td>${zone.label}</td><td class="num">${zone.range}</td></tr>`)}</tbody></table></div>`}</section>`;
}

/** The section the script replaces: ready content, a recomputing state, or an apology. */
export function derivedSection(derived: DerivedState): Html {
  if (derived.state === 'recomputing') {
    return html`<div id="derived" data-state="recomputing" data-src="${DERIVED_PATH}" aria-live="polite" aria-busy="true">
<section class="panel"><p class="recomputing" role="status"><progress aria-label="Recomputing"></progress><span>Recomputing your metabolic maps, zones and training load…</span></p>
<p class="nojs"><a href="/training/settings">Show the recomputed values</a></p></section></div>`;
  }
  if (derived.state === 'unavailable') {
    return html`<div id="derived" data-state="unavailable" aria-live="polite"><section class="panel"><p class="notice error" role="alert">The analysis service did not answer, so your maps and zones cannot be shown right now. Your values are saved; reload the page in a moment.</p></section></div>`;
  }
  const { view } = derived;
  return html`<div id="derived" data-state="ready" aria-live="polite">
<section class="panel" aria-labelledby="current-head"><h2 id="current-head">Your values today</h2>${currentValues(view.current)}</section>
<section class="panel" aria-labelledby="missing-head"><h2 id="missing-head">What is missing</h2>${view.missing.length === 0
    ? html`<p>Nothing: your maps, zones and training load have what they need.</p>`
    : html`<ul class="missing">${view.missing.map((line) => html`<li>${line}</li>`)}</ul>`}${view.load ? html`<p class="muted">${view.load}</p>` : null}</section>
<h2 class="section-title">Metabolic maps</h2>
<div class="grid2">${view.maps.map(mapPanel)}</div>
<h2 class="section-title">Zones</h2>
<div class="grid2">${view.zones.map(zonesPanel)}</div>
</div>`;
}

export function settingsPage(view: SettingsView): PageOptions {
  const body = html`<div class="page-head"><div><h1>Settings</h1><p class="muted">Declare what you know from a test or your device; an empty field is left as it is. Declared values beat the model for 90 days.</p></div></div>
${view.notice ? html`<p class="notice success" role="status">${view.notice}</p>` : null}
${view.errors.form ? html`<p class="notice error" role="alert">${view.errors.form}</p>` : null}
<section class="panel" aria-labelledby="declare-head"><h2 id="declare-head">Declare your markers</h2>
<form class="settings" method="post" action="/training/settings" novalidate>
<input type="hidden" name="csrf" value="${view.csrfToken}">
${powerField(view)}
${input(view, 'heart_rate_max', { label: 'Maximum heart rate', hint: 'Beats per minute; for cycling and running', mode: 'numeric', placeholder: 'bpm' })}
${input(view, 'resting_hr', { label: 'Resting heart rate', hint: 'Beats per minute, on waking (a daily value)', mode: 'numeric', placeholder: 'bpm' })}
${input(view, 'threshold_pace', { label: 'Threshold pace (running)', hint: 'Minutes:seconds per km, e.g. 4:30', mode: 'text', placeholder: 'min:ss /km' })}
${input(view, 'body_mass', { label: 'Body mass', hint: 'Kilograms (a daily value)', mode: 'decimal', placeholder: 'kg' })}
${input(view, 'date', { label: 'Date measured', hint: 'YYYY-MM-DD; today when empty', mode: 'text', placeholder: 'YYYY-MM-DD' })}
<div class="actions"><button type="submit">Save</button><span class="muted">Saved values show in the API at /api/v1/profile/markers and /api/v1/dailies.</span></div>
</form></section>
${derivedSection(view.derived)}`;
  return { ...athletePage({ title: 'Settings', current: 'settings', body, style: STYLE + '.section-title{font-size:1.1rem;margin:1.25rem 0 .6rem}' }), script: view.script };
}
