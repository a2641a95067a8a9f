/**
 * The application settings form on the account page (routes/account.ts, pages/application-settings.ts):
 * it saves every field, keeps the webhook secret write-only, shows every problem beside its field with
 * the typed values kept, needs the session's CSRF token, and answers another account with 404.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { csrfFrom, signIn, type CookieJar } from '../support/browser-session.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import type { ApplicationRecord } from '../../storage/store.js';

const PASSWORD = 'correct horse battery staple';
let stack: TestStack;
let jar: CookieJar;
let app: ApplicationRecord;

test.before(async () => {
  stack = await startStack({ WEBHOOK_ALLOWED_HOSTS: 'hooks.test' });
  const owner = await createUser(stack.store, { email: 'settings-owner@example.com', password: PASSWORD });
  app = await createApplication(stack.store, owner.id, { name: 'Pacer' });
  jar = await signIn(stack, 'settings-owner@example.com', PASSWORD);
});
test.after(async () => {
  await stack?.close();
});

const path = () => `/account/applications/${app.id}`;

function fields(overrides: Record<string, string | string[]> = {}): Record<string, string | string[]> {
  return {
    name: 'Pacer', description: 'Charts your season', url: 'https://pacer.example.com', image: 'https://pacer.example.com/logo.png',
    privacy_statement: 'https://pacer.example.com/privacy', redirect_uris: 'https://pacer.example.com/callback\r\nhttp://localhost:5173/cb',
    webhook_endpoints: 'https://hooks.test/threshold', webhook_secret: 'whsec-0123456789abcdef', capabilities: ['activities', 'dailies'],
    ...overrides,
  };
}

test('saves every field at once, making the application public, and never shows the webhook secret again', async () => {
  const page = await jar.get(path());
  assert.is(page.status, 200);
  const csrf = csrfFrom(await page.text());
  const saved = await jar.post(`${path()}/settings`, { ...fields(), csrf });
  assert.is(saved.status, 303);
  const stored = (await stack.store.applications.get(app.id))!;
  assert.is(stored.description, 'Charts your season');
  assert.equal(stored.redirect_uris, ['https://pacer.example.com/callback', 'http://localhost:5173/cb']);
  assert.equal(stored.webhook_endpoints, ['https://hooks.test/threshold']);
  assert.is(stored.webhook_secret, 'whsec-0123456789abcdef');
  assert.equal(stored.capabilities, ['activities', 'dailies']);
  const after = await (await jar.get(`${path()}?notice=settings_saved`)).text();
  assert.match(after, /Settings saved/);
  assert.match(after, /Public/);
  assert.not.ok(after.includes('whsec-0123456789abcdef'));
  assert.match(after, /set; leave empty to keep it/);
  const kept = await jar.post(`${path()}/settings`, { ...fields({ webhook_secret: '' }), csrf });
  assert.is(kept.status, 303);
  assert.is((await stack.store.applications.get(app.id))!.webhook_secret, 'whsec-0123456789abcdef', 'an empty field keeps the secret');
});

test('shows each problem beside its field, keeps what was typed and saves nothing', async () => {
  const before = await stack.store.applications.get(app.id);
  const csrf = csrfFrom(await (await jar.get(path())).text());
  const refused = await jar.post(`${path()}/settings`, {
    ...fields({ name: '', url: 'http://insecure.example.com', redirect_uris: 'http://public.example.com/cb', webhook_endpoints: 'https://10.0.0.1/hook', webhook_secret: 'short', description: '<b>typed</b>' }),
    csrf,
  });
  assert.is(refused.status, 422);
  const body = await refused.text();
  for (const field of ['name', 'url', 'redirect_uris', 'webhook_endpoints', 'webhook_secret']) assert.match(body, new RegExp(`id="${field}-error"`), field);
  assert.match(body, /&lt;b&gt;typed&lt;\/b&gt;/, 'typed values come back escaped');
  assert.equal(await stack.store.applications.get(app.id), before);
});

test('webhook endpoints typed in the form: whitespace around a line is dropped, a tab or a space inside is shown beside the field and nothing is saved', async () => {
  const csrf = csrfFrom(await (await jar.get(path())).text());
  const saved = await jar.post(`${path()}/settings`, { ...fields({ webhook_endpoints: '  https://hooks.test/one\t\r\n\r\n https://hooks.test/two ' }), csrf });
  assert.is(saved.status, 303);
  assert.equal((await stack.store.applications.get(app.id))!.webhook_endpoints, ['https://hooks.test/one', 'https://hooks.test/two']);
  for (const [typed, message] of [['https://hooks.test/a\tb', /must not contain a tab \(at character 21\)/], ['https://hooks.test/a b', /must not contain a space \(at character 21\)/]] as const) {
    const refused = await jar.post(`${path()}/settings`, { ...fields({ webhook_endpoints: typed }), csrf });
    assert.is(refused.status, 422, JSON.stringify(typed));
    const body = await refused.text();
    assert.match(body, /id="webhook_endpoints-error"/);
    assert.match(body, message);
    assert.equal((await stack.store.applications.get(app.id))!.webhook_endpoints, ['https://hooks.test/one', 'https://hooks.test/two']);
  }
});

test('refuses a post without the session\'s CSRF token, and another account\'s application is a 404', async () => {
  assert.is((await jar.post(`${path()}/settings`, fields({ name: 'Hijacked' }))).status, 403);
  assert.is((await stack.store.applications.get(app.id))!.name, 'Pacer');
  await createUser(stack.store, { email: 'other-owner@example.com', password: PASSWORD });
  const other = await signIn(stack, 'other-owner@example.com', PASSWORD);
  assert.is((await other.get(path())).status, 404);
  const csrf = csrfFrom(await (await other.get('/account')).text());
  assert.is((await other.post(`${path()}/settings`, { ...fields({ name: 'Hijacked' }), csrf })).status, 404);
});

test.run();
