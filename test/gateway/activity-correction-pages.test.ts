/**
 * The corrections form and the deletion on an activity's page, over HTTP on the real stack (issue 28 item 5):
 * the form shows the activity's sport, tags and notes with the session's CSRF token; a save without the
 * token, or with another session's, is a 403 that changes nothing; a save writes what the API then reads
 * (and escapes what it shows); a refused save answers the form again with the field's problem; deletion asks
 * first, then removes the activity and lands on the list; signed-out browsers go to sign in, other people's
 * activities are the 404 page. The same in Chromium: test/browser/activity-corrections.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, csrfFrom, locationOf, signIn } from '../support/browser-session.js';
import { jsonClient } from '../support/json-api.js';
import { csvActivity, uploadProcessed } from '../support/uploads.js';
import { createUser } from '../../gateway/services/accounts.js';

const pages = suite<{ stack: TestStack }>('activity correction pages');

pages.before(async (context) => {
  context.stack = await startStack();
});
pages.after(async (context) => {
  await context.stack.close();
});

const PASSWORD = 'correction pages password';
let counter = 0;

/** A signed-in person with one uploaded ride: their browser, an API token and the ride's id. */
async function athlete(stack: TestStack): Promise<{ jar: CookieJar; token: string; id: string }> {
  counter += 1;
  const email = `corrections-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Ada' });
  const { token } = await stack.userWithToken(['activities:read', 'activities:write'], { userId: user.id });
  const source = await uploadProcessed(stack, token, `ride-${counter}.csv`, csvActivity({ start: `2024-05-${String(counter).padStart(2, '0')}T05:00:00Z` }));
  return { jar: await signIn(stack, email, PASSWORD), token, id: source.activity_ids[0]! };
}

pages('shows the form with the activity\'s sport, tags and notes and the session\'s CSRF token', async ({ stack }) => {
  const { jar, token, id } = await athlete(stack);
  await fetch(`${stack.baseUrl}/api/v1/ext/activities/${id}`, {
    method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ tags: ['<b>bold</b>', 'race'], notes: 'line one\n<script>x</script>' }),
  });
  const page = await jar.get(`/training/activities/${id}`);
  assert.is(page.status, 200);
  const text = await page.text();
  assert.ok(text.includes(`action="/training/activities/${id}/corrections"`));
  assert.ok(text.includes('<option value="cycling.road" selected>'), 'the sport chooser marks the activity\'s sport');
  assert.ok(text.includes('value="&lt;b&gt;bold&lt;/b&gt;, race"'), 'the tags, escaped');
  assert.ok(text.includes('<p class="notes">line one\n&lt;script&gt;x&lt;/script&gt;</p>'), 'the notes shown, escaped');
  assert.ok(!text.includes('<script>x'), 'nothing unescaped');
  assert.ok(text.includes(`href="/training/activities/${id}/delete"`));
  assert.is(csrfFrom(text).length > 10, true);
});

pages('saves sport, tags and notes through the API\'s services, then shows them', async ({ stack }) => {
  const { jar, token, id } = await athlete(stack);
  const csrf = csrfFrom(await (await jar.get(`/training/activities/${id}`)).text());
  const saved = await jar.post(`/training/activities/${id}/corrections`, { csrf, sport: 'running.trail', tags: ' hills, long ,, hills', notes: 'Felt good.\r\nWindy.' });
  assert.is(saved.status, 303);
  assert.is(locationOf(saved, stack.baseUrl), `/training/activities/${id}?notice=saved`);
  const api = jsonClient(stack, token);
  assert.equal((await api.get(`/api/v1/ext/activities/${id}`)).body, { activity_id: id, sport: 'running.trail', tags: ['hills', 'long'], notes: 'Felt good.\nWindy.' });
  assert.equal((await api.get(`/api/v1/activities/${id}`)).body.tags, ['hills', 'long']);
  const page = await (await jar.get(`/training/activities/${id}?notice=saved`)).text();
  assert.ok(page.includes('role="status">Saved.</p>'));
  assert.ok(page.includes('<span class="chip">hills</span>'));
  assert.ok(page.includes('<option value="running.trail" selected>'));
  const cleared = await jar.post(`/training/activities/${id}/corrections`, { csrf, sport: 'running.trail', tags: '', notes: '' });
  assert.is(cleared.status, 303);
  assert.equal((await api.get(`/api/v1/ext/activities/${id}`)).body, { activity_id: id, sport: 'running.trail', tags: [], notes: null });
});

pages('answers a refused save with the form again, naming the field; nothing is written', async ({ stack }) => {
  const { jar, token, id } = await athlete(stack);
  const csrf = csrfFrom(await (await jar.get(`/training/activities/${id}`)).text());
  const refused = await jar.post(`/training/activities/${id}/corrections`, { csrf, sport: 'Not A Sport', tags: 'ok, a\u202Eb', notes: 'kept as typed' });
  assert.is(refused.status, 422);
  const text = await refused.text();
  assert.ok(text.includes('Sport: &#39;Not A Sport&#39; is not an Open Sport Taxonomy sport') || text.includes("Sport: 'Not A Sport' is not an Open Sport Taxonomy sport"), text.slice(0, 3000));
  assert.ok(text.includes('Tags: must not contain control or invisible characters: U+202E'));
  assert.ok(text.includes('>kept as typed</textarea>'), 'what was typed stays in the form');
  assert.equal((await jsonClient(stack, token).get(`/api/v1/ext/activities/${id}`)).body, { activity_id: id, sport: 'cycling.road', tags: [], notes: null });
});

pages('refuses a save or a deletion without the session\'s CSRF token, changing nothing', async ({ stack }) => {
  const { jar, token, id } = await athlete(stack);
  const other = await athlete(stack);
  const foreign = csrfFrom(await (await other.jar.get(`/training/activities/${other.id}`)).text());
  for (const csrf of [undefined, 'nope', foreign]) {
    const fields = { sport: 'running', tags: 'x', notes: 'y', ...(csrf !== undefined && { csrf }) };
    assert.is((await jar.post(`/training/activities/${id}/corrections`, fields)).status, 403);
    assert.is((await jar.post(`/training/activities/${id}/delete`, csrf === undefined ? {} : { csrf })).status, 403);
  }
  assert.equal((await jsonClient(stack, token).get(`/api/v1/ext/activities/${id}`)).body, { activity_id: id, sport: 'cycling.road', tags: [], notes: null });
});

pages('asks before deleting, then deletes and lands on the list, which says so', async ({ stack }) => {
  const { jar, token, id } = await athlete(stack);
  const confirm = await jar.get(`/training/activities/${id}/delete`);
  assert.is(confirm.status, 200);
  const text = await confirm.text();
  assert.ok(text.includes('Delete this activity?'));
  assert.ok(text.includes(`action="/training/activities/${id}/delete"`));
  assert.is((await jsonClient(stack, token).get(`/api/v1/activities/${id}`)).status, 200, 'asking deletes nothing');
  const deleted = await jar.post(`/training/activities/${id}/delete`, { csrf: csrfFrom(text) });
  assert.is(deleted.status, 303);
  assert.is(locationOf(deleted, stack.baseUrl), '/training?notice=deleted');
  assert.is((await jsonClient(stack, token).get(`/api/v1/activities/${id}`)).status, 404);
  const list = await (await jar.get('/training?notice=deleted')).text();
  assert.ok(list.includes('The activity was deleted.'));
  assert.ok(!list.includes(id));
  assert.is((await jar.get(`/training/activities/${id}`)).status, 404);
});

pages('sends a signed-out browser to sign in, and shows the 404 page for another person\'s activity', async ({ stack }) => {
  const { id } = await athlete(stack);
  const other = await athlete(stack);
  const anonymous = new CookieJar(stack.baseUrl);
  const csrf = await anonymous.csrf('/signin');
  for (const response of [
    await anonymous.get(`/training/activities/${id}/delete`),
    await anonymous.post(`/training/activities/${id}/corrections`, { csrf, sport: 'running' }),
    await anonymous.post(`/training/activities/${id}/delete`, { csrf }),
  ]) {
    assert.is(response.status, 303);
    assert.match(locationOf(response, stack.baseUrl) ?? '', /^\/signin/);
  }
  const otherCsrf = csrfFrom(await (await other.jar.get(`/training/activities/${other.id}`)).text());
  assert.is((await other.jar.get(`/training/activities/${id}/delete`)).status, 404);
  assert.is((await other.jar.post(`/training/activities/${id}/corrections`, { csrf: otherCsrf, sport: 'running' })).status, 404);
  assert.is((await other.jar.post(`/training/activities/${id}/delete`, { csrf: otherCsrf })).status, 404);
  assert.is((await other.jar.get(`/training/activities/${'x'.repeat(65)}/delete`)).status, 404);
});

pages.run();
