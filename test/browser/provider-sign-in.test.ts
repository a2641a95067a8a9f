/**
 * Signing in through a provider in a real browser (headless Chromium), against the intervals.icu
 * stand-in: an app's link with `integration=intervals_icu` goes straight to the provider and back to the
 * consent screen as a new account; a person on the sign-in screen presses "Sign in with intervals.icu"
 * and comes back as the same account; each time Allow sends the app its code. The relying party is a
 * small loopback server that receives the callback.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium } from '../support/chromium.js';
import { startIntervalsIcuStandin, type IntervalsIcuStandin } from '../support/standins/intervals-icu.js';
import { ICU_CLIENT, intervalsIcuEnv } from '../support/integrations.js';
import { pkcePair, tokenRequest } from '../support/oauth.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import type { ApplicationRecord } from '../../storage/store.js';

interface Context {
  stack: TestStack;
  icu: IntervalsIcuStandin;
  browser: Browser;
  rp: http.Server;
  redirectUri: string;
  app: ApplicationRecord;
}

const flow = suite<Context>('browser provider sign-in');
skipUnless(chromiumMissing(), flow);

flow.before(async (context) => {
  context.icu = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, webhookSecret: ICU_CLIENT.webhookSecret });
  context.stack = await startStack(intervalsIcuEnv(context.icu));
  context.browser = await launchChromium();
  context.rp = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Pacer</title><h1>Connected</h1>');
  });
  context.rp.listen(0, '127.0.0.1');
  await once(context.rp, 'listening');
  context.redirectUri = `http://127.0.0.1:${(context.rp.address() as AddressInfo).port}/callback`;
  const owner = await createUser(context.stack.store, { email: 'browser-owner@example.com' });
  context.app = await createApplication(context.stack.store, owner.id, {
    name: 'Pacer', description: 'Pacing plans', url: 'https://pacer.example.com', image: 'https://pacer.example.com/logo.png',
    privacy_statement: 'https://pacer.example.com/privacy', redirect_uris: [context.redirectUri],
    purposes: { activities: 'Pacer plans your next runs from your rides.' },
  });
});
flow.after(async (context) => {
  await context.browser?.close();
  context.rp?.close();
  await context.stack?.close();
  await context.icu?.close();
});

/** Allow on the consent screen, then the app's back end redeems the code: the account the token names. */
async function allowAndRedeem(context: Context, page: Page, verifier: string): Promise<string> {
  assert.match(await page.content(), 'value="approve"', 'the consent screen');
  await Promise.all([page.waitForURL(`${context.redirectUri}**`), page.click('button[name="decision"][value="approve"]')]);
  const code = new URL(page.url()).searchParams.get('code')!;
  const token = await tokenRequest(context.stack, {
    grant_type: 'authorization_code', code, redirect_uri: context.redirectUri, client_id: context.app.id, code_verifier: verifier,
  });
  assert.is(token.status, 200);
  const { access_token } = (await token.json()) as { access_token: string };
  return (JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string }).sub;
}

function authorizeUrl(context: Context, challenge: string, extra: Record<string, string> = {}): string {
  const url = new URL(`${context.stack.baseUrl}/oauth/authorize`);
  const params = {
    response_type: 'code', client_id: context.app.id, redirect_uri: context.redirectUri, scope: 'activities:read', state: 'st-browser',
    code_challenge: challenge, code_challenge_method: 'S256', ...extra,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

flow('integration= goes straight to intervals.icu and back as a new account; the sign-in button then finds the same account', async (context) => {
  context.icu.approveAs({ id: 'i3001', name: 'Browser Athlete' });
  const first = await context.browser.newPage();
  const one = pkcePair();
  await first.goto(authorizeUrl(context, one.challenge, { integration: 'intervals_icu' }));
  assert.match(first.url(), /\/oauth\/interaction\//, 'through the provider, no sign-in screen');
  assert.match(await first.content(), 'Pacer plans your next runs', 'the consent screen, with the purpose');
  await first.screenshot({ path: path.join(ARTIFACTS, 'provider-sign-in-1-consent.png'), fullPage: true });
  const created = await allowAndRedeem(context, first, one.verifier);
  await first.context().close();

  const second = await context.browser.newPage();
  const two = pkcePair();
  await second.goto(authorizeUrl(context, two.challenge));
  assert.match(second.url(), /\/signin\?interaction=/);
  await second.screenshot({ path: path.join(ARTIFACTS, 'provider-sign-in-2-sign-in.png'), fullPage: true });
  await Promise.all([second.waitForURL(/\/oauth\/interaction\//), second.click('text=Sign in with intervals.icu')]);
  assert.is(await allowAndRedeem(context, second, two.verifier), created, 'the returning athlete is the same account');
  await second.context().close();

  const connection = (await context.stack.store.connections.findOne({ user_id: created, provider: 'intervals_icu' }))!;
  assert.is(connection.external_user_id, 'i3001');
});

flow.run();
