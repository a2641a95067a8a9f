/**
 * Scope names and their algebra (interface §5 "Scopes", "Consent", "Legacy scope bundles"): the one
 * place scopes are spelled. Routes name the scope they need; tokens carry a space-separated `scope`
 * claim. This file decides how a requested `scope` text reads (legacy bundles included), the set
 * operations on grants, and what the consent screen says for each category. It does not decide who
 * may hold a scope (authorize, delegation) nor escape anything (callers escape for their medium).
 *
 * Every list this file returns is deduplicated and in SCOPES order, so equal sets compare equal.
 * Kept honest by test/gateway/auth/scopes.test.ts.
 */
export const SCOPES = [
  'activities:read',
  'activities:write',
  'wellness:read',
  'wellness:write',
  'reproductive_health:read',
  'reproductive_health:write',
  'workouts:read',
  'workouts:write',
  'sharing:read',
  'sharing:write',
  'openid',
  'profile',
  'email',
  'offline_access',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Splits a scope string on spaces or commas (interface: "space-delimited (commas also accepted)"). */
export function splitScopes(text: string): string[] {
  return text.split(/[\s,]+/).filter((part) => part.length > 0);
}

// ---- Set operations (results deduplicated, in SCOPES order) ----

/** The scopes, deduplicated, in SCOPES order. */
export function sortScopes(scopes: Iterable<Scope>): Scope[] {
  const present = new Set(scopes);
  return SCOPES.filter((scope) => present.has(scope));
}

/** a ∪ b: "the grant is the union of old and new and never shrinks". */
export function unionScopes(a: readonly Scope[], b: readonly Scope[]): Scope[] {
  return sortScopes([...a, ...b]);
}

/** a ∩ b. */
export function intersectScopes(a: readonly Scope[], b: readonly Scope[]): Scope[] {
  const inB = new Set(b);
  return sortScopes(a.filter((scope) => inB.has(scope)));
}

/** a − b. */
export function subtractScopes(a: readonly Scope[], b: readonly Scope[]): Scope[] {
  const inB = new Set(b);
  return sortScopes(a.filter((scope) => !inB.has(scope)));
}

/** Whether every scope of a is in b (a ⊆ b). */
export function isSubset(a: readonly Scope[], b: readonly Scope[]): boolean {
  const inB = new Set(b);
  return a.every((scope) => inB.has(scope));
}

/** "openid and profile ride with every grant". */
export function withIdentity(scopes: readonly Scope[]): Scope[] {
  return unionScopes(scopes, ['openid', 'profile']);
}

// ---- Reading a request ----

/** Interface "Legacy scope bundles": what each retired bundle is read as. A Map, so `constructor` is no bundle. */
const LEGACY_BUNDLES: ReadonlyMap<string, readonly Scope[]> = new Map([
  ['data:read', ['activities:read', 'wellness:read', 'reproductive_health:read', 'workouts:read', 'sharing:read']],
  ['data:write', ['activities:write', 'wellness:write', 'reproductive_health:write', 'workouts:write', 'sharing:write']],
]);
/** "profile together with a bundle | openid profile email sharing:read sharing:write" */
const LEGACY_PROFILE: readonly Scope[] = ['openid', 'profile', 'email', 'sharing:read', 'sharing:write'];
/** Longest scope name quoted back in an error description, characters. */
const MAX_NAMED = 64;

export type ScopeRequest = { scopes: Scope[] } | { error: 'invalid_scope'; description: string };

/**
 * Reads a requested `scope` text: spaces or commas, duplicates dropped, SCOPES order. Legacy bundles
 * are expanded only when `legacyAllowed` (the application was created before the scope release).
 * The first unknown or refused name is the error; the description names it unescaped.
 */
export function parseScopeRequest(text: string, options: { legacyAllowed: boolean }): ScopeRequest {
  const names = splitScopes(text);
  if (names.length === 0) return invalidScope('no scope was requested');
  const bundled = names.some((name) => LEGACY_BUNDLES.has(name));
  const scopes: Scope[] = [];
  for (const name of names) {
    const bundle = LEGACY_BUNDLES.get(name);
    if (bundle) {
      // "An app registered after the release gets invalid_scope for a bundle."
      if (!options.legacyAllowed) return invalidScope(`retired scope bundle ${name}; request the scopes it stood for`);
      scopes.push(...bundle);
    } else if (name === 'profile' && bundled) {
      // A bundle in the same request means the legacy profile (refused above when bundles are not allowed).
      scopes.push(...LEGACY_PROFILE);
    } else if (isScope(name)) {
      // "profile without a bundle means the name only."
      scopes.push(name);
    } else {
      return invalidScope(`unknown scope ${name.length > MAX_NAMED ? `${name.slice(0, MAX_NAMED)}...` : name}`);
    }
  }
  return { scopes: sortScopes(scopes) };
}

function invalidScope(description: string): ScopeRequest {
  return { error: 'invalid_scope', description };
}

// ---- Consent ----

/** Consent categories, in the order the consent screen lists them. */
export const SCOPE_CATEGORIES = [
  'activities', 'wellness', 'reproductive_health', 'workouts', 'sharing', 'email', 'openid', 'profile', 'offline_access',
] as const;
export type ScopeCategory = (typeof SCOPE_CATEGORIES)[number];

/** "For each requested category except openid, profile and offline_access, the app writes one purpose sentence." */
export const PURPOSE_CATEGORIES: readonly ScopeCategory[] = ['activities', 'wellness', 'reproductive_health', 'workouts', 'sharing', 'email'];

/** The category a scope belongs to: the part before `:read`/`:write`, or the scope itself. */
export function categoryOf(scope: Scope): ScopeCategory {
  return scope.split(':')[0] as ScopeCategory;
}

export interface ConsentLine {
  category: ScopeCategory;
  title: string;
  detail: string;
}

type AccessCategory = 'activities' | 'wellness' | 'reproductive_health' | 'workouts' | 'sharing';
type PlainCategory = Exclude<ScopeCategory, AccessCategory>;

/** Wording per category with read and write scopes, after the interface's scope table. */
const ACCESS_TEXT: Record<AccessCategory, { title: string; read: string; readWrite: string; write: string }> = {
  // activities:read: "everything under /activities/, /tests/, /traces/, and derived endpoints under /profile/";
  // "Only two values are derivable through activities:read: body mass … and resting heart rate".
  // activities:write: "uploads, app metadata, tests, traces, markers, max efforts: create, change, delete".
  activities: {
    title: 'Your activities',
    read: 'Read your activities, tests, traces and the analyses derived from them, such as zones, markers and best efforts. Your body mass and resting heart rate can be worked out from these analyses.',
    readWrite: 'Read your activities, tests, traces and the analyses derived from them, such as zones, markers and best efforts, and add, change or delete them. Your body mass and resting heart rate can be worked out from these analyses.',
    write: 'Add, change or delete your activities, tests, traces, markers and best efforts.',
  },
  // wellness:read: "every measure except menstrual_cycle_day"; wellness:write: "record and delete those measures".
  wellness: {
    title: 'Your daily wellness measures',
    read: 'Read your daily measures, such as body mass, resting heart rate, heart rate variability, sleep and body fat. Not your menstrual cycle.',
    readWrite: 'Read, record and delete your daily measures, such as body mass, resting heart rate, heart rate variability, sleep and body fat. Not your menstrual cycle.',
    write: 'Record and delete your daily measures, such as body mass, resting heart rate, heart rate variability, sleep and body fat. Not your menstrual cycle.',
  },
  // reproductive_health: "GET /api/v1/dailies/menstrual_cycle_day; standalone"; write: "record and delete the cycle day".
  reproductive_health: {
    title: 'Your menstrual cycle day',
    read: 'Read which day of your menstrual cycle you are on.',
    readWrite: 'Read, record and delete which day of your menstrual cycle you are on.',
    write: 'Record and delete which day of your menstrual cycle you are on.',
  },
  // workouts:read: "scheduled workouts"; workouts:write: "schedule, change, delete workouts".
  workouts: {
    title: 'Your scheduled workouts',
    read: 'Read the workouts scheduled for you.',
    readWrite: 'Read the workouts scheduled for you, and schedule, change or delete workouts.',
    write: 'Schedule, change or delete your workouts.',
  },
  // sharing:read: "users and teams listings, team rosters, POST /api/v1/oauth/delegated-token"; a delegated
  // token "never carries more than the token it was minted from". sharing:write: "create, update, delete
  // managed accounts; authorize or revoke a team".
  sharing: {
    title: 'People and teams you share with',
    read: 'See your teams, their members and the accounts you manage, and access the data of people who share it with you, never beyond what you allow this app here.',
    readWrite: 'See your teams, their members and the accounts you manage, and access the data of people who share it with you, never beyond what you allow this app here. Create, change or delete managed accounts, and authorize or revoke teams.',
    write: 'Create, change or delete managed accounts, and authorize or revoke teams.',
  },
};

/** Wording for the categories that are a single scope. */
const PLAIN_TEXT: Record<PlainCategory, { title: string; detail: string }> = {
  // email: "email claim on userinfo"
  email: { title: 'Your email address', detail: 'See the email address of your Threshold account.' },
  // openid: "sub on userinfo and the ID token"
  openid: { title: 'Your Threshold account id', detail: 'Recognise you by your Threshold account id when you sign in.' },
  // profile: "name claims: name, given_name, family_name"
  profile: { title: 'Your name', detail: 'See your first and last name.' },
  // offline_access: "refresh token for PKCE clients"; "A refresh token lives until the user revokes the app."
  offline_access: { title: 'Stay connected when you are not using the app', detail: 'Keep the access you allow here until you revoke it.' },
};

/** "The consent screen shows one line per requested category", in SCOPE_CATEGORIES order. */
export function consentLines(scopes: readonly Scope[]): ConsentLine[] {
  const present = new Set(scopes);
  return SCOPE_CATEGORIES.flatMap((category) => {
    const line = isAccessCategory(category) ? accessLine(category, present) : plainLine(category, present);
    return line ? [line] : [];
  });
}

/** The consent screen's title of a category ("Your activities"). */
export function categoryTitle(category: ScopeCategory): string {
  return isAccessCategory(category) ? ACCESS_TEXT[category].title : PLAIN_TEXT[category].title;
}

function isAccessCategory(category: ScopeCategory): category is AccessCategory {
  return category in ACCESS_TEXT;
}

function accessLine(category: AccessCategory, present: ReadonlySet<Scope>): ConsentLine | null {
  const text = ACCESS_TEXT[category];
  const read = present.has(`${category}:read`);
  const write = present.has(`${category}:write`);
  if (!read && !write) return null;
  return { category, title: text.title, detail: read && write ? text.readWrite : read ? text.read : text.write };
}

function plainLine(category: PlainCategory, present: ReadonlySet<Scope>): ConsentLine | null {
  return present.has(category) ? { category, ...PLAIN_TEXT[category] } : null;
}
