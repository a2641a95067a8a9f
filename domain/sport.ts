/**
 * Open Sport Taxonomy (OST): parsing, canonical form, the legacy renames, sub-sport containment, labels
 * and FIT decoding (DESIGN §5, gaps "Sports", interface §9).
 *
 * The data lives in domain/data/open-sport-taxonomy/ (schema.yaml and mappings/garmin_fit.yaml, copied
 * from upstream, see its SOURCE.md); it is read and parsed once, on first use. Identity is the canonical
 * string: any well-formed sport is valid and preserved ("sports newer than the bundled taxonomy are
 * preserved, not rejected"); the catalogue only supplies labels and `isKnownSport`. Modifier groups are a
 * strictness level upstream, not a reason to reject, so they are not enforced here.
 * Kept honest by test/domain/sport.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export interface ParsedSport {
  /** Dotted code, e.g. `cycling.road`. */
  code: string;
  /** Modifiers, sorted alphabetically without duplicates. */
  modifiers: string[];
}

// "a dotted code, then zero or more +modifiers" — segments are lowercase words joined by single '_'.
const SEGMENT = '[a-z]+(?:_[a-z]+)*';
const SPORT_RE = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})*(?:\\+${SEGMENT})*$`);

export const INVALID_SPORT_MESSAGE = 'not a valid Open Sport Taxonomy sport';
/**
 * The longest sport string a request or a CSV file may carry (characters). The longest bundled code with
 * every modifier is far shorter; this leaves room for sports newer than the taxonomy ("preserved, not
 * rejected") while a 10 KB `sport` is a 422 (issue 26 item 8).
 */
export const MAX_SPORT_LENGTH = 128;

/** gaps "Sports": legacy values mapped on input before canonicalising. Exact codes; modifiers are added. */
const LEGACY_CODES: ReadonlyMap<string, { code: string; modifiers: readonly string[] }> = new Map([
  ['cycling.trainer', { code: 'cycling', modifiers: ['stationary'] }],
  ['running.treadmill', { code: 'running', modifiers: ['stationary'] }],
  ['rowing.ergometer', { code: 'rowing', modifiers: ['stationary'] }],
  ['cycling.tt', { code: 'cycling.time_trial', modifiers: [] }],
  ['cycling.mountainbike', { code: 'cycling.mountain', modifiers: [] }],
  ['unknown', { code: 'generic', modifiers: [] }],
]);
/** "`cross_country_skiing` (and any `cross_country_skiing.*` child) → `xc_skiing`" — a subtree rename. */
const LEGACY_ROOT = 'cross_country_skiing';
const OST_ROOT = 'xc_skiing';

// ---------------------------------------------------------------------------------------------------------
// Grammar and canonical form

function sortedUnique(modifiers: readonly string[]): string[] {
  return [...new Set(modifiers)].sort();
}

/**
 * Parses a sport string by the OST grammar (lowercase only, no surrounding whitespace). Modifiers come
 * back sorted and de-duplicated; legacy renames are NOT applied (see `canonicalSport`). Null when malformed.
 */
export function parseSport(text: string): ParsedSport | null {
  if (!SPORT_RE.test(text)) return null;
  const [code, ...modifiers] = text.split('+');
  return { code: code as string, modifiers: sortedUnique(modifiers) };
}

/** The canonical string of a parsed sport: code, then `+modifier`s in alphabetical order. */
export function formatSport(sport: ParsedSport): string {
  return [sport.code, ...sortedUnique(sport.modifiers)].join('+');
}

/** Applies the legacy renames of gaps "Sports" to a parsed sport, merging the legacy value's own modifiers. */
function renameLegacy(sport: ParsedSport): ParsedSport {
  const legacy = LEGACY_CODES.get(sport.code);
  if (legacy !== undefined) {
    return { code: legacy.code, modifiers: sortedUnique([...legacy.modifiers, ...sport.modifiers]) };
  }
  if (sport.code === LEGACY_ROOT || sport.code.startsWith(`${LEGACY_ROOT}.`)) {
    return { code: OST_ROOT + sport.code.slice(LEGACY_ROOT.length), modifiers: sport.modifiers };
  }
  return sport;
}

/** Parses, applies the legacy renames, and returns the canonical structure; null when malformed. */
export function parseCanonicalSport(text: string): ParsedSport | null {
  const parsed = parseSport(text);
  return parsed === null ? null : renameLegacy(parsed);
}

/**
 * The canonical OST string for an input sport: legacy renames first (`cycling.trainer` →
 * `cycling+stationary`, `cross_country_skiing.skate` → `xc_skiing.skate`, …), then modifiers sorted and
 * de-duplicated. Unknown but well-formed sports are preserved. Null when malformed.
 */
export function canonicalSport(text: string): string | null {
  const parsed = parseCanonicalSport(text);
  return parsed === null ? null : formatSport(parsed);
}

// ---------------------------------------------------------------------------------------------------------
// Containment ("in filters a parent sport also matches its sub-sports")

function contains(filter: ParsedSport, sport: ParsedSport): boolean {
  const codeMatches = sport.code === filter.code || sport.code.startsWith(`${filter.code}.`);
  return codeMatches && filter.modifiers.every((modifier) => sport.modifiers.includes(modifier));
}

/**
 * True when `sport` is a sub-sport of (or equal to) `filter`: its code equals the filter's code or
 * descends from it in the dot tree, and it carries every modifier of the filter. Both sides are
 * canonicalised first; a malformed side matches nothing.
 */
export function sportMatches(sport: string, filter: string): boolean {
  const s = parseCanonicalSport(sport);
  const t = parseCanonicalSport(filter);
  return s !== null && t !== null && contains(t, s);
}

/** True when `sport` matches any of `filters` (the repeated `sport` query parameter: "match any"). */
export function sportMatchesAny(sport: string, filters: readonly string[]): boolean {
  const s = parseCanonicalSport(sport);
  if (s === null) return false;
  return filters.some((filter) => {
    const t = parseCanonicalSport(filter);
    return t !== null && contains(t, s);
  });
}

/**
 * For storage queries: every canonical sport string that matches `filter` starts with this prefix (the
 * filter's canonical code), so a store can pre-select with `{ sport: { $prefix } }` and then apply
 * `sportMatches` for the exact answer (the prefix also admits e.g. `cycling_x` for `cycling`). Null when
 * the filter is malformed.
 */
export function sportStorePrefix(filter: string): string | null {
  return parseCanonicalSport(filter)?.code ?? null;
}

/** Roots of the foot sports: the OST's, and roots a newer taxonomy or a source may send. */
const FOOT_ROOTS: ReadonlySet<string> = new Set(['running', 'walking', 'hiking', 'trail_running', 'mountaineering', 'snowshoeing', 'orienteering']);

/** True for a foot sport (its root is one of FOOT_ROOTS): pages show pace, speed has the foot cap. */
export function isFootSport(sport: string): boolean {
  const root = rootSport(sport);
  return root !== null && FOOT_ROOTS.has(root);
}

/** The top-level sport of a sport: its first code segment, no modifiers (`only_root`). Null when malformed. */
export function rootSport(sport: string): string | null {
  const parsed = parseCanonicalSport(sport);
  return parsed === null ? null : (parsed.code.split('.')[0] as string);
}

// ---------------------------------------------------------------------------------------------------------
// Catalogue: labels and known sports

interface Modifier {
  label: string;
  group: string | null;
}

interface Taxonomy {
  version: string;
  /** Standard-sports catalogue: canonical string → label. */
  catalogue: Map<string, string>;
  /** Known codes (the modifier-free catalogue entries) → label. */
  codes: Map<string, string>;
  modifiers: Map<string, Modifier>;
}

/** `domain/data/open-sport-taxonomy/` from the source tree or from the compiled dist/domain/. */
function dataDir(): string {
  const candidates = ['./data/open-sport-taxonomy/', '../../domain/data/open-sport-taxonomy/'];
  for (const candidate of candidates) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}schema.yaml`)) return dir;
  }
  throw new Error(`sport: open sport taxonomy data not found next to ${fileURLToPath(import.meta.url)}`);
}

function readYaml(file: string): unknown {
  return parseYaml(readFileSync(`${dataDir()}${file}`, 'utf8'));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function loadTaxonomy(): Taxonomy {
  const doc = readYaml('schema.yaml');
  if (!isRecord(doc) || !Array.isArray(doc.sports) || !Array.isArray(doc.modifiers)) {
    throw new Error('sport: schema.yaml lacks the sports or modifiers list');
  }
  const catalogue = new Map<string, string>();
  const codes = new Map<string, string>();
  for (const entry of doc.sports as unknown[]) {
    const sport = isRecord(entry) && typeof entry.sport === 'string' ? parseSport(entry.sport) : null;
    if (sport === null || !isRecord(entry) || typeof entry.label !== 'string') {
      throw new Error(`sport: schema.yaml has a malformed sports entry ${JSON.stringify(entry)}`);
    }
    catalogue.set(formatSport(sport), entry.label);
    if (sport.modifiers.length === 0) codes.set(sport.code, entry.label);
  }
  const modifiers = new Map<string, Modifier>();
  for (const entry of doc.modifiers as unknown[]) {
    if (!isRecord(entry) || typeof entry.code !== 'string' || typeof entry.label !== 'string') {
      throw new Error(`sport: schema.yaml has a malformed modifiers entry ${JSON.stringify(entry)}`);
    }
    modifiers.set(entry.code, { label: entry.label, group: typeof entry.group === 'string' ? entry.group : null });
  }
  return { version: String(doc.version), catalogue, codes, modifiers };
}

let taxonomy: Taxonomy | undefined;
function getTaxonomy(): Taxonomy {
  taxonomy ??= loadTaxonomy();
  return taxonomy;
}

/** The bundled taxonomy's spec version (`schema.yaml` `version`). */
export function taxonomyVersion(): string {
  return getTaxonomy().version;
}

/**
 * Human label: a catalogue entry's label (`cycling+stationary` → "indoor cycling"); otherwise the code's
 * label (or, for an unknown code, the code with `.`/`_` as spaces) plus " (mod1, mod2)" with modifier
 * labels (`cycling.road+race` → "road cycling (race)"). Null when malformed.
 */
export function sportLabel(sport: string): string | null {
  const parsed = parseCanonicalSport(sport);
  if (parsed === null) return null;
  const { catalogue, codes, modifiers } = getTaxonomy();
  const standard = catalogue.get(formatSport(parsed));
  if (standard !== undefined) return standard;
  const base = codes.get(parsed.code) ?? parsed.code.replace(/[._]/g, ' ');
  if (parsed.modifiers.length === 0) return base;
  const labels = parsed.modifiers.map((modifier) => modifiers.get(modifier)?.label ?? modifier);
  return `${base} (${labels.join(', ')})`;
}

/** The standard catalogue's sports, canonical, each with its label, in the catalogue's order (for choosers). */
export function standardSports(): { sport: string; label: string }[] {
  return [...getTaxonomy().catalogue].map(([sport, label]) => ({ sport, label }));
}

/**
 * Informational only: true when the canonical sport is in the standard catalogue or its code is a known
 * code. Unknown sports are still valid.
 */
export function isKnownSport(sport: string): boolean {
  const parsed = parseCanonicalSport(sport);
  if (parsed === null) return false;
  const { catalogue, codes } = getTaxonomy();
  return catalogue.has(formatSport(parsed)) || codes.has(parsed.code);
}

// ---------------------------------------------------------------------------------------------------------
// FIT decoding (mappings/garmin_fit.yaml, upstream docs/translation.md format v3)

type FitTarget = { sport: number; sub_sport: number };

interface FitMapping {
  /** `sport/sub_sport` → OST sport, or null ("no OST equivalent"). */
  entries: Map<string, string | null>;
  /** `fallback.decode`. */
  fallback: string;
  /** `target_coarsening` reset rules, in declaration order. */
  coarsening: Partial<FitTarget>[];
}

const FIT_FIELDS = ['sport', 'sub_sport'] as const;
const fitKey = (target: FitTarget): string => `${target.sport}/${target.sub_sport}`;

function fitTarget(value: unknown): FitTarget | null {
  return isRecord(value) && Number.isInteger(value.sport) && Number.isInteger(value.sub_sport)
    ? { sport: value.sport as number, sub_sport: value.sub_sport as number }
    : null;
}

function loadFitMapping(): FitMapping {
  const doc = readYaml('mappings/garmin_fit.yaml');
  if (!isRecord(doc) || !Array.isArray(doc.entries) || !isRecord(doc.fallback)) {
    throw new Error('sport: garmin_fit.yaml lacks entries or fallback');
  }
  const fallback = typeof doc.fallback.decode === 'string' ? canonicalSport(doc.fallback.decode) : null;
  if (fallback === null) throw new Error('sport: garmin_fit.yaml fallback.decode is not a sport');
  const entries = new Map<string, string | null>();
  for (const entry of doc.entries as unknown[]) {
    const target = isRecord(entry) ? fitTarget(entry.target) : null;
    const sport = isRecord(entry) && typeof entry.sport === 'string' ? canonicalSport(entry.sport) : null;
    if (target === null || !isRecord(entry) || (entry.sport !== null && sport === null)) {
      throw new Error(`sport: garmin_fit.yaml has a malformed entry ${JSON.stringify(entry)}`);
    }
    if (entries.has(fitKey(target))) throw new Error(`sport: garmin_fit.yaml repeats target ${fitKey(target)}`);
    entries.set(fitKey(target), sport);
  }
  const coarsening: Partial<FitTarget>[] = [];
  for (const rule of (doc.target_coarsening ?? []) as unknown[]) {
    // "The only rule kind defined in format v3 is `reset`"; its fields must exist in the target shape.
    const reset = isRecord(rule) && Object.keys(rule).length === 1 ? rule.reset : undefined;
    const valid = isRecord(reset) && Object.entries(reset).every(
      ([field, value]) => (FIT_FIELDS as readonly string[]).includes(field) && Number.isInteger(value));
    if (!valid) {
      throw new Error(`sport: garmin_fit.yaml has an unsupported target_coarsening rule ${JSON.stringify(rule)}`);
    }
    coarsening.push(reset as Partial<FitTarget>);
  }
  return { entries, fallback, coarsening };
}

let fitMapping: FitMapping | undefined;
function getFitMapping(): FitMapping {
  fitMapping ??= loadFitMapping();
  return fitMapping;
}

/**
 * The OST sport of a FIT session's `{sport, sub_sport}` pair, decoded exactly as translation.md
 * format v3 says: a direct row wins (`sport: null` → `fallback.decode`); otherwise each
 * `target_coarsening` reset rule is applied to the ORIGINAL pair (rules do not chain; a no-op rule is
 * skipped) and the first rewritten pair that has a row decides; otherwise `fallback.decode` (`generic`).
 */
export function sportFromFit(sport: number, subSport: number): string {
  const { entries, fallback, coarsening } = getFitMapping();
  const input: FitTarget = { sport, sub_sport: subSport };
  const direct = entries.get(fitKey(input));
  if (direct !== undefined) return direct ?? fallback;
  for (const rule of coarsening) {
    const candidate: FitTarget = { ...input, ...rule };
    if (candidate.sport === input.sport && candidate.sub_sport === input.sub_sport) continue;
    const coarse = entries.get(fitKey(candidate));
    if (coarse !== undefined) return coarse ?? fallback;
  }
  return fallback;
}

// ---------------------------------------------------------------------------------------------------------
// Validation

/**
 * Request sport: any well-formed OST string (legacy values accepted) → its canonical string. 422 message
 * for malformed input: 'not a valid Open Sport Taxonomy sport'. JSON Schema: a string with the grammar as
 * `pattern`.
 */
export const sportSchema = z
  .string()
  .max(MAX_SPORT_LENGTH)
  .regex(SPORT_RE, { error: INVALID_SPORT_MESSAGE })
  .transform((text, ctx) => {
    const canonical = canonicalSport(text);
    if (canonical !== null) return canonical;
    ctx.addIssue({ code: 'custom', message: INVALID_SPORT_MESSAGE, input: text });
    return z.NEVER;
  });
