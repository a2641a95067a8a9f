/**
 * One Wahoo connection's API calls (providers.md §3, [WAH-doc][WAH-int]). Tokens: the stored access token
 * is used until it is within a minute of its 2 h expiry or Wahoo answers 401; only then is it refreshed,
 * one refresh per connection at a time, and the new pair is saved before its first use (Wahoo revokes the
 * old pair when the new access token is first used, and counts unrevoked tokens: at most 10 per user).
 * Rate limits: the app's gauge is checked before and fed after every call. Calls: `GET /v1/user`,
 * `GET /v1/workouts` (paged, newest first), `GET /v1/workouts/{id}/workout_summary`, the summary's FIT file
 * (a CDN URL, fetched WITHOUT our token), `DELETE /v1/permissions`. Decimals arrive as strings.
 * Kept honest by test/engine/integrations/wahoo-client.test.ts and wahoo-tokens.test.ts.
 */
import type { ProviderTokens } from '../credentials.js';
import { ProviderCallError } from '../provider-call-error.js';
import { failure, PROVIDER_FILE_MAX_BYTES, readBody, readJson, retryAtOf, send, type HttpContext } from '../provider-http.js';
import type { Serializer, TokenKeeper } from '../token-keeper.js';
import { wahooUrl, type WahooApp } from './endpoints.js';
import { refreshWahooTokens } from './oauth.js';
import type { WahooRateGauge } from './rate-gauge.js';
import { workoutOf, type WahooUser, type WahooWorkout, type WahooWorkoutSummary, summaryOf, userOf } from './records.js';

/** Refresh this close to expiry, so a request never leaves with a token that dies on the way. */
export const WAHOO_REFRESH_MARGIN_MS = 60_000;

export interface WahooConnection {
  /** Serializes token refreshes; the connection's id in the store. */
  key: string;
  keeper: TokenKeeper;
  /**
   * False when the caller refreshes (the framework's adapter, which stores the pair itself): the stored
   * token is sent as is and a 401 is final (Wahoo has no deauthorization webhook: a 401 means revoked).
   */
  refresh?: boolean;
}

export interface WorkoutPage {
  workouts: WahooWorkout[];
  total: number;
  page: number;
  perPage: number;
}

export class WahooClient {
  constructor(
    private readonly context: HttpContext,
    private readonly app: WahooApp,
    private readonly connection: WahooConnection,
    private readonly refreshes: Serializer,
    private readonly gauge: WahooRateGauge,
  ) {}

  async user(): Promise<WahooUser> {
    return userOf(await this.getJson('/v1/user', 'GET /v1/user'));
  }

  /** One page of workouts, newest `starts` first; `page` counts from 1, Wahoo's default size is 30. */
  async workouts(page: number, perPage = 30): Promise<WorkoutPage> {
    const body = (await this.getJson(`/v1/workouts?page=${page}&per_page=${perPage}`, 'GET /v1/workouts')) as Record<string, unknown>;
    if (!Array.isArray(body?.workouts)) throw new ProviderCallError('wahoo', 'unavailable', 'wahoo GET /v1/workouts: no workouts list');
    return {
      workouts: body.workouts.map(workoutOf).filter((workout): workout is WahooWorkout => workout !== null),
      total: typeof body.total === 'number' ? body.total : Number(body.total ?? 0),
      page: typeof body.page === 'number' ? body.page : page,
      perPage: typeof body.per_page === 'number' ? body.per_page : perPage,
    };
  }

  /** Every workout, newest first, page by page; a workout that slides to the next page as new ones arrive is given once. */
  async *allWorkouts(perPage = 30, fromPage = 1): AsyncGenerator<{ workout: WahooWorkout; page: number }> {
    const seen = new Set<string>();
    for (let page = fromPage; ; page++) {
      const result = await this.workouts(page, perPage);
      for (const workout of result.workouts) {
        if (seen.has(workout.id)) continue;
        seen.add(workout.id);
        yield { workout, page };
      }
      if (result.workouts.length === 0 || page * result.perPage >= result.total) return;
    }
  }

  async workoutSummary(workoutId: string): Promise<WahooWorkoutSummary | null> {
    return summaryOf(await this.getJson(`/v1/workouts/${encodeURIComponent(workoutId)}/workout_summary`, 'GET workout_summary'));
  }

  /**
   * The FIT file behind `workout_summary.file.url`: a CDN URL fetched without our token (Wahoo's token
   * must not travel to the CDN; a signed CDN URL also refuses a second credential). 403/404 are
   * `rejected` (the file is gone or the URL expired: report it), 5xx `unavailable`.
   */
  async downloadFile(url: string): Promise<Uint8Array> {
    const response = await send(this.context, url);
    if (!response.ok) throw await failure(this.context, response, 'wahoo FIT download', { 403: 'rejected' });
    return new Uint8Array(await readBody(this.context, response, 'wahoo FIT download', PROVIDER_FILE_MAX_BYTES));
  }

  /** Our disconnect; afterwards every token of the connection answers 401. A 401 now means already gone. */
  async revoke(): Promise<void> {
    const response = await this.authorized('/v1/permissions', { method: 'DELETE' }, false);
    await response.body?.cancel();
    if (response.ok || response.status === 401) return;
    throw await failure(this.context, response, 'wahoo DELETE /v1/permissions');
  }

  /** The access token to send now: refreshed only when it expires within a minute. */
  async accessToken(): Promise<string> {
    const tokens = await this.connection.keeper.load();
    if (this.connection.refresh === false || !this.expiring(tokens)) return tokens.access_token;
    return (await this.refresh(tokens.access_token)).access_token;
  }

  private async getJson(path: string, what: string): Promise<unknown> {
    const response = await this.authorized(path, { headers: { accept: 'application/json' } }, true);
    if (!response.ok) throw await failure(this.context, response, `wahoo ${what}`);
    return readJson(this.context, response, `wahoo ${what}`);
  }

  /** A call with the token; a 401 gets one refresh and one retry when `retryOn401`. */
  private async authorized(path: string, init: RequestInit, retryOn401: boolean): Promise<Response> {
    const token = await this.accessToken();
    const response = await this.call(path, init, token);
    if (response.status !== 401 || !retryOn401 || this.connection.refresh === false) return response;
    await response.body?.cancel();
    const fresh = await this.refresh(token);
    return this.call(path, init, fresh.access_token);
  }

  private async call(path: string, init: RequestInit, token: string): Promise<Response> {
    this.gauge.check(this.context.now());
    const response = await send(this.context, wahooUrl(this.app, path), { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
    this.gauge.observe(response.headers, this.context.now());
    const until = response.status === 429 ? retryAtOf(this.context, response.headers) : null;
    if (until !== null) this.gauge.blockUntil(until);
    return response;
  }

  private expiring(tokens: ProviderTokens): boolean {
    return tokens.expires_at !== null && tokens.expires_at - this.context.now() < WAHOO_REFRESH_MARGIN_MS;
  }

  /** One refresh per connection at a time; a caller that waited uses the pair the first one saved. */
  private refresh(staleAccessToken: string): Promise<ProviderTokens> {
    return this.refreshes.run(this.connection.key, async () => {
      const current = await this.connection.keeper.load();
      if (current.access_token !== staleAccessToken && !this.expiring(current)) return current;
      if (!current.refresh_token) throw new ProviderCallError('wahoo', 'unauthorized', 'wahoo: no refresh token stored; the user must connect again');
      this.gauge.check(this.context.now());
      const fresh = await refreshWahooTokens(this.context, this.app, current.refresh_token);
      await this.connection.keeper.save(fresh); // before first use: the old pair still works until then
      return fresh;
    });
  }
}
