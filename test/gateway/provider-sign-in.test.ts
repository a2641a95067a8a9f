/**
 * Signing in through a provider (interface §5 authorize `integration`: "skips the sign-in chooser and
 * sends the user straight to that provider"), end to end on the real stack against the intervals.icu and
 * Wahoo stand-ins: a new athlete gets an account linked to the provider and the app gets a code for it; a
 * returning athlete is the same account; a Wahoo email that belongs to another account is never merged
 * (sign in first, then connect); a refusal at the provider ends on a page leading back to sign-in; the
 * callback works only in the browser that started it; the sign-in screen offers "Sign in with …"; Garmin
 * Connect (PKCE, no profile) links by its user id.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { startIntervalsIcuStandin, type IntervalsIcuStandin } from '../support/standins/intervals-icu.js';
import { startWahooStandin, type WahooStandin } from '../support/standins/wahoo.js';
import { startGarminStandin } from '../support/standins/garmin.js';
import { FakeClock } from '../support/standins/standin-core.js';
import { followProvider, ICU_CLIENT, intervalsIcuEnv } from '../support/integrations.js';
import { CookieJar, csrfFrom, locationOf } from '../support/browser-session.js';
import { pkcePair, tokenRequest } from '../support/oauth.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import type { ApplicationRecord } from '../../storage/store.js';

const REDIRECT = 'https://pacer.example.com/cb';
const PASSWORD = 'correct horse battery';

let stack: TestStack;
let icu: IntervalsIcuStandin;
let wahoo: WahooStandin;
let app: ApplicationRecord;

/** A public app with its purpose: everyone but its owner sees the consent screen. */
async function publicApp(on: TestStack): Promise<ApplicationRecord> {
  const owner = await createUser(on.store, { email: `owner-${Date.now()}@example.com` });
  return createApplication(on.store, owner.id, {
    name: 'Pacer', description: 'Pacing plans', url: 'https://pacer.example.com', image: 'https://pacer.example.com/logo.png',
    privacy_statement: 'https://pacer.example.com/privacy', redirect_uris: [REDIRECT], purposes: { activities: 'Pacer plans your next runs from your rides.' },
  });
}

test.before(async () => {
  icu = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, webhookSecret: ICU_CLIENT.webhookSecret });
  wahoo = await startWahooStandin();
  stack = await startStack({
    ...intervalsIcuEnv(icu),
    WAHOO_CLIENT_ID: wahoo.clientId, WAHOO_CLIENT_SECRET: wahoo.clientSecret, WAHOO_AUTHORIZE_URL: wahoo.baseUrl, WAHOO_API_URL: wahoo.baseUrl,
    WAHOO_WEBHOOK_TOKEN: wahoo.webhookToken, JOB_POLL_MS: '50',
  });
  app = await publicApp(stack);
});
test.after(async () => {
  await stack.close();
  await icu.close();
  await wahoo.close();
});

/** Starts an authorization in `jar` (for `client`, default the shared app); returns the PKCE verifier and the first answer. */
async function authorize(jar: CookieJar, extra: Record<string, string>, client = app): Promise<{ verifier: string; answer: Response }> {
  const pkce = pkcePair();
  const query = new URLSearchParams({
    client_id: client.id, redirect_uri: REDIRECT, response_type: 'code', scope: 'activities:read', state: 'st-1',
    code_challenge: pkce.challenge, code_challenge_method: 'S256', ...extra,
  });
  return { verifier: pkce.verifier, answer: await jar.get(`/oauth/authorize?${query}`) };
}

/** From authorize with `integration` to the provider: asserts the hand-off and answers our redirect to the provider. */
async function toProvider(jar: CookieJar, provider: string, client = app): Promise<{ verifier: string; redirect: Response; interaction: string }> {
  const { verifier, answer } = await authorize(jar, { integration: provider }, client);
  const signin = locationOf(answer, jar.baseUrl) ?? '';
  assert.match(signin, new RegExp(`^/integrations/${provider}/signin\\?interaction=`), 'straight to the provider, no sign-in chooser');
  const redirect = await jar.get(signin);
  assert.is(redirect.status, 303);
  return { verifier, redirect, interaction: decodeURIComponent(/interaction=([^&]+)/.exec(signin)![1]!) };
}

/** The provider's answer to our redirect, then our callback in `jar`: the callback's answer. */
async function callback(jar: CookieJar, redirect: Response): Promise<Response> {
  const provider = await fetch(redirect.headers.get('location')!, { redirect: 'manual' });
  assert.is(provider.status, 302, 'the provider redirects back');
  const back = new URL(provider.headers.get('location')!);
  return jar.get(`${back.pathname}${back.search}`);
}

/** Consent approved in `jar`, the code exchanged: the user id the app's token names. */
async function approveAndRedeem(jar: CookieJar, interactionPath: string, verifier: string, client = app): Promise<string> {
  const consent = await jar.get(interactionPath);
  assert.is(consent.status, 200, 'the consent screen follows');
  const decided = await jar.post(`${interactionPath}/decision`, { csrf: csrfFrom(await consent.text()), decision: 'approve' });
  const back = new URL(locationOf(decided, jar.baseUrl)!);
  assert.is(`${back.origin}${back.pathname}`, REDIRECT);
  assert.is(back.searchParams.get('state'), 'st-1');
  const token = await tokenRequest(jar, {
    grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: client.id, code_verifier: verifier,
  });
  assert.is(token.status, 200);
  const { access_token } = (await token.json()) as { access_token: string };
  return (JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string }).sub;
}

test('a new intervals.icu athlete gets an account linked to it, and the app a code for that account', async () => {
  icu.approveAs({ id: 'i2001', name: 'Ada Athlete' });
  const jar = new CookieJar(stack.baseUrl);
  const { verifier, redirect } = await toProvider(jar, 'intervals_icu');
  assert.ok(redirect.headers.get('location')!.startsWith(`${icu.baseUrl}/oauth/authorize?`), 'sent to intervals.icu');
  const back = await followProvider(jar, redirect);
  assert.match(back ?? '', /^\/oauth\/interaction\//, 'signed in, back into the authorization');

  const userId = await approveAndRedeem(jar, back!, verifier);
  const user = (await stack.store.users.get(userId))!;
  assert.is(user.first_name, 'Ada Athlete', 'named as intervals.icu names the athlete');
  assert.is(user.email, null, 'intervals.icu gives apps no email');
  const connection = (await stack.store.connections.findOne({ user_id: userId, provider: 'intervals_icu' }))!;
  assert.is(connection.external_user_id, 'i2001');
  assert.is(connection.status, 'connected');
  assert.not.match(JSON.stringify(connection.credentials), /access_token/, 'tokens sealed as for a normal connect');
  assert.is(await stack.store.jobs.count({ key: `provider_backfill:${connection.id}` }), 1, 'the backfill is queued: data starts flowing');
});

test('a returning athlete signs in to the same account', async () => {
  icu.approveAs({ id: 'i2002', name: 'Returning Rider' });
  const first = new CookieJar(stack.baseUrl);
  const one = await toProvider(first, 'intervals_icu');
  const firstId = await approveAndRedeem(first, (await followProvider(first, one.redirect))!, one.verifier);

  const again = new CookieJar(stack.baseUrl);
  const two = await toProvider(again, 'intervals_icu');
  const secondId = await approveAndRedeem(again, (await followProvider(again, two.redirect))!, two.verifier);
  assert.is(secondId, firstId);
  assert.is(await stack.store.connections.count({ provider: 'intervals_icu', external_user_id: 'i2002' }), 1, 'linked once');
  assert.is(await stack.store.users.count({ first_name: 'Returning Rider' }), 1, 'no second account');
});

test('a Wahoo email that belongs to an account asks the person to sign in first, then connects to that account', async () => {
  wahoo.addUser(501);
  wahoo.approveAs(501);
  const owner = await createUser(stack.store, { email: 'rider501@example.com', password: PASSWORD });
  const jar = new CookieJar(stack.baseUrl);
  const { verifier, redirect, interaction } = await toProvider(jar, 'wahoo');
  const consentUrl = new URL(redirect.headers.get('location')!);
  assert.ok(consentUrl.searchParams.get('scope')!.split(' ').includes('email'), 'a sign-in asks Wahoo for the email');
  assert.is(consentUrl.searchParams.get('code_challenge_method'), 'S256', 'with PKCE');

  const clash = await callback(jar, redirect);
  assert.is(clash.status, 409);
  const page = await clash.text();
  assert.match(page, 'You already have an account');
  assert.match(page, `/signin?interaction=${interaction}`);
  assert.is(await stack.store.connections.count({ provider: 'wahoo', external_user_id: '501' }), 0, 'nothing linked');
  assert.is(await stack.store.users.count({ email: 'rider501@example.com' }), 1, 'no account created');
  assert.is((await stack.store.sessions.find({})).filter((session) => session.user_id === owner.id).length, 0, 'not signed in to the account');

  const signinPage = await jar.get(`/signin?interaction=${interaction}`);
  const signedIn = await jar.post('/signin/password', { email: 'rider501@example.com', password: PASSWORD, csrf: csrfFrom(await signinPage.text()), interaction });
  const toConnect = await jar.get(locationOf(signedIn, stack.baseUrl)!);
  assert.match(locationOf(toConnect, stack.baseUrl) ?? '', /^\/integrations\/wahoo\/connect\?interaction=/, 'then connects Wahoo');
  const back = await followProvider(jar, await jar.get(locationOf(toConnect, stack.baseUrl)!));
  const userId = await approveAndRedeem(jar, back!, verifier);
  assert.is(userId, owner.id);
  assert.is((await stack.store.connections.findOne({ user_id: owner.id, provider: 'wahoo' }))?.external_user_id, '501');
});

test('a refusal at the provider ends on a page that leads back to sign-in; nobody is created', async () => {
  const before = await stack.store.users.count({});
  icu.approveAs({ id: 'i2003', name: 'Refusing Rider' });
  icu.denyNext();
  const jar = new CookieJar(stack.baseUrl);
  const { redirect, interaction } = await toProvider(jar, 'intervals_icu');
  const landing = await callback(jar, redirect);
  assert.is(landing.status, 200);
  const page = await landing.text();
  assert.match(page, 'Sign-in with intervals.icu was cancelled');
  assert.match(page, `/signin?interaction=${interaction}`);
  assert.is(await stack.store.users.count({}), before);
});

test('the callback completes only in the browser that started the sign-in', async () => {
  const before = await stack.store.users.count({});
  icu.approveAs({ id: 'i2004', name: 'Swapped Rider' });
  const jar = new CookieJar(stack.baseUrl);
  const { redirect } = await toProvider(jar, 'intervals_icu');
  const authorizeAnswer = await fetch(redirect.headers.get('location')!, { redirect: 'manual' });
  const callback = new URL(authorizeAnswer.headers.get('location')!);
  const elsewhere = new CookieJar(stack.baseUrl);
  await authorize(elsewhere, {}); // a session of its own, with an authorization of its own
  const answer = await elsewhere.get(`${callback.pathname}${callback.search}`);
  assert.is(answer.status, 400);
  assert.match(await answer.text(), 'started in another browser');
  assert.is(await stack.store.users.count({}), before, 'nobody signed in or created');
  // Nor can another browser use this one's authorization to start a sign-in.
  const { answer: other } = await authorize(new CookieJar(stack.baseUrl), { integration: 'intervals_icu' });
  const stolen = await elsewhere.get(locationOf(other, stack.baseUrl)!);
  assert.is(stolen.status, 400);
});

test('the sign-in screen offers "Sign in with" each configured provider', async () => {
  const jar = new CookieJar(stack.baseUrl);
  const { answer } = await authorize(jar, {});
  const signin = locationOf(answer, stack.baseUrl)!;
  assert.match(signin, /^\/signin\?interaction=/);
  const page = await (await jar.get(signin)).text();
  const interaction = /interaction=([^&]+)/.exec(signin)![1]!;
  assert.match(page, `href="/integrations/intervals_icu/signin?interaction=${interaction}"`);
  assert.match(page, 'Sign in with Wahoo');
  assert.not.match(page, 'Garmin', 'only configured providers');
});

test('a Garmin Connect user signs in through Garmin (PKCE S256) to a new account, then again to the same one', async () => {
  const garmin = await startGarminStandin({ clock: new FakeClock(Date.now()) });
  const own = await startStack({
    GARMIN_CLIENT_ID: garmin.clientId, GARMIN_CLIENT_SECRET: garmin.clientSecret,
    GARMIN_AUTHORIZE_URL: garmin.baseUrl, GARMIN_API_URL: garmin.baseUrl, GARMIN_TOKEN_URL: garmin.baseUrl, JOB_POLL_MS: '50',
  });
  try {
    const client = await publicApp(own);
    garmin.addUser('garmin-77');
    garmin.approveAs('garmin-77');
    const ids: string[] = [];
    for (let round = 0; round < 2; round++) {
      const jar = new CookieJar(own.baseUrl);
      const { verifier, redirect } = await toProvider(jar, 'garmin_connect', client);
      assert.is(new URL(redirect.headers.get('location')!).searchParams.get('code_challenge_method'), 'S256');
      const back = await followProvider(jar, redirect);
      assert.match(back ?? '', /^\/oauth\/interaction\//);
      ids.push(await approveAndRedeem(jar, back!, verifier, client));
    }
    assert.is(ids[1], ids[0], 'the returning Garmin user is the same account');
    const connection = (await own.store.connections.findOne({ user_id: ids[0]!, provider: 'garmin_connect' }))!;
    assert.is(connection.external_user_id, 'garmin-77', "Garmin's user id links the account");
    assert.is((await own.store.users.get(ids[0]!))!.email, null, 'Garmin gives no email');
  } finally {
    await own.close();
    await garmin.close();
  }
});

test('a misspelled integration is a 422 naming it; an unconfigured one a page, never a 500', async () => {
  const jar = new CookieJar(stack.baseUrl);
  const { answer: misspelled } = await authorize(jar, { integration: 'strava' });
  assert.is(misspelled.status, 422);
  const body = (await misspelled.json()) as { detail: { loc: string[] }[] };
  assert.ok(body.detail.some((issue) => issue.loc.includes('integration')));
  const { answer: unconfigured } = await authorize(jar, { integration: 'garmin_connect' });
  assert.is(unconfigured.status, 501);
  assert.match(await unconfigured.text(), 'Garmin Connect');
  const unknownProvider = await jar.get('/integrations/strava/signin?interaction=nope');
  assert.is(unknownProvider.status, 400);
});

test.run();
