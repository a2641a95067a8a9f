/**
 * Wahoo's rate limits through our client: the headers on every answer feed a per-app gauge that stops
 * calls before the sandbox's 25 per 5 minutes is exceeded (no 429 is provoked), a 429 is waited out until
 * `X-RateLimit-Reset` (or `Retry-After` when sent), and a new window lets calls through again.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { newPkcePair } from '../../../engine/integrations/pkce.js';
import { ProviderCallError } from '../../../engine/integrations/provider-call-error.js';
import { memoryKeeper, Serializer } from '../../../engine/integrations/token-keeper.js';
import { WahooClient } from '../../../engine/integrations/wahoo/client.js';
import { WAHOO_DEFAULT_SCOPES, type WahooApp } from '../../../engine/integrations/wahoo/endpoints.js';
import { exchangeWahooCode, wahooAuthorizeUrl } from '../../../engine/integrations/wahoo/oauth.js';
import { WahooRateGauge } from '../../../engine/integrations/wahoo/rate-gauge.js';
import { authorize, contextFor } from '../../support/standins/clients.js';
import { startWahooStandin, type WahooStandin } from '../../support/standins/wahoo.js';

const limits = suite('wahoo rate limits');

async function sandboxClient(wahoo: WahooStandin, gauge = new WahooRateGauge()): Promise<WahooClient> {
  if (!wahoo.user(1)) wahoo.addUser(1);
  wahoo.approveAs(1);
  const app: WahooApp = { clientId: wahoo.clientId, clientSecret: wahoo.clientSecret, apiBase: wahoo.baseUrl, scopes: WAHOO_DEFAULT_SCOPES };
  const pkce = newPkcePair();
  const { code } = await authorize(wahooAuthorizeUrl(app, { redirectUri: 'https://t.example/cb', state: 's', challenge: pkce.challenge }));
  const context = contextFor('wahoo', wahoo.clock);
  const tokens = await exchangeWahooCode(context, app, { code, redirectUri: 'https://t.example/cb', verifier: pkce.verifier });
  return new WahooClient(context, app, { key: 'c', keeper: memoryKeeper(tokens) }, new Serializer(), gauge);
}

const errorOf = (promise: Promise<unknown>) => promise.then(() => null, (error) => error as ProviderCallError);

limits('every answer carries day, hour and 5-minute limits; the gauge stops us at the limit, before any 429', async () => {
  const wahoo = await startWahooStandin({ quota: 'sandbox' });
  try {
    const gauge = new WahooRateGauge();
    const client = await sandboxClient(wahoo, gauge); // the token exchange is call 1 of 25
    let calls = 0;
    let stopped: ProviderCallError | null = null;
    while (stopped === null && calls < 30) {
      stopped = await errorOf(client.user());
      if (stopped === null) calls += 1;
    }
    assert.equal(calls, 24);
    assert.deepEqual(gauge.last?.limit, [250, 100, 25]);
    assert.deepEqual(gauge.last?.remaining, [225, 75, 0]);
    assert.equal(stopped?.kind, 'rate_limited');
    assert.equal(wahoo.requests('/v1/user').length, 24, 'the refused call never left');
    assert.equal(wahoo.log.filter((entry) => entry.path !== '/oauth/authorize').length, 25, 'the exchange and 24 calls: the sandbox 5-minute limit, never exceeded');
    const resetAt = stopped!.retryAt!;
    assert.ok(resetAt > wahoo.clock.now() && resetAt <= wahoo.clock.now() + 300_000);
    wahoo.clock.advance(resetAt - wahoo.clock.now());
    assert.equal((await client.user()).id, '1', 'the next window lets calls through');
  } finally {
    await wahoo.close();
  }
});

limits('a 429 (the budget spent by another process), with or without Retry-After, is waited out until the window resets', async () => {
  for (const retryAfter of [false, true]) {
    const wahoo = await startWahooStandin({ quota: 'sandbox', retryAfter });
    try {
      const spender = await sandboxClient(wahoo);
      while ((await errorOf(spender.user())) === null);
      const client = await sandboxClient(wahoo).catch((error: ProviderCallError) => error);
      assert.ok(client instanceof ProviderCallError, 'even the token exchange is refused');
      assert.equal(client.kind, 'rate_limited');
      assert.equal(client.status, 429);
      assert.ok(client.retryAt! > wahoo.clock.now() && client.retryAt! <= wahoo.clock.now() + 300_000, `${retryAfter}: ${client.retryAt! - wahoo.clock.now()} ms`);
    } finally {
      await wahoo.close();
    }
  }
});

limits('a 429 on an API call blocks the whole app until the reset', async () => {
  const wahoo = await startWahooStandin();
  try {
    const gauge = new WahooRateGauge();
    const client = await sandboxClient(wahoo, gauge);
    wahoo.fault({ path: '/v1/user', reply: { status: 429, body: { error: 'Rate limit exceeded' }, headers: { 'x-ratelimit-reset': '90' } } });
    const limited = await errorOf(client.user());
    assert.deepEqual([limited?.kind, limited?.retryAt], ['rate_limited', wahoo.clock.now() + 90_000]);
    const before = wahoo.log.length;
    const blocked = await errorOf(client.workouts(1));
    assert.equal(blocked?.kind, 'rate_limited');
    assert.equal(wahoo.log.length, before, 'blocked calls never leave');
    wahoo.clock.advance(90_000);
    assert.equal((await client.workouts(1)).total, 0);
  } finally {
    await wahoo.close();
  }
});

limits.run();
