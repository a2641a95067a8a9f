/**
 * Bounded reads of provider answers (engine/integrations/provider-http.ts over engine/outbound-read.ts),
 * against the intervals.icu stand-in with extra routes and the Wahoo stand-in with scripted faults whose
 * answers never end (activity files, JSON, token answers, error text): a body that streams forever
 * stops at the call's byte limit (`rejected`, naming the limit), one that trickles stops at the deadline
 * (`unavailable`), an error answer is quoted from a small prefix, a gzip file cannot unpack past the file
 * limit, and in each case the stand-in sees the connection closed.
 */
import { gzipSync } from 'node:zlib';
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { startIntervalsIcuStandin, type IntervalsIcuStandin } from '../../support/standins/intervals-icu.js';
import { closedWithin, writeEndless, type EndlessBody, type Tallies } from '../../support/endless-answers.js';
import { intervalsIcuAdapter } from '../../../engine/integrations/intervals-icu/adapter.js';
import { ProviderRefused, type ProviderAdapter } from '../../../engine/integrations/provider.js';
import { failure, PROVIDER_FILE_MAX_BYTES, PROVIDER_JSON_MAX_BYTES, readJson, send, TOKEN_ANSWER_MAX_BYTES, type HttpContext } from '../../../engine/integrations/provider-http.js';
import type { ProviderCallError } from '../../../engine/integrations/provider-call-error.js';
import type { ProviderTokens } from '../../../engine/integrations/credentials.js';
import { startWahooStandin, wahooWorkouts, type WahooStandin } from '../../support/standins/wahoo.js';
import { authorize, contextFor } from '../../support/standins/clients.js';
import { newPkcePair } from '../../../engine/integrations/pkce.js';
import { exchangeWahooCode, wahooAuthorizeUrl } from '../../../engine/integrations/wahoo/oauth.js';
import { WAHOO_DEFAULT_SCOPES, type WahooApp } from '../../../engine/integrations/wahoo/endpoints.js';
import { WahooClient } from '../../../engine/integrations/wahoo/client.js';
import { WahooRateGauge } from '../../../engine/integrations/wahoo/rate-gauge.js';
import { memoryKeeper, Serializer } from '../../../engine/integrations/token-keeper.js';

const TOKENS: ProviderTokens = { access_token: 'unchecked', refresh_token: null, expires_at: null, refresh_expires_at: null, scope: null };
const DEADLINE_MS = 400;
let standin: IntervalsIcuStandin;
let adapter: ProviderAdapter;
let wahoo: WahooStandin;
const tallies: Tallies = [];

/** `/api/v1/endless/<status>/<kind>`: that status, then a body of that kind forever. */
const ENDLESS = /^\/api\/v1\/endless\/(\d{3})\/(endless|trickle)$/;

test.before(async () => {
  standin = await startIntervalsIcuStandin({
    clientId: 'cid', clientSecret: 'csecret', rateLimit: { requests: 1000, windowMs: 1000 },
    routes: [
      (_request, response, url) => {
        const endless = ENDLESS.exec(url.pathname);
        const file = /^\/api\/v1\/activity\/(endless|bomb)\/file$/.exec(url.pathname);
        const athlete = url.pathname === '/api/v1/athlete/0';
        if (!endless && !file && !athlete) return false;
        response.writeHead(endless ? Number(endless[1]) : 200, { 'content-type': 'application/octet-stream' });
        // A gzip of 1 MiB more zeros than a file may hold: about 65 KB on the wire.
        if (file?.[1] === 'bomb') response.end(gzipSync(Buffer.alloc(PROVIDER_FILE_MAX_BYTES + 1024 * 1024), { level: 9 }));
        else writeEndless(response, endless ? endless[2] as EndlessBody : 'endless', tallies);
        return true;
      },
    ],
  });
  adapter = intervalsIcuAdapter({ clientId: 'cid', clientSecret: 'csecret', authorizeBaseUrl: standin.baseUrl, apiBaseUrl: standin.baseUrl, tokenBaseUrl: standin.baseUrl, pushSecret: null });
  wahoo = await startWahooStandin();
});
test.after(async () => {
  await standin.close();
  await wahoo.close();
});

/** The error `call` rejects with (fails when it resolves). */
async function refusal(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the call resolved');
}

const context = (): HttpContext => ({ provider: 'intervals_icu', fetch: globalThis.fetch, now: Date.now, timeoutMs: DEADLINE_MS, rateLimitFloorMs: null });

test('an activity file that never ends stops at the file limit: refused, naming the call and the limit, the connection closed', async () => {
  const error = await refusal(adapter.download(TOKENS, { id: 'x', start: 0, file: 'endless' }));
  assert.instance(error, ProviderRefused);
  assert.match(error.message, `intervals_icu GET activity file: HTTP 200: the answer passed ${PROVIDER_FILE_MAX_BYTES} bytes`);
  await closedWithin(tallies.at(-1)!, 5_000);
});

test('a gzip file that unpacks past the file limit is refused, not unpacked', async () => {
  const error = await refusal(adapter.download(TOKENS, { id: 'x', start: 0, file: 'bomb' }));
  assert.instance(error, ProviderRefused);
  assert.match(error.message, `intervals_icu GET activity file: the file unpacks to more than ${PROVIDER_FILE_MAX_BYTES} bytes`);
});

test('a JSON answer that never ends stops at the JSON limit', async () => {
  const error = await refusal(adapter.identity(TOKENS));
  assert.instance(error, ProviderRefused);
  assert.match(error.message, `intervals_icu GET athlete: HTTP 200: the answer passed ${PROVIDER_JSON_MAX_BYTES} bytes`);
  await closedWithin(tallies.at(-1)!, 5_000);
});

test('a JSON answer that trickles ends at the call\'s one deadline (headers and body): unavailable, retried later', async () => {
  const started = performance.now();
  const response = await send(context(), `${standin.baseUrl}/api/v1/endless/200/trickle`);
  const error = await refusal(readJson(context(), response, 'intervals_icu GET x')) as ProviderCallError;
  const took = performance.now() - started;
  assert.equal([error.name, error.kind, error.status], ['ProviderCallError', 'unavailable', 200]);
  assert.is(error.message, `intervals_icu GET x: HTTP 200: the answer did not end within the ${DEADLINE_MS} ms deadline`);
  assert.ok(took >= DEADLINE_MS - 5 && took < DEADLINE_MS + 1_000, `ended after ${took} ms`);
  await closedWithin(tallies.at(-1)!, 2_000);
});

test('an error answer that never ends or trickles is quoted from a small prefix, by the deadline', async () => {
  for (const kind of ['endless', 'trickle'] as const) {
    const started = performance.now();
    const response = await send(context(), `${standin.baseUrl}/api/v1/endless/503/${kind}`);
    const error = await failure(context(), response, 'intervals_icu GET x');
    assert.equal([error.kind, error.status], ['unavailable', 503]);
    assert.match(error.message, /^intervals_icu GET x: HTTP 503 \{+$/);
    assert.ok(error.message.length <= 'intervals_icu GET x: HTTP 503 '.length + 300, `${kind}: at most 300 characters quoted`);
    assert.ok(performance.now() - started < DEADLINE_MS + 1_000, `${kind}: ended by the deadline`);
    await closedWithin(tallies.at(-1)!, 2_000);
  }
});

const WAHOO_REDIRECT = 'https://t.example/cb';

/** A Wahoo app on the stand-in, and a fresh code for `userId` with its verifier. */
async function wahooGrant(userId: number) {
  wahoo.addUser(userId, { workouts: wahooWorkouts(1, wahoo.clock.now(), 900 + userId) });
  wahoo.approveAs(userId);
  const app: WahooApp = { clientId: wahoo.clientId, clientSecret: wahoo.clientSecret, apiBase: wahoo.baseUrl, scopes: WAHOO_DEFAULT_SCOPES };
  const pkce = newPkcePair();
  const { code } = await authorize(wahooAuthorizeUrl(app, { redirectUri: WAHOO_REDIRECT, state: 's', challenge: pkce.challenge }));
  return { app, grant: { code, redirectUri: WAHOO_REDIRECT, verifier: pkce.verifier } };
}

test('a token answer that never ends stops at the token limit; a refusal that never ends is still a refusal, quoted short', async () => {
  const first = await wahooGrant(31);
  wahoo.fault({ method: 'POST', path: '/oauth/token', reply: { status: 200, endless: 'endless' } });
  const endless = await refusal(exchangeWahooCode(contextFor('wahoo', wahoo.clock), first.app, first.grant)) as ProviderCallError;
  assert.equal([endless.kind, endless.message], ['rejected', `wahoo code exchange: HTTP 200: the answer passed ${TOKEN_ANSWER_MAX_BYTES} bytes`]);
  await closedWithin(wahoo.tallies.at(-1)!, 5_000);
  const second = await wahooGrant(32);
  wahoo.fault({ method: 'POST', path: '/oauth/token', reply: { status: 400, endless: 'endless' } });
  const refused = await refusal(exchangeWahooCode(contextFor('wahoo', wahoo.clock), second.app, second.grant)) as ProviderCallError;
  assert.equal([refused.kind, refused.status], ['unauthorized', 400]);
  assert.ok(refused.message.length < 400, refused.message.slice(0, 100));
  await closedWithin(wahoo.tallies.at(-1)!, 5_000);
});

test('a FIT file from the CDN that never ends stops at the file limit', async () => {
  const { app, grant } = await wahooGrant(33);
  const context = contextFor('wahoo', wahoo.clock);
  const tokens = await exchangeWahooCode(context, app, grant);
  const client = new WahooClient(context, app, { key: 'wahoo-33', keeper: memoryKeeper(tokens) }, new Serializer(), new WahooRateGauge());
  const url = (await client.workoutSummary(String(900 + 33)))!.fileUrl!;
  wahoo.fault({ path: /^\/cdn\//, reply: { status: 200, endless: 'endless' } });
  const error = await refusal(client.downloadFile(url)) as ProviderCallError;
  assert.equal([error.kind, error.message], ['rejected', `wahoo FIT download: HTTP 200: the answer passed ${PROVIDER_FILE_MAX_BYTES} bytes`]);
  await closedWithin(wahoo.tallies.at(-1)!, 5_000);
});

test.run();
