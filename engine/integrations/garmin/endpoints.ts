/**
 * Where Garmin Connect lives and what our app is called there. Three hosts (providers.md §1): the consent
 * page on connect.garmin.com, the token endpoint on diauth.garmin.com, the Wellness/Health/Training APIs
 * on apis.garmin.com. Each is a base URL so a deployment (or a test's stand-in) can point elsewhere.
 */
export interface GarminEndpoints {
  /** Consent page host; the authorize URL is `${connectBase}/oauth2Confirm`. */
  connectBase: string;
  /** Token host; the token URL is `${authBase}/di-oauth2-service/oauth/token`. */
  authBase: string;
  /** API host; the Wellness API is under `${apiBase}/wellness-api/rest/`. */
  apiBase: string;
}

export const GARMIN_ENDPOINTS: GarminEndpoints = {
  connectBase: 'https://connect.garmin.com',
  authBase: 'https://diauth.garmin.com',
  apiBase: 'https://apis.garmin.com',
};

export interface GarminApp {
  clientId: string;
  clientSecret: string;
  endpoints: GarminEndpoints;
}

export const authorizeUrlOf = (endpoints: GarminEndpoints) => `${trim(endpoints.connectBase)}/oauth2Confirm`;
export const tokenUrlOf = (endpoints: GarminEndpoints) => `${trim(endpoints.authBase)}/di-oauth2-service/oauth/token`;
export const wellnessUrlOf = (endpoints: GarminEndpoints, path: string) => `${trim(endpoints.apiBase)}/wellness-api/rest/${path}`;

/**
 * Whether a URL a notification names (a ping's or an activity file's `callbackURL`) is on Garmin's API, under
 * the Wellness API: the only place we send a user's token. Garmin signs no push, so a forged one could name
 * any host and collect the token, or make us call an internal address.
 */
export function onWellnessApi(endpoints: GarminEndpoints, url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const api = new URL(wellnessUrlOf(endpoints, ''));
  return parsed.origin === api.origin && parsed.username === '' && parsed.password === '' && parsed.pathname.startsWith(api.pathname);
}

function trim(base: string): string {
  return base.endsWith('/') ? base.slice(0, -1) : base;
}

/** Permissions a user grants on Garmin's consent page (`GET user/permissions`). */
export const GARMIN_PERMISSIONS = ['ACTIVITY_EXPORT', 'HEALTH_EXPORT', 'WORKOUT_IMPORT', 'HISTORICAL_DATA_EXPORT'] as const;
