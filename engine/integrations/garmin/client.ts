/**
 * One Garmin connection's API calls, each with a fresh token: refreshed (both tokens rotate) when the
 * access token is within 600 s of expiry, the new pair saved before it is used, one refresh at a time per
 * connection. Calls: `user/id`, `user/permissions`, `DELETE user/registration`, backfill requests,
 * pulls (by callback URL exactly as Garmin sent it, or by an upload-time window) and activity-file
 * downloads. Deliberately not here: what to do with the data (notifications.ts, dailies.ts, the
 * framework's adapter). Kept honest by test/engine/integrations/garmin-client.test.ts.
 */
import type { ProviderTokens } from '../credentials.js';
import { ProviderCallError } from '../provider-call-error.js';
import { failure, PROVIDER_FILE_MAX_BYTES, readBody, readJson, send, type HttpContext } from '../provider-http.js';
import type { Serializer, TokenKeeper } from '../token-keeper.js';
import { onWellnessApi, wellnessUrlOf, type GarminApp } from './endpoints.js';
import { garminNeedsRefresh, refreshGarminTokens } from './oauth.js';
import { PULL_WINDOW_SECONDS, type SecondsWindow } from './windows.js';

/** Types a backfill can be requested for: Activity API and Health API summaries. */
export type GarminBackfillType = 'activities' | 'activityDetails' | 'moveiq' | 'dailies' | 'sleeps' | 'bodyComps' | 'hrv';

/** 202: Garmin will push or ping the data later. 409: the same window was requested before — already on its way. */
export type BackfillOutcome = 'accepted' | 'already_requested';

export type FileDownload = { kind: 'file'; bytes: Uint8Array } | { kind: 'gone' };

export interface GarminConnection {
  /** Serializes token refreshes; the connection's id in the store. */
  key: string;
  keeper: TokenKeeper;
  /**
   * False when the caller refreshes (the framework's adapter: it refreshes before expiry and stores the
   * pair itself): the client then sends the stored token as is. Default true.
   */
  refresh?: boolean;
}

/**
 * A ping's records (up to 24 h of summaries, or activity details with their samples): Garmin says to
 * accept pushes of at least 10 MB and activity details of up to 100 MB [GAR-act], so a pull may be as large.
 */
export const GARMIN_PULL_MAX_BYTES = 128 * 1024 * 1024;

/** Garmin documents no limit headers: a 429 waits at least 60 s (plus jitter). */
export const GARMIN_RATE_LIMIT_FLOOR_MS = 60_000;

export class GarminClient {
  constructor(
    private readonly context: HttpContext,
    private readonly app: GarminApp,
    private readonly connection: GarminConnection,
    private readonly refreshes: Serializer,
  ) {}

  /** The access token to send now, refreshed first when it expires within 600 s. */
  async accessToken(): Promise<string> {
    const tokens = await this.connection.keeper.load();
    if (this.connection.refresh === false || !garminNeedsRefresh(tokens, this.context.now())) return tokens.access_token;
    return (await this.refresh(tokens.access_token)).access_token;
  }

  /** Garmin's user id: stable across reconnects, the key every notification carries. */
  async userId(): Promise<string> {
    const body = await this.getJson(wellnessUrlOf(this.app.endpoints, 'user/id'), 'user/id');
    const userId = (body as { userId?: unknown })?.userId;
    if (typeof userId !== 'string' && typeof userId !== 'number') throw new ProviderCallError('garmin_connect', 'unavailable', 'garmin user/id: no userId in the answer');
    return String(userId);
  }

  /** What the user granted, e.g. ["ACTIVITY_EXPORT","HEALTH_EXPORT","WORKOUT_IMPORT","HISTORICAL_DATA_EXPORT"]. */
  async permissions(): Promise<string[]> {
    const body = await this.getJson(wellnessUrlOf(this.app.endpoints, 'user/permissions'), 'user/permissions');
    if (!Array.isArray(body) || !body.every((entry) => typeof entry === 'string')) throw new ProviderCallError('garmin_connect', 'unavailable', 'garmin user/permissions: not a list of names');
    return body;
  }

  /**
   * Our disconnect: `DELETE user/registration` → 204 (mandatory when we offer a disconnect [GAR-dereg]).
   * A token Garmin already refuses (401/403: the user deregistered first) counts as done.
   */
  async deregister(): Promise<void> {
    const response = await this.authorized(wellnessUrlOf(this.app.endpoints, 'user/registration'), { method: 'DELETE' });
    if (response.ok || response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      return;
    }
    throw await failure(this.context, response, 'garmin DELETE user/registration');
  }

  /**
   * Asks Garmin to send one window of history (≤ 30 days for activities, ≤ 90 for Health API types; see
   * windows.ts); the data arrives later by push or ping. 403 means the user did not grant
   * HISTORICAL_DATA_EXPORT: `not_permitted`, to report, never to retry.
   */
  async requestBackfill(type: GarminBackfillType, window: SecondsWindow): Promise<BackfillOutcome> {
    const url = new URL(wellnessUrlOf(this.app.endpoints, `backfill/${type}`));
    url.searchParams.set('summaryStartTimeInSeconds', String(window.start));
    url.searchParams.set('summaryEndTimeInSeconds', String(window.end));
    const response = await this.authorized(url.toString());
    await response.body?.cancel();
    if (response.status === 202 || response.status === 200) return 'accepted';
    if (response.status === 409) return 'already_requested';
    throw await failure(this.context, response, `garmin backfill/${type}`, { 403: 'not_permitted' });
  }

  /** The records behind a ping: the callback URL is called exactly as given (it carries a pull token). */
  async pullCallback(callbackUrl: string): Promise<Record<string, unknown>[]> {
    const body = await this.getJson(callbackUrl, 'ping callback', GARMIN_PULL_MAX_BYTES);
    if (!Array.isArray(body)) throw new ProviderCallError('garmin_connect', 'unavailable', 'garmin ping callback: the answer is not a list');
    return body as Record<string, unknown>[];
  }

  /** Summaries of one type uploaded within ≤ 24 h, window in Unix seconds (Garmin answers 400 to milliseconds). */
  async pull(type: 'activities' | 'dailies' | 'sleeps' | 'bodyComps' | 'hrv', window: SecondsWindow): Promise<Record<string, unknown>[]> {
    if (window.end - window.start > PULL_WINDOW_SECONDS || window.end <= window.start) {
      throw new RangeError(`garmin pull: a window must cover (0, ${PULL_WINDOW_SECONDS}] seconds`);
    }
    const url = new URL(wellnessUrlOf(this.app.endpoints, type));
    url.searchParams.set('uploadStartTimeInSeconds', String(window.start));
    url.searchParams.set('uploadEndTimeInSeconds', String(window.end));
    return this.pullCallback(url.toString());
  }

  /**
   * An `activityFiles` ping's file (FIT, TCX or GPX). Garmin serves each file once: a repeat is 410,
   * returned as `gone` (the caller treats it as done when it stored the file before, else reports it).
   * A 500 is `unavailable`: try again later, the URL stays valid for 24 h.
   */
  async downloadActivityFile(callbackUrl: string): Promise<FileDownload> {
    const response = await this.authorized(callbackUrl, { headers: { accept: 'application/octet-stream' } });
    if (response.status === 410) {
      await response.body?.cancel();
      return { kind: 'gone' };
    }
    if (!response.ok) throw await failure(this.context, response, 'garmin activity file');
    return { kind: 'file', bytes: new Uint8Array(await readBody(this.context, response, 'garmin activity file', PROVIDER_FILE_MAX_BYTES)) };
  }

  private async getJson(url: string, what: string, maxBytes?: number): Promise<unknown> {
    const response = await this.authorized(url, { headers: { accept: 'application/json' } });
    if (!response.ok) throw await failure(this.context, response, `garmin ${what}`);
    return readJson(this.context, response, `garmin ${what}`, { ...(maxBytes !== undefined && { maxBytes }) });
  }

  private async authorized(url: string, init: RequestInit = {}): Promise<Response> {
    // The token goes to Garmin's API only, whatever URL a notification named.
    if (!onWellnessApi(this.app.endpoints, url)) throw new ProviderCallError('garmin_connect', 'rejected', 'garmin: a URL outside the Wellness API is not called with the user\'s token');
    const token = await this.accessToken();
    return send(this.context, url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
  }

  /** One refresh per connection at a time; a caller that waited finds the pair another caller saved. */
  private refresh(staleAccessToken: string): Promise<ProviderTokens> {
    return this.refreshes.run(this.connection.key, async () => {
      const current = await this.connection.keeper.load();
      if (current.access_token !== staleAccessToken && !garminNeedsRefresh(current, this.context.now())) return current;
      if (!current.refresh_token) throw new ProviderCallError('garmin_connect', 'unauthorized', 'garmin: no refresh token stored; the user must connect again');
      const fresh = await refreshGarminTokens(this.context, this.app, current.refresh_token);
      await this.connection.keeper.save(fresh);
      return fresh;
    });
  }
}
