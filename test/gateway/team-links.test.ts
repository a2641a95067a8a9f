/**
 * Issue 23 item 2: a team's links are always absolute URIs (interface §2 "Team": "url, image,
 * privacy_statement: string, uri"). A team stored without them is listed, in /api/v1/teams/ and
 * /api/v1/teams/authorized, with addresses this service serves — its public page, an SVG of its
 * initials, the instance's privacy statement — and each answers 200 with its content type; a team's
 * own links are kept; creating a team without them is refused by the service (the page and CLI
 * refusals are in team-pages.test.ts and test/cli/teams.test.ts).
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient } from '../support/json-api.js';
import { createUser } from '../../gateway/services/accounts.js';
import { createTeam } from '../../gateway/services/teams.js';
import { ValidationError } from '../../gateway/errors.js';
import { teamImageSvg, teamInitials } from '../../gateway/pages/team-image.js';
import { newId } from '../../storage/ids.js';

let stack: TestStack;

test.before(async () => {
  stack = await startStack();
});
test.after(async () => {
  await stack.close();
});

const LINK_FIELDS = ['url', 'image', 'privacy_statement'] as const;
const OWN_LINKS = { url: 'https://riverside.example', image: 'https://riverside.example/logo.png', privacy_statement: 'https://riverside.example/privacy' };

/** A team as stored before links were required: all three empty. */
async function bareTeam(ownerId: string, name: string): Promise<string> {
  const id = newId();
  const now = Date.now();
  await stack.store.teams.insert({ id, user_id: ownerId, name, description: '', url: '', image: '', privacy_statement: '', created_at: now });
  await stack.store.team_members.insert({ id: newId(), team_id: id, user_id: ownerId, role: 'owner', created_at: now });
  return id;
}

/** Each link is an absolute http(s) URI on this service that answers 200 with the expected content type. */
async function assertServed(row: Record<string, unknown>, teamName: string): Promise<void> {
  const expected = { url: 'text/html', image: 'image/svg+xml', privacy_statement: 'text/html' };
  for (const field of LINK_FIELDS) {
    const value = row[field];
    assert.type(value, 'string', field);
    const url = new URL(value as string);
    assert.is(url.origin, new URL(stack.baseUrl).origin, `${field} is on this service`);
    const response = await fetch(url, { redirect: 'manual' });
    assert.is(response.status, 200, `${field}: ${url.href}`);
    assert.match(response.headers.get('content-type') ?? '', expected[field], field);
    const body = await response.text();
    if (field === 'url') assert.match(body, teamName, 'the team page names the team');
    if (field === 'image') assert.match(body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    if (field === 'privacy_statement') assert.match(body, '<h1>Privacy statement</h1>');
  }
}

test('a team stored without links is listed with absolute URIs this service serves (200, right content type)', async () => {
  const owner = await stack.userWithToken(['sharing:read']);
  const id = await bareTeam(owner.userId, 'Riverside Cycling Club');
  const [row] = (await jsonClient(stack, owner.token).get('/api/v1/teams/')).body as Record<string, unknown>[];
  assert.is(row!.id, id);
  await assertServed(row!, 'Riverside Cycling Club');
});

test('so is it in the authorized list of a person who allowed it; a team with its own links keeps them', async () => {
  const coach = await createUser(stack.store, { email: null, first_name: 'Club', last_name: 'Coach' });
  const bare = await bareTeam(coach.id, 'Track Tuesdays');
  const own = await createTeam(stack.store, coach.id, { name: 'Riverside', ...OWN_LINKS });
  const athlete = await stack.userWithToken(['sharing:read']);
  const now = Date.now();
  for (const teamId of [bare, own.id]) {
    await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: athlete.userId, scopes: ['activities:read'], created_at: now, updated_at: now });
  }
  const listed = (await jsonClient(stack, athlete.token).get('/api/v1/teams/authorized')).body as Record<string, unknown>[];
  assert.equal(listed.map((row) => row.id).sort(), [bare, own.id].sort());
  await assertServed(listed.find((row) => row.id === bare)!, 'Track Tuesdays');
  const ownRow = listed.find((row) => row.id === own.id)!;
  assert.equal({ url: ownRow.url, image: ownRow.image, privacy_statement: ownRow.privacy_statement }, OWN_LINKS);
});

test('the team page shows what the consent screen shows and nothing of its members; unknown teams are 404', async () => {
  const owner = await createUser(stack.store, { email: 'owner-of-a-club@example.com', first_name: 'Olga', last_name: 'Owner' });
  const team = await createTeam(stack.store, owner.id, { name: '<b>Club</b>', description: 'Sunday long ride', ...OWN_LINKS });
  const page = await fetch(`${stack.baseUrl}/teams/${team.id}`);
  assert.is(page.status, 200);
  assert.is(page.headers.get('cache-control'), 'no-store');
  const body = await page.text();
  assert.match(body, '&lt;b&gt;Club&lt;/b&gt;');
  assert.match(body, 'Sunday long ride');
  assert.match(body, `href="${OWN_LINKS.privacy_statement}"`);
  assert.not.match(body, 'Olga');
  assert.not.match(body, 'owner-of-a-club');
  for (const path of [`/teams/${newId()}`, `/teams/${'x'.repeat(65)}`, `/teams/${newId()}/image.svg`]) {
    const response = await fetch(`${stack.baseUrl}${path}`);
    assert.is(response.status, 404, path);
    await response.arrayBuffer();
  }
});

test('the generated image carries the initials, escapes the name and loads nothing', async () => {
  assert.is(teamInitials('Riverside Cycling Club'), 'RC');
  assert.is(teamInitials('  élan  '), 'É');
  assert.is(teamInitials('— 42 —'), '4');
  assert.is(teamInitials('!!!'), 'T');
  const svg = teamImageSvg({ id: 'abc', name: '<script>alert(1)</script> "Club"' });
  assert.not.match(svg, '<script');
  assert.match(svg, 'aria-label="&lt;script&gt;alert(1)&lt;/script&gt; &quot;Club&quot;"');
  assert.not.match(svg, /href|url\(/);
  const coach = await createUser(stack.store, { email: null, first_name: 'Club', last_name: 'Coach' });
  const id = await bareTeam(coach.id, 'Track Tuesdays');
  const response = await fetch(`${stack.baseUrl}/teams/${id}/image.svg`);
  assert.is(response.headers.get('content-security-policy'), "default-src 'none'");
  assert.is(response.headers.get('x-content-type-options'), 'nosniff');
  assert.match(await response.text(), '>TT</text>');
});

test('creating a team without a website, image or privacy statement is refused, naming the field', async () => {
  const owner = await createUser(stack.store, { email: null, first_name: 'Club', last_name: 'Coach' });
  for (const field of LINK_FIELDS) {
    for (const value of [undefined, null, '', '   ']) {
      try {
        await createTeam(stack.store, owner.id, { name: 'Club', ...OWN_LINKS, [field]: value });
        assert.unreachable(`${field}=${JSON.stringify(value)} was accepted`);
      } catch (error) {
        assert.instance(error, ValidationError);
        assert.equal((error as ValidationError).issues.map((issue) => issue.loc), [['body', field]]);
        assert.match((error as ValidationError).issues[0]!.msg, 'is required');
      }
    }
  }
  assert.equal(await stack.store.teams.find({ user_id: owner.id }), []);
});

test.run();
