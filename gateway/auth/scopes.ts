/**
 * Scope names (interface §5 "Scopes"): the one place they are spelled. Routes name the scope they
 * need; tokens carry a space-separated `scope` claim.
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
