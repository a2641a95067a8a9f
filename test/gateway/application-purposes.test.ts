/**
 * Purposes written by the app's owner (interface §5 "Consent": "the app writes one purpose sentence in its
 * settings: 20 to 160 characters, plain text, no links"): the settings form's one field per category saves
 * them and shows each problem beside its field; the owner of a public app is shown where to write the
 * missing ones; another person then sees the consent screen with them instead of the not-ready page.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { csrfFrom, signIn, type CookieJar } from '../support/browser-session.js';
import { sessionFor } from '../support/sessions.js';
import { pkcePair } from '../support/oauth.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import type { ApplicationRecord } from '../../storage/store.js';

const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'https://pacer.example.com/callback';
const ACTIVITIES = 'We chart your rides and show how your fitness develops.';
const WELLNESS = 'We use your sleep and resting heart rate to plan recovery.';

const test = suite<{ stack: TestStack; jar: CookieJar; app: ApplicationRecord; ownerId: string }>('application purposes');

test.before(async (context) => {
  context.stack = await startStack();
  const owner = await createUser(context.stack.store, { email: 'purpose-owner@example.com', password: PASSWORD });
  context.ownerId = owner.id;
  context.app = await createApplication(context.stack.store, owner.id, { name: 'Pacer', redirect_uris: [REDIRECT] });
  context.jar = await signIn(context.stack, 'purpose-owner@example.com', PASSWORD);
});
test.after(async (context) => {
  await context.stack?.close();
});

/** Every field of the settings form, public fields filled, with `overrides`. */
function fields(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    name: 'Pacer', description: 'Charts your season', url: 'https://pacer.example.com', image: 'https://pacer.example.com/logo.png',
    privacy_statement: 'https://pacer.example.com/privacy', redirect_uris: REDIRECT, webhook_endpoints: '', webhook_secret: '',
    purpose_activities: '', purpose_wellness: '', purpose_reproductive_health: '', purpose_workouts: '', purpose_sharing: '', purpose_email: '',
    ...overrides,
  };
}

function authorizeUrl(stack: TestStack, app: ApplicationRecord, scope: string): string {
  const url = new URL(`${stack.baseUrl}/oauth/authorize`);
  const query = { response_type: 'code', client_id: app.id, redirect_uri: REDIRECT, scope, code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 's' };
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.href;
}

test('the settings page has one purpose field per data category, and none for openid, profile or offline_access', async ({ jar, app }) => {
  const html = await (await jar.get(`/account/applications/${app.id}`)).text();
  for (const category of ['activities', 'wellness', 'reproductive_health', 'workouts', 'sharing', 'email']) assert.match(html, `name="purpose_${category}"`, category);
  for (const category of ['openid', 'profile', 'offline_access']) assert.not.match(html, `name="purpose_${category}"`, category);
});

test('shows each refused purpose beside its field (too short, too long, a link, an unknown category) and saves nothing', async ({ stack, jar, app }) => {
  const before = await stack.store.applications.get(app.id);
  const csrf = csrfFrom(await (await jar.get(`/account/applications/${app.id}`)).text());
  const refused = await jar.post(`/account/applications/${app.id}/settings`, {
    ...fields({
      purpose_activities: 'Too short.',
      purpose_wellness: `We ${'really '.repeat(30)}need it.`,
      purpose_workouts: 'Read why on https://pacer.example.com/why before you connect.',
      purpose_email: 'Our <b>weekly</b> summary of your training arrives by email.',
      purpose_openid: 'We recognise you when you come back to the app.',
    }),
    csrf,
  });
  assert.is(refused.status, 422);
  const html = await refused.text();
  const errorOf = (id: string) => new RegExp(`<p class="field-error" id="${id}-error" role="alert">([^<]*)</p>`).exec(html)?.[1] ?? '';
  assert.match(errorOf('purpose_activities'), '20 to 160 characters');
  assert.match(errorOf('purpose_wellness'), '20 to 160 characters');
  assert.match(errorOf('purpose_workouts'), 'without links');
  assert.match(errorOf('purpose_email'), 'plain text');
  assert.match(errorOf('purposes'), 'no purpose is asked for openid');
  assert.match(html, /id="purpose_activities"[^>]*aria-invalid="true"/, 'the field itself is marked');
  assert.match(html, 'value="Too short."', 'what was typed is kept');
  assert.equal(await stack.store.applications.get(app.id), before, 'nothing saved');
});

test('the owner of a public app without purposes is shown where to write them; others see the not-ready page', async ({ stack, jar, app, ownerId }) => {
  const csrf = csrfFrom(await (await jar.get(`/account/applications/${app.id}`)).text());
  assert.is((await jar.post(`/account/applications/${app.id}/settings`, { ...fields(), csrf })).status, 303);
  const owner = await sessionFor(stack.store, ownerId);
  const ownerScreen = await fetch(authorizeUrl(stack, app, 'activities:read'), { redirect: 'manual', headers: { cookie: owner.cookie } });
  assert.is(ownerScreen.status, 200, 'purposes are optional while only the owner connects');
  assert.match(await ownerScreen.text(), `<a href="/account/applications/${app.id}#purposes">Write the purposes in the app's settings</a>`);
  const other = await sessionFor(stack.store, (await createUser(stack.store, { email: 'purpose-reader@example.com' })).id);
  const notReady = await fetch(authorizeUrl(stack, app, 'activities:read'), { redirect: 'manual', headers: { cookie: other.cookie } });
  assert.is(notReady.status, 403);
  const page = await notReady.text();
  assert.match(page, 'is not ready yet');
  assert.match(page, "under Purposes in the app's settings");
});

test('saves the owner\'s purposes, trimmed; another person then sees them on the consent screen; an emptied field removes one', async ({ stack, jar, app }) => {
  const csrf = csrfFrom(await (await jar.get(`/account/applications/${app.id}`)).text());
  const saved = await jar.post(`/account/applications/${app.id}/settings`, { ...fields({ purpose_activities: `  ${ACTIVITIES} `, purpose_wellness: WELLNESS }), csrf });
  assert.is(saved.status, 303);
  assert.equal((await stack.store.applications.get(app.id))!.purposes, { activities: ACTIVITIES, wellness: WELLNESS });
  assert.match(await (await jar.get(`/account/applications/${app.id}`)).text(), `value="${ACTIVITIES}"`, 'the page shows them again');
  const other = await sessionFor(stack.store, (await createUser(stack.store, { email: 'purpose-athlete@example.com' })).id);
  const consent = await fetch(authorizeUrl(stack, app, 'activities:read wellness:read'), { redirect: 'manual', headers: { cookie: other.cookie } });
  assert.is(consent.status, 200);
  const html = await consent.text();
  assert.match(html, `<q>${ACTIVITIES}</q>`);
  assert.match(html, `<q>${WELLNESS}</q>`);
  assert.is((await jar.post(`/account/applications/${app.id}/settings`, { ...fields({ purpose_activities: ACTIVITIES }), csrf })).status, 303);
  assert.equal((await stack.store.applications.get(app.id))!.purposes, { activities: ACTIVITIES });
});

test.run();
