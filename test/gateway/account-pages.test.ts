/**
 * The account pages over the real stack: connected apps and revocation (interface §3: only revoking
 * the app as a whole removes the grant; AUTH.md: revocation takes effect at once), and client secrets
 * (gaps.md: "each with a label, shown once; deleting one ends every token issued under it").
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, csrfFrom, locationOf, signIn } from '../support/browser-session.js';
import { addClientSecret, createApplication, createUser } from '../../gateway/services/accounts.js';
import { hashSecret, newSecret } from '../../gateway/auth/secrets.js';
import { newId } from '../../storage/ids.js';
import type { ApplicationRecord, UserRecord } from '../../storage/store.js';

const account = suite<{ stack: TestStack }>('account pages');

account.before(async (context) => {
  context.stack = await startStack();
});
account.after(async (context) => {
  await context.stack.close();
});

const PASSWORD = 'account pages password';
let counter = 0;

async function person(stack: TestStack, firstName = 'Ada'): Promise<{ user: UserRecord; jar: CookieJar }> {
  counter += 1;
  const email = `person-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: firstName });
  return { user, jar: await signIn(stack, email, PASSWORD) };
}

async function app(stack: TestStack, ownerId: string, name: string): Promise<ApplicationRecord> {
  return createApplication(stack.store, ownerId, { name, redirect_uris: ['https://app.example/cb'] });
}

account('sends a browser that is not signed in to the sign-in page', async ({ stack }) => {
  const jar = new CookieJar(stack.baseUrl);
  const response = await jar.get('/account');
  assert.is(response.status, 303);
  assert.is(locationOf(response, stack.baseUrl), '/signin?next=%2Faccount', 'and back to the account after signing in');
  const settings = await jar.get('/account/applications/0123456789abcdef');
  assert.is(settings.status, 303);
  assert.is(locationOf(settings, stack.baseUrl), '/signin');
});

account('lists who is signed in, the connected apps with what they may do, and the apps the user owns', async ({ stack }) => {
  const { user, jar } = await person(stack, 'Grace');
  const developer = await createUser(stack.store, { email: `dev-${counter}@example.com` });
  const connected = await app(stack, developer.id, 'Pace Coach');
  const owned = await app(stack, user.id, 'My Tool');
  await stack.userWithToken(['activities:read', 'activities:write', 'wellness:read', 'openid', 'profile'], { appId: connected.id, userId: user.id });

  const response = await jar.get('/account');
  assert.is(response.status, 200);
  const html = await response.text();
  assert.match(html, 'Grace');
  assert.match(html, user.email!);
  assert.match(html, 'Pace Coach');
  assert.match(html, 'Your activities (read and change)');
  assert.match(html, 'Your daily wellness measures (read)');
  for (const scope of ['activities:read', 'activities:write', 'wellness:read', 'openid', 'profile']) {
    assert.match(html, `<code class="scope">${scope}</code>`, 'the raw scope list too');
  }
  assert.match(html, `action="/account/apps/${connected.id}/revoke"`);
  assert.match(html, 'My Tool');
  assert.match(html, `href="/account/applications/${owned.id}"`);
  assert.match(html, 'action="/signout"');
});

account('revoking an app ends its grant and its access tokens at once', async ({ stack }) => {
  const { user, jar } = await person(stack);
  const developer = await createUser(stack.store, { email: `dev-${counter}-r@example.com` });
  const connected = await app(stack, developer.id, 'Ride Log');
  const { token } = await stack.userWithToken(['activities:read'], { appId: connected.id, userId: user.id });
  assert.is((await stack.get('/api/v1/activities/', token)).status, 200, 'the token works before');

  const page = await jar.get('/account');
  const revoked = await jar.post(`/account/apps/${connected.id}/revoke`, { csrf: csrfFrom(await page.text()) });
  assert.is(revoked.status, 303);
  assert.is(locationOf(revoked, stack.baseUrl), '/account?notice=revoked');
  assert.is(await stack.store.grants.count({ user_id: user.id, application_id: connected.id }), 0);
  const after = await stack.get('/api/v1/activities/', token);
  assert.is(after.status, 401);
  assert.match(after.headers.get('www-authenticate') ?? '', /^Bearer/);
  const notice = await (await jar.get('/account?notice=revoked')).text();
  assert.match(notice, 'Access revoked');
  assert.not.match(notice, 'Ride Log', 'no longer listed');
});

account('a new client secret is shown once, with a warning, and never again', async ({ stack }) => {
  const { user, jar } = await person(stack);
  const owned = await app(stack, user.id, 'Secret Keeper');
  const settings = await jar.get(`/account/applications/${owned.id}`);
  assert.is(settings.status, 200);
  const settingsHtml = await settings.text();
  assert.match(settingsHtml, owned.id, 'the client id');
  assert.match(settingsHtml, 'https://app.example/cb', 'the redirect URIs');

  const created = await jar.post(`/account/applications/${owned.id}/secrets`, { label: 'production', csrf: csrfFrom(settingsHtml) });
  assert.is(created.status, 201);
  const createdHtml = await created.text();
  const secret = /tsk_[A-Za-z0-9_-]{43}/.exec(createdHtml)?.[0];
  assert.ok(secret, 'the secret is on the page');
  assert.match(createdHtml, 'it will not be shown again');
  const stored = await stack.store.client_secrets.findOne({ application_id: owned.id });
  assert.is(stored!.secret_hash, hashSecret(secret!), 'only its hash is stored');
  assert.is(stored!.label, 'production');

  const again = await (await jar.get(`/account/applications/${owned.id}`)).text();
  assert.not.match(again, secret!, 'a second load does not contain it');
  assert.match(again, 'production');
  assert.match(again, `${stored!.hint}…`, 'only the hint');
  assert.match(again, 'ends every token issued under it', 'the delete confirmation says what it does');
});

account('deleting a client secret removes it and every refresh token issued under it', async ({ stack }) => {
  const { user, jar } = await person(stack);
  const owned = await app(stack, user.id, 'Rotating App');
  const { record } = await addClientSecret(stack.store, owned, 'old');
  const { record: kept } = await addClientSecret(stack.store, owned, 'new');
  const refresh = (secretId: string) => ({
    id: newId(), token_hash: hashSecret(newSecret('trt')), user_id: user.id, application_id: owned.id, grant_id: newId(),
    client_secret_id: secretId, scopes: ['activities:read'], auth_time: Date.now(), created_at: Date.now(), last_used_at: null,
  });
  await stack.store.refresh_tokens.insert(refresh(record.id));
  await stack.store.refresh_tokens.insert(refresh(kept.id));

  const page = await jar.get(`/account/applications/${owned.id}`);
  const deleted = await jar.post(`/account/applications/${owned.id}/secrets/${record.id}/delete`, { csrf: csrfFrom(await page.text()) });
  assert.is(deleted.status, 303);
  assert.is(locationOf(deleted, stack.baseUrl), `/account/applications/${owned.id}?notice=secret_deleted`);
  assert.is(await stack.store.client_secrets.count({ id: record.id }), 0);
  assert.is(await stack.store.refresh_tokens.count({ client_secret_id: record.id }), 0);
  assert.is(await stack.store.client_secrets.count({ id: kept.id }), 1, 'the other secret stays');
  assert.is(await stack.store.refresh_tokens.count({ client_secret_id: kept.id }), 1, 'and its tokens');
  const html = await (await jar.get(`/account/applications/${owned.id}?notice=secret_deleted`)).text();
  assert.match(html, 'Client secret deleted');
  assert.not.match(html, '>old<');
});

account('another account gets 404 for an application it does not own, and changes nothing', async ({ stack }) => {
  const owner = await person(stack);
  const owned = await app(stack, owner.user.id, 'Not Yours');
  const { record } = await addClientSecret(stack.store, owned, 'owner only');
  const stranger = await person(stack, 'Mallory');
  const csrf = csrfFrom(await (await stranger.jar.get('/account')).text());

  const settings = await stranger.jar.get(`/account/applications/${owned.id}`);
  assert.is(settings.status, 404);
  const html = await settings.text();
  assert.not.match(html, 'Not Yours');
  assert.not.match(html, record.hint);
  assert.is((await stranger.jar.post(`/account/applications/${owned.id}/secrets`, { label: 'mine now', csrf })).status, 404);
  assert.is((await stranger.jar.post(`/account/applications/${owned.id}/secrets/${record.id}/delete`, { csrf })).status, 404);
  assert.is(await stack.store.client_secrets.count({ application_id: owned.id }), 1);
  assert.is((await stranger.jar.get('/account/applications/ffffffffffffffff')).status, 404, 'the same as an unknown id');
});

account('signing out from the account page ends the session', async ({ stack }) => {
  const { jar } = await person(stack);
  const page = await jar.get('/account');
  const out = await jar.post('/signout', { csrf: csrfFrom(await page.text()) });
  assert.is(out.status, 303);
  assert.is(locationOf(out, stack.baseUrl), '/signin');
  assert.is((await jar.get('/account')).status, 303);
});

account.run();
