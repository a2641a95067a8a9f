/**
 * Garmin OAuth 2.0 with PKCE through our client against the stand-in: S256 challenge checked, codes
 * single-use, 24 h tokens refreshed ≥ 600 s before expiry with both tokens rotating, one refresh per
 * connection even when calls race.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { GarminClient } from '../../../engine/integrations/garmin/client.js';
import type { GarminApp } from '../../../engine/integrations/garmin/endpoints.js';
import { exchangeGarminCode, garminAuthorizeUrl, GARMIN_REFRESH_MARGIN_MS } from '../../../engine/integrations/garmin/oauth.js';
import { newPkcePair } from '../../../engine/integrations/pkce.js';
import { ProviderCallError } from '../../../engine/integrations/provider-call-error.js';
import { memoryKeeper, Serializer } from '../../../engine/integrations/token-keeper.js';
import { authorize, contextFor } from '../../support/standins/clients.js';
import { startGarminStandin, type GarminStandin } from '../../support/standins/garmin.js';

const oauth = suite<{ garmin: GarminStandin; app: GarminApp }>('garmin oauth');
const REDIRECT = 'https://threshold.example/integrations/garmin_connect/callback';

oauth.before(async (context) => {
  context.garmin = await startGarminStandin();
  context.garmin.addUser('garmin-user-1');
  context.garmin.approveAs('garmin-user-1');
  const base = context.garmin.baseUrl;
  context.app = { clientId: context.garmin.clientId, clientSecret: context.garmin.clientSecret, endpoints: { connectBase: base, authBase: base, apiBase: base } };
});
oauth.after(async ({ garmin }) => garmin.close());

async function connect({ garmin, app }: { garmin: GarminStandin; app: GarminApp }) {
  const pkce = newPkcePair();
  const { code, state } = await authorize(garminAuthorizeUrl(app, { challenge: pkce.challenge, state: 'st-1', redirectUri: REDIRECT }));
  assert.equal(state, 'st-1');
  const tokens = await exchangeGarminCode(contextFor('garmin_connect', garmin.clock), app, { code, verifier: pkce.verifier, redirectUri: REDIRECT });
  return { tokens, code, pkce };
}

oauth('exchanges a code with its PKCE verifier for 24 h tokens and a rotating refresh token', async (context) => {
  const { tokens } = await connect(context);
  assert.equal(tokens.expires_at, context.garmin.clock.now() + 86_400_000);
  assert.ok(tokens.refresh_token);
  assert.ok(tokens.refresh_expires_at! > tokens.expires_at!);
  const [exchange] = context.garmin.requests('/di-oauth2-service/oauth/token', 'POST').slice(-1);
  assert.match(String(exchange!.headers['content-type']), /application\/x-www-form-urlencoded/);
});

oauth('sends only S256 challenges on the consent URL', ({ app }) => {
  const url = new URL(garminAuthorizeUrl(app, { challenge: 'c', state: 's' }));
  assert.equal(url.pathname, '/oauth2Confirm');
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(url.searchParams.get('response_type'), 'code');
});

oauth('a wrong verifier is refused and the code cannot be used again', async ({ garmin, app }) => {
  const pkce = newPkcePair();
  const { code } = await authorize(garminAuthorizeUrl(app, { challenge: pkce.challenge, state: 's', redirectUri: REDIRECT }));
  const context = contextFor('garmin_connect', garmin.clock);
  const wrong = await exchangeGarminCode(context, app, { code, verifier: newPkcePair().verifier, redirectUri: REDIRECT }).catch((error) => error);
  assert.ok(wrong instanceof ProviderCallError && wrong.kind === 'unauthorized', String(wrong));
  const again = await exchangeGarminCode(context, app, { code, verifier: pkce.verifier, redirectUri: REDIRECT }).catch((error) => error);
  assert.ok(again instanceof ProviderCallError && again.kind === 'unauthorized', 'a code is single-use');
});

oauth('a used code is refused the second time', async (context) => {
  const { code, pkce } = await connect(context);
  const reuse = await exchangeGarminCode(contextFor('garmin_connect', context.garmin.clock), context.app, { code, verifier: pkce.verifier, redirectUri: REDIRECT }).catch((error) => error);
  assert.ok(reuse instanceof ProviderCallError && reuse.kind === 'unauthorized');
});

oauth('keeps the token while it has more than 600 s left, then refreshes once and rotates both tokens', async (context) => {
  const { garmin, app } = context;
  const { tokens } = await connect(context);
  const keeper = memoryKeeper(tokens);
  const client = new GarminClient(contextFor('garmin_connect', garmin.clock), app, { key: 'conn-1', keeper }, new Serializer());
  garmin.clock.advance(86_400_000 - GARMIN_REFRESH_MARGIN_MS - 1000);
  assert.equal(await client.userId(), 'garmin-user-1');
  assert.equal(keeper.saves, 0);
  garmin.clock.advance(2000); // now 599 s before expiry
  const refreshesBefore = garmin.requests('/di-oauth2-service/oauth/token').length;
  const ids = await Promise.all([client.userId(), client.permissions(), client.userId()]);
  assert.equal(ids[0], 'garmin-user-1');
  assert.equal(garmin.requests('/di-oauth2-service/oauth/token').length - refreshesBefore, 1, 'one refresh for three racing calls');
  assert.equal(keeper.saves, 1);
  assert.notEqual(keeper.current.access_token, tokens.access_token);
  assert.notEqual(keeper.current.refresh_token, tokens.refresh_token);
  // The old refresh token is dead (assume: single use).
  const stale = new GarminClient(contextFor('garmin_connect', garmin.clock), app, { key: 'conn-stale', keeper: memoryKeeper({ ...tokens, expires_at: 0 }) }, new Serializer());
  const refused = await stale.userId().catch((error) => error);
  assert.ok(refused instanceof ProviderCallError && refused.kind === 'unauthorized');
});

oauth('an expired token that the caller did not refresh is answered 401 and reported as unauthorized', async (context) => {
  const { tokens } = await connect(context);
  const client = new GarminClient(contextFor('garmin_connect', context.garmin.clock), context.app, { key: 'c', keeper: memoryKeeper(tokens), refresh: false }, new Serializer());
  context.garmin.clock.advance(86_400_001);
  const refused = await client.userId().catch((error) => error);
  assert.ok(refused instanceof ProviderCallError && refused.kind === 'unauthorized' && refused.status === 401);
});

oauth.run();
