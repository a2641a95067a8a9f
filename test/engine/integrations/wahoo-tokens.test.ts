/**
 * Wahoo OAuth through our client against the stand-in: PKCE for a public app, parameters in the query
 * string, single-use codes, 2 h tokens refreshed only when needed and never concurrently, the new pair
 * saved before its first use (the old pair dies only then), the 10-unrevoked-tokens refusal, and 401
 * after `DELETE /v1/permissions`.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import type { ProviderTokens } from '../../../engine/integrations/credentials.js';
import { newPkcePair } from '../../../engine/integrations/pkce.js';
import { ProviderCallError } from '../../../engine/integrations/provider-call-error.js';
import { memoryKeeper, Serializer, type TokenKeeper } from '../../../engine/integrations/token-keeper.js';
import { WahooClient } from '../../../engine/integrations/wahoo/client.js';
import { WAHOO_DEFAULT_SCOPES, type WahooApp } from '../../../engine/integrations/wahoo/endpoints.js';
import { exchangeWahooCode, wahooAuthorizeUrl } from '../../../engine/integrations/wahoo/oauth.js';
import { WahooRateGauge } from '../../../engine/integrations/wahoo/rate-gauge.js';
import { authorize, contextFor } from '../../support/standins/clients.js';
import { startWahooStandin, type WahooStandin } from '../../support/standins/wahoo.js';

const tokens = suite<{ wahoo: WahooStandin }>('wahoo tokens');
const REDIRECT = 'https://threshold.example/integrations/wahoo/callback';
const TWO_HOURS = 7_200_000;

tokens.before(async (context) => {
  context.wahoo = await startWahooStandin();
});
tokens.after(async ({ wahoo }) => wahoo.close());

const appOf = (wahoo: WahooStandin, confidential = true): WahooApp => ({ clientId: wahoo.clientId, clientSecret: confidential ? wahoo.clientSecret : null, apiBase: wahoo.baseUrl, scopes: WAHOO_DEFAULT_SCOPES });

async function connect(wahoo: WahooStandin, userId: number, confidential = true): Promise<ProviderTokens> {
  if (!wahoo.user(userId)) wahoo.addUser(userId);
  wahoo.approveAs(userId);
  const app = appOf(wahoo, confidential);
  const pkce = newPkcePair();
  const { code } = await authorize(wahooAuthorizeUrl(app, { redirectUri: REDIRECT, state: 's', challenge: pkce.challenge }));
  return exchangeWahooCode(contextFor('wahoo', wahoo.clock), app, { code, redirectUri: REDIRECT, verifier: pkce.verifier });
}

const clientOf = (wahoo: WahooStandin, keeper: TokenKeeper, serializer = new Serializer()) =>
  new WahooClient(contextFor('wahoo', wahoo.clock), appOf(wahoo), { key: 'conn', keeper }, serializer, new WahooRateGauge());

const errorOf = (promise: Promise<unknown>) => promise.then(() => null, (error) => error as ProviderCallError);

tokens('a public app connects with PKCE and no secret; the token parameters travel in the query string', async ({ wahoo }) => {
  const granted = await connect(wahoo, 1, false);
  assert.equal(granted.expires_at, wahoo.clock.now() + TWO_HOURS);
  const [exchange] = wahoo.requests('/oauth/token', 'POST').slice(-1);
  assert.equal(exchange!.query.get('grant_type'), 'authorization_code');
  assert.equal(exchange!.query.get('client_secret'), null);
  assert.equal(exchange!.body.length, 0);
});

tokens('a wrong verifier is refused, and a code is single-use', async ({ wahoo }) => {
  wahoo.addUser(2);
  wahoo.approveAs(2);
  const app = appOf(wahoo, false);
  const pkce = newPkcePair();
  const { code } = await authorize(wahooAuthorizeUrl(app, { redirectUri: REDIRECT, state: 's', challenge: pkce.challenge }));
  const context = contextFor('wahoo', wahoo.clock);
  const wrong = await errorOf(exchangeWahooCode(context, app, { code, redirectUri: REDIRECT, verifier: newPkcePair().verifier }));
  assert.equal(wrong?.kind, 'unauthorized');
  const reused = await errorOf(exchangeWahooCode(context, app, { code, redirectUri: REDIRECT, verifier: pkce.verifier }));
  assert.equal(reused?.kind, 'unauthorized');
});

tokens('uses the token until it nearly expires, then refreshes once for racing calls and saves the pair before using it', async ({ wahoo }) => {
  const first = await connect(wahoo, 3);
  const checks: boolean[] = [];
  const keeper = memoryKeeper(first);
  const saving: TokenKeeper = {
    load: keeper.load,
    save: async (fresh) => {
      // At save time the new access token has not been used: the old pair must still work.
      checks.push(wahoo.isLive(first.access_token) && wahoo.isLive(fresh.access_token));
      await keeper.save(fresh);
    },
  };
  const client = clientOf(wahoo, saving);
  const refreshes = () => wahoo.requests('/oauth/token').filter((entry) => entry.query.get('grant_type') === 'refresh_token').length;
  wahoo.clock.advance(TWO_HOURS - 120_000);
  await client.user();
  assert.equal(refreshes(), 0, 'no refresh while the token has minutes left');
  wahoo.clock.advance(90_000);
  await Promise.all([client.user(), client.workouts(1), client.user()]);
  assert.equal(refreshes(), 1, 'one refresh for three racing calls');
  assert.deepEqual(checks, [true]);
  assert.equal(wahoo.isLive(first.access_token), false, 'the old pair died when the new access token was used');
  assert.equal(wahoo.unrevokedTokens(3), 1);
});

tokens('a refreshed pair whose save failed was never used, so the old pair still works and nothing is lost', async ({ wahoo }) => {
  const first = await connect(wahoo, 4);
  const keeper = memoryKeeper({ ...first, expires_at: wahoo.clock.now() }); // we believe it expired
  let failNext = true;
  const flaky: TokenKeeper = {
    load: keeper.load,
    save: async (fresh) => {
      if (failNext) {
        failNext = false;
        throw new Error('store unavailable');
      }
      await keeper.save(fresh);
    },
  };
  const client = clientOf(wahoo, flaky);
  await assert.rejects(client.user(), /store unavailable/);
  assert.equal(wahoo.isLive(first.access_token), true, 'the unsaved pair was never used, so the old one lives');
  assert.equal((await client.user()).id, '4');
  assert.equal(wahoo.isLive(first.access_token), false);
});

tokens('a 401 from an API call gets one refresh; after DELETE /v1/permissions every token is refused and the user must reconnect', async ({ wahoo }) => {
  const granted = await connect(wahoo, 5);
  const keeper = memoryKeeper(granted);
  const client = clientOf(wahoo, keeper);
  await client.revoke();
  assert.equal(wahoo.requests('/v1/permissions', 'DELETE').length, 1);
  const refused = await errorOf(client.user());
  assert.equal(refused?.kind, 'unauthorized');
  assert.equal(refused?.status, 401);
  await client.revoke(); // already gone: not an error
});

tokens('the eleventh unrevoked token is refused: the user must revoke access in Wahoo and connect again', async ({ wahoo }) => {
  for (let connection = 0; connection < 10; connection++) await connect(wahoo, 6);
  assert.equal(wahoo.unrevokedTokens(6), 10);
  const refused = await connect(wahoo, 6).then(() => null, (error: ProviderCallError) => error);
  assert.equal(refused?.kind, 'unauthorized');
  assert.match(refused?.message ?? '', /too many unrevoked tokens/);
});

tokens.run();
