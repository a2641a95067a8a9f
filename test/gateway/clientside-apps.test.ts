/**
 * The one-click page path (interface §2 "Application": is_clientside_app is "true when privacy_statement
 * is the standard client-side privacy policy URL, set when the app went live through the one-click page
 * path"): from the settings page, one action creates the app's page, adds its URL to the redirect URIs,
 * makes the instance's client-side privacy policy (served at /legal/client-side-privacy) the privacy
 * statement and the page the website, and asks for a missing description or image beside its field.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { csrfFrom, signIn, type CookieJar } from '../support/browser-session.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { isPrivate, presentApplication } from '../../gateway/presenters/application.js';
import type { ApplicationRecord } from '../../storage/store.js';

const PASSWORD = 'correct horse battery staple';
const test = suite<{ stack: TestStack; jar: CookieJar; ownerId: string }>('client-side apps');

test.before(async (context) => {
  context.stack = await startStack();
  context.ownerId = (await createUser(context.stack.store, { email: 'clientside-owner@example.com', password: PASSWORD })).id;
  context.jar = await signIn(context.stack, 'clientside-owner@example.com', PASSWORD);
});
test.after(async (context) => {
  await context.stack?.close();
});

async function goLive(jar: CookieJar, app: ApplicationRecord, fields: Record<string, string>): Promise<Response> {
  const csrf = csrfFrom(await (await jar.get(`/account/applications/${app.id}`)).text());
  return jar.post(`/account/applications/${app.id}/go-live`, { ...fields, csrf });
}

const errorOf = (html: string, id: string) => new RegExp(`<p class="field-error" id="${id}-error" role="alert">([^<]*)</p>`).exec(html)?.[1] ?? '';

test('serves the standard client-side privacy policy to anyone', async ({ stack }) => {
  const response = await fetch(`${stack.baseUrl}/legal/client-side-privacy`);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', 'text/html');
  assert.match(await response.text(), '<h1>Privacy policy for client-side apps</h1>');
});

test('asks for the page address, a description and an image beside their fields, and changes nothing', async ({ stack, jar, ownerId }) => {
  const app = await createApplication(stack.store, ownerId, { name: 'Bare' });
  const empty = await goLive(jar, app, {});
  assert.is(empty.status, 422);
  const html = await empty.text();
  assert.match(errorOf(html, 'live_slug'), 'Choose the page');
  assert.match(errorOf(html, 'live_description'), 'Describe the app');
  assert.match(errorOf(html, 'live_image'), 'square logo');
  const bad = await (await goLive(jar, app, { slug: 'admin', description: 'x'.repeat(501), image: 'http://bare.example.com/logo.png' })).text();
  assert.match(errorOf(bad, 'live_slug'), 'reserved word');
  assert.match(errorOf(bad, 'live_description'), 'at most 500');
  assert.match(errorOf(bad, 'live_image'), 'https://');
  assert.match(bad, 'value="http://bare.example.com/logo.png"', 'what was typed is kept');
  assert.equal(await stack.store.applications.get(app.id), app, 'nothing changed');
  assert.is(await stack.store.pages.get('admin'), null);
});

test('one action creates the page and takes the app live as a client-side app; the application object says is_clientside_app', async ({ stack, jar, ownerId }) => {
  const app = await createApplication(stack.store, ownerId, { name: 'Pacer', redirect_uris: ['https://pacer.example.com/cb'] });
  assert.is(presentApplication(app, null, { pagesBase: stack.pagesBase, baseUrl: stack.baseUrl }).is_clientside_app, false);
  const live = await goLive(jar, app, { slug: 'Pacer-Live', description: 'Charts your season in the browser', image: 'https://pacer.example.com/logo.png' });
  assert.is(live.status, 303);
  assert.is(live.headers.get('location'), `/account/applications/${app.id}?notice=went_live`);
  const stored = (await stack.store.applications.get(app.id))!;
  const pageUrl = `${stack.pagesBase}/pacer-live/`;
  assert.is(stored.page_slug, 'pacer-live');
  assert.equal(stored.redirect_uris, ['https://pacer.example.com/cb', pageUrl], 'the page URL joins the redirect URIs');
  assert.is(stored.privacy_statement, `${stack.baseUrl}/legal/client-side-privacy`);
  assert.is(stored.url, pageUrl, 'the page is the website when none was set');
  assert.is(stored.description, 'Charts your season in the browser');
  assert.is(isPrivate(stored), false, 'the app is public');
  const presented = presentApplication(stored, null, { pagesBase: stack.pagesBase, baseUrl: stack.baseUrl });
  assert.is(presented.is_clientside_app, true);
  assert.is(presented.is_private, false);
  assert.is(presented.page?.url, pageUrl);
  const page = await (await jar.get(`/account/applications/${app.id}?notice=went_live`)).text();
  assert.match(page, 'Your app is live as a client-side app');
  assert.match(page, 'This app is live as a client-side app');
  assert.ok(await stack.store.pages.get('pacer-live'), 'the page exists');

  // The settings form, saved again as shown, keeps the path's plain-http local addresses.
  const csrf = csrfFrom(page);
  const resaved = await jar.post(`/account/applications/${app.id}/settings`, {
    name: 'Pacer', description: stored.description!, url: stored.url!, image: stored.image!, privacy_statement: stored.privacy_statement!,
    redirect_uris: stored.redirect_uris.join('\n'), webhook_endpoints: '', webhook_secret: '', csrf,
  });
  assert.is(resaved.status, 303, await resaved.clone().text());
  assert.is(presentApplication((await stack.store.applications.get(app.id))!, null, { pagesBase: stack.pagesBase, baseUrl: stack.baseUrl }).is_clientside_app, true);
});

test('keeps an app\'s own page, website, description and image, and refuses a slug of another app beside the field', async ({ stack, jar, ownerId }) => {
  const other = await createApplication(stack.store, ownerId, { name: 'Other' });
  assert.is((await goLive(jar, other, { slug: 'taken-slug', description: 'Another app of this owner', image: 'https://other.example.com/logo.png' })).status, 303);
  const app = await createApplication(stack.store, ownerId, { name: 'Second' });
  const taken = await goLive(jar, app, { slug: 'taken-slug', description: 'A second app', image: 'https://second.example.com/logo.png' });
  assert.is(taken.status, 422);
  assert.match(errorOf(await taken.text(), 'live_slug'), 'taken-slug is taken');
  assert.is((await stack.store.applications.get(app.id))!.privacy_statement, null);

  const set = (await stack.store.applications.updateOne({ id: app.id }, {
    set: { description: 'Already described', url: 'https://second.example.com', image: 'https://second.example.com/logo.png' },
  }))!;
  const form = await (await jar.get(`/account/applications/${app.id}`)).text();
  assert.not.match(form, 'id="live_description"', 'nothing already set is asked for');
  assert.not.match(form, 'id="live_image"');
  assert.is((await goLive(jar, set, { slug: 'second-app', description: 'ignored', image: 'ignored' })).status, 303);
  const stored = (await stack.store.applications.get(app.id))!;
  assert.is(stored.url, 'https://second.example.com', 'a website already set is kept');
  assert.is(stored.description, 'Already described');
  assert.ok(stored.redirect_uris.includes(`${stack.pagesBase}/second-app/`));
});

test('needs the session\'s CSRF token, and another account\'s application is a 404', async ({ stack, jar, ownerId }) => {
  const app = await createApplication(stack.store, ownerId, { name: 'Guarded' });
  assert.is((await jar.post(`/account/applications/${app.id}/go-live`, { slug: 'guarded' })).status, 403);
  await createUser(stack.store, { email: 'clientside-other@example.com', password: PASSWORD });
  const intruder = await signIn(stack, 'clientside-other@example.com', PASSWORD);
  const csrf = csrfFrom(await (await intruder.get('/account')).text());
  assert.is((await intruder.post(`/account/applications/${app.id}/go-live`, { slug: 'guarded', description: 'Mine now', image: 'https://x.example.com/a.png', csrf })).status, 404);
  assert.is((await stack.store.applications.get(app.id))!.page_slug, null);
});

test.run();
