/**
 * /api/v1/profile/app-metadata on the real stack: app tokens only, each app its own object on each user,
 * the 4 KB and 32-level limits (413, 422), removal, and the scopes.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sendJson, validationIssueAt } from '../support/json-api.js';
import { createApplication } from '../../gateway/services/accounts.js';

interface Context {
  stack: TestStack;
  userId: string;
  personal: string;
  appId: string;
  appToken: string;
  otherAppId: string;
  otherAppToken: string;
}

const metadata = suite<Context>('profile app metadata');
const PATH = '/api/v1/profile/app-metadata';
const SCOPES = ['activities:read', 'activities:write'];

metadata.before(async (context) => {
  context.stack = await startStack();
  const owner = await context.stack.userWithToken([]);
  context.appId = (await createApplication(context.stack.store, owner.userId, { name: 'Coach app' })).id;
  context.otherAppId = (await createApplication(context.stack.store, owner.userId, { name: 'Other app' })).id;
  const user = await context.stack.userWithToken(SCOPES);
  context.userId = user.userId;
  context.personal = user.token;
  context.appToken = (await context.stack.userWithToken(SCOPES, { appId: context.appId, userId: user.userId })).token;
  context.otherAppToken = (await context.stack.userWithToken(SCOPES, { appId: context.otherAppId, userId: user.userId })).token;
});
metadata.after(async (context) => {
  await context.stack.close();
});

metadata('refuses a personal token on every method', async (context) => {
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const response = await sendJson(context.stack, method, PATH, context.personal, method === 'PUT' ? { a: 1 } : undefined);
    assert.is(response.status, 403, method);
    assert.match(response.body.detail, /application access token/);
  }
});

metadata("keeps one object per app on the user: an app reads back its own, never another app's", async (context) => {
  const { stack } = context;
  assert.is((await sendJson(stack, 'GET', PATH, context.appToken)).body, null, 'nothing yet');
  const put = await sendJson(stack, 'PUT', PATH, context.appToken, { plan: 'base', weeks: [1, 2, null], nested: { ok: true } });
  assert.is(put.status, 200);
  assert.equal(put.body, { plan: 'base', weeks: [1, 2, null], nested: { ok: true } });
  assert.is((await sendJson(stack, 'PUT', PATH, context.otherAppToken, { mine: 'yes' })).status, 200);
  assert.equal((await sendJson(stack, 'GET', PATH, context.appToken)).body, { plan: 'base', weeks: [1, 2, null], nested: { ok: true } });
  assert.equal((await sendJson(stack, 'GET', PATH, context.otherAppToken)).body, { mine: 'yes' });
  assert.is((await sendJson(stack, 'PUT', PATH, context.appToken, { plan: 'build' })).status, 200);
  assert.equal((await sendJson(stack, 'GET', PATH, context.appToken)).body, { plan: 'build' }, 'a write replaces the whole object');
  const stranger = await stack.userWithToken(SCOPES, { appId: context.appId });
  assert.is((await sendJson(stack, 'GET', PATH, stranger.token)).body, null, "the same app on another user sees that user's (none)");
  assert.equal((await stack.store.users.get(context.userId))?.app_metadata, { [context.appId]: { plan: 'build' }, [context.otherAppId]: { mine: 'yes' } });
});

metadata('takes up to 4 KB and 32 levels: larger is 413, deeper or not an object is 422', async (context) => {
  const { stack, appToken } = context;
  const exactly = { t: 'x'.repeat(4096 - '{"t":""}'.length) };
  assert.is(JSON.stringify(exactly).length, 4096);
  assert.is((await sendJson(stack, 'PUT', PATH, appToken, exactly)).status, 200);
  const larger = await sendJson(stack, 'PUT', PATH, appToken, { t: `${exactly.t}x` });
  assert.is(larger.status, 413);
  assert.match(larger.body.detail, /4097 bytes; the limit is 4096/);
  assert.match(validationIssueAt(await sendJson(stack, 'PUT', PATH, appToken, '{"a":'.repeat(33) + '1' + '}'.repeat(33)), ['body']), /deeper than 32/);
  assert.is((await sendJson(stack, 'PUT', PATH, appToken, '{"a":'.repeat(32) + '1' + '}'.repeat(32))).status, 200);
  validationIssueAt(await sendJson(stack, 'PUT', PATH, appToken, [1, 2]), ['body']);
  validationIssueAt(await sendJson(stack, 'PUT', PATH, appToken, '{"a":'), ['body']);
  assert.is((await sendJson(stack, 'PUT', PATH, appToken, { plan: 'build' })).status, 200);
});

metadata("removes only the calling app's object", async (context) => {
  const { stack } = context;
  assert.is((await sendJson(stack, 'DELETE', PATH, context.appToken)).status, 204);
  assert.is((await sendJson(stack, 'GET', PATH, context.appToken)).body, null);
  assert.equal((await sendJson(stack, 'GET', PATH, context.otherAppToken)).body, { mine: 'yes' });
  assert.is((await sendJson(stack, 'DELETE', PATH, context.appToken)).status, 204, 'removing nothing is fine');
});

metadata('needs activities:write to write or remove and activities:read to read, and names the scope', async (context) => {
  const readOnly = (await context.stack.userWithToken(['activities:read'], { appId: context.appId, userId: context.userId })).token;
  for (const method of ['PUT', 'DELETE']) {
    const refused = await sendJson(context.stack, method, PATH, readOnly, method === 'PUT' ? { a: 1 } : undefined);
    assert.is(refused.status, 403, method);
    assert.match(refused.body.detail, /activities:write/);
  }
  assert.is((await sendJson(context.stack, 'GET', PATH, readOnly)).status, 200);
  const noScope = (await context.stack.userWithToken(['openid'], { appId: context.appId, userId: context.userId })).token;
  assert.match((await sendJson(context.stack, 'GET', PATH, noScope)).body.detail, /activities:read/);
});

metadata.run();
