/**
 * Where Wahoo's Cloud API lives and what our app is called there (providers.md §3, [WAH-doc]): one host
 * for OAuth and the API. A public app (no secret) uses PKCE instead of a client secret.
 */
export interface WahooApp {
  clientId: string;
  /** Null for a public (non-confidential) app, which must use PKCE. */
  clientSecret: string | null;
  /** Default https://api.wahooligan.com. */
  apiBase: string;
  /** Space-separated (Wahoo's spelling). */
  scopes: string;
}

export const WAHOO_API_BASE = 'https://api.wahooligan.com';

/** user_read for weight, workouts_read for history, offline_data for the webhook, plans/workouts write for scheduled workouts. */
export const WAHOO_DEFAULT_SCOPES = 'user_read workouts_read offline_data plans_read plans_write workouts_write';

export function wahooUrl(app: Pick<WahooApp, 'apiBase'>, path: string): string {
  const base = app.apiBase.endsWith('/') ? app.apiBase.slice(0, -1) : app.apiBase;
  return `${base}${path}`;
}
