/**
 * The team pages on the real stack (issue 14 item 2; routes/team-pages.ts), driven like a browser through
 * CookieJar, with mail delivered to a real SMTP server: creating and editing a team, inviting by email,
 * another user following the emailed link and joining, the member's read-only view, the stranger's 404,
 * the 403 of a form without the session's CSRF token, and revoking a team authorization on
 * /account/teams ending a delegated token minted through it. The no-SMTP path (the link shown once to
 * the owner) runs in test/browser/team-pages.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, csrfFrom, locationOf, signIn } from '../support/browser-session.js';
import { mailTo, startMailCatcher, stopMailCatcher, type MailCatcher } from '../support/mail-catcher.js';
import { sendJson } from '../support/json-api.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { authorizeTeam } from '../../gateway/services/team-access.js';
import { createTeam } from '../../gateway/services/teams.js';

interface Context {
  stack: TestStack;
  mail: MailCatcher;
}

const pages = suite<Context>('team pages');

pages.before(async (context) => {
  context.mail = await startMailCatcher();
  context.stack = await startStack({ SMTP_URL: context.mail.smtpUrl });
});
pages.after(async (context) => {
  await context.stack.close();
  await stopMailCatcher(context.mail);
});

const PASSWORD = 'correct horse battery';
const LINKS = { url: 'https://riverside.example', image: 'https://riverside.example/logo.png', privacy_statement: 'https://riverside.example/privacy' };
let counter = 0;

/** A new account with a password, signed in in its own jar. */
async function person(stack: TestStack, first: string): Promise<{ id: string; email: string; jar: CookieJar }> {
  counter += 1;
  const email = `${first.toLowerCase()}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: first, last_name: 'Tester' });
  return { id: user.id, email, jar: await signIn(stack, email, PASSWORD) };
}

/** Posts a form of `page` with that page's CSRF token. */
async function submit(jar: CookieJar, page: string, action: string, fields: Record<string, string>): Promise<Response> {
  return jar.post(action, { ...fields, csrf: await jar.csrf(page) });
}

async function createdTeam(jar: CookieJar, fields: Record<string, string>): Promise<string> {
  const response = await submit(jar, '/account/teams', '/account/teams', fields);
  assert.is(response.status, 303);
  const match = /^\/account\/teams\/([^/?]+)\?notice=created$/.exec(locationOf(response, jar.baseUrl) ?? '');
  assert.ok(match, `created: ${locationOf(response, jar.baseUrl)}`);
  return decodeURIComponent(match[1]!);
}

function invitationPathIn(mail: string): string {
  const match = /\/teams\/invitations\/[A-Za-z0-9_-]{43}/.exec(mail);
  if (!match) throw new Error('no invitation link in the mail');
  return match[0];
}

pages('without a session every team page sends the browser to sign in', async ({ stack }) => {
  const jar = new CookieJar(stack.baseUrl);
  for (const path of ['/account/teams', '/account/teams/anything']) {
    const response = await jar.get(path);
    assert.is(response.status, 303, path);
    assert.is(locationOf(response, stack.baseUrl), '/signin');
  }
});

pages('/account links to Teams once, and /account/teams is sent with the account pages\' security headers', async ({ stack }) => {
  const owner = await person(stack, 'Olga');
  const account = await (await owner.jar.get('/account')).text();
  assert.is(account.match(/href="\/account\/teams"/g)?.length, 1);
  const response = await owner.jar.get('/account/teams');
  assert.is(response.status, 200);
  assert.is(response.headers.get('cache-control'), 'no-store');
  assert.is(response.headers.get('x-frame-options'), 'DENY');
  assert.match(response.headers.get('content-security-policy') ?? '', "frame-ancestors 'none'");
  const body = await response.text();
  assert.match(body, 'You are not in a team yet');
  assert.match(body, 'No team can see your data');
});

pages('creates a team from the form, escaping what was typed, and edits it as its owner', async ({ stack }) => {
  const owner = await person(stack, 'Olga');
  const teamId = await createdTeam(owner.jar, {
    name: '<b>Riverside</b> & Co', description: 'Tuesday intervals', ...LINKS,
  });
  const page = await (await owner.jar.get(`/account/teams/${teamId}?notice=created`)).text();
  assert.match(page, '&lt;b&gt;Riverside&lt;/b&gt; &amp; Co');
  assert.not.match(page, '<b>Riverside</b>');
  assert.match(page, 'Team created.');
  assert.match(page, owner.email, 'the owner sees the members\' addresses');
  assert.match(page, 'Save changes');
  assert.match(page, 'We email a link that works once');
  const listed = await (await owner.jar.get('/account/teams')).text();
  assert.match(listed, `href="/account/teams/${teamId}">Manage</a>`);

  const saved = await submit(owner.jar, `/account/teams/${teamId}`, `/account/teams/${teamId}`, {
    name: 'Riverside Cycling Club', description: 'Sunday long ride', ...LINKS, image: 'https://riverside.example/new-logo.png',
  });
  assert.is(saved.status, 303);
  assert.is(locationOf(saved, stack.baseUrl), `/account/teams/${teamId}?notice=saved`);
  const stored = await stack.store.teams.get(teamId);
  assert.equal(
    { name: stored?.name, description: stored?.description, url: stored?.url, image: stored?.image, privacy_statement: stored?.privacy_statement },
    { name: 'Riverside Cycling Club', description: 'Sunday long ride', ...LINKS, image: 'https://riverside.example/new-logo.png' },
  );
});

pages('refuses a team without a name, without one of its links or with a link that is not https, keeping what was typed (422)', async ({ stack }) => {
  const owner = await person(stack, 'Olga');
  const unnamed = await submit(owner.jar, '/account/teams', '/account/teams', { name: '  ', description: 'kept', ...LINKS });
  assert.is(unnamed.status, 422);
  const unnamedBody = await unnamed.text();
  assert.match(unnamedBody, 'Name: name must be 1 to 100 characters');
  assert.match(unnamedBody, '>kept</textarea>');
  const insecure = await submit(owner.jar, '/account/teams', '/account/teams', { name: 'Club', ...LINKS, url: 'http://club.example' });
  assert.is(insecure.status, 422);
  assert.match(await insecure.text(), 'Website: must be an https URL');
  // Issue 23 item 2: the interface types all three links `string, uri`; a team is never created without one.
  for (const [field, label] of [['url', 'Website'], ['image', 'Image URL'], ['privacy_statement', 'Privacy statement URL']] as const) {
    const missing = await submit(owner.jar, '/account/teams', '/account/teams', { name: 'Club', ...LINKS, [field]: ' ' });
    assert.is(missing.status, 422, field);
    assert.match(await missing.text(), `${label}: is required: the https URL of`, field);
  }
  const teamId = await createdTeam(owner.jar, { name: 'Club', ...LINKS });
  const cleared = await submit(owner.jar, `/account/teams/${teamId}`, `/account/teams/${teamId}`, { name: 'Club', ...LINKS, privacy_statement: '' });
  assert.is(cleared.status, 422, 'nor edited into one without');
  assert.match(await cleared.text(), 'Privacy statement URL: is required');
  assert.equal((await stack.store.teams.find({ user_id: owner.id })).map((team) => team.privacy_statement), [LINKS.privacy_statement]);
});

pages('invites by email; another user opens the emailed link, joins, and then sees the team read-only', async (context) => {
  const { stack } = context;
  const owner = await person(stack, 'Olga');
  const member = await person(stack, 'Mika');
  const teamId = await createdTeam(owner.jar, { name: 'Riverside', ...LINKS });

  const invited = await submit(owner.jar, `/account/teams/${teamId}`, `/account/teams/${teamId}/invitations`, { email: member.email.toUpperCase() });
  assert.is(invited.status, 201);
  const sentPage = await invited.text();
  assert.match(sentPage, `We emailed <strong>${member.email}</strong>`);
  assert.not.match(sentPage, '/teams/invitations/', 'with a mail server the link is only in the mail');
  const mail = await mailTo(context.mail, member.email);
  assert.ok(mail, 'the invitation was emailed');
  assert.match(mail, 'Subject: An invitation to a team on Threshold');
  assert.match(mail, owner.email, 'the mail says who invited');
  const link = invitationPathIn(mail);

  const signedOut = await new CookieJar(stack.baseUrl).get(link);
  assert.is(signedOut.status, 200);
  const signedOutBody = await signedOut.text();
  assert.match(signedOutBody, 'Sign in (or create an account) first, then open this link again.');
  assert.not.match(signedOutBody, 'Join Riverside</button>');

  const offer = await member.jar.get(link);
  assert.is(offer.status, 200);
  const offerBody = await offer.text();
  assert.match(offerBody, 'Join Riverside</button>');
  assert.is(await stack.store.team_members.count({ team_id: teamId, user_id: member.id }), 0, 'opening the link joins nothing');

  const joined = await member.jar.post(link, { csrf: csrfFrom(offerBody) });
  assert.is(joined.status, 303);
  assert.is(locationOf(joined, stack.baseUrl), `/account/teams/${teamId}?notice=joined`);
  const view = await member.jar.get(locationOf(joined, stack.baseUrl)!);
  assert.is(view.status, 200);
  const viewBody = await view.text();
  assert.match(viewBody, 'You joined the team.');
  assert.match(viewBody, 'Only its owner can change it or invite people.');
  assert.match(viewBody, 'Olga Tester');
  assert.not.match(viewBody, 'Save changes');
  assert.not.match(viewBody, 'name="csrf"', 'no form at all');
  assert.not.match(viewBody, owner.email, 'a member does not see addresses');
  assert.match(await (await member.jar.get('/account/teams')).text(), `href="/account/teams/${teamId}">View</a>`);
  assert.match(await (await owner.jar.get(`/account/teams/${teamId}`)).text(), member.email);

  // The link works once.
  assert.is((await member.jar.get(link)).status, 410);
  const again = await member.jar.post(link, { csrf: csrfFrom(offerBody) });
  assert.is(again.status, 410);
  assert.match(await again.text(), 'This invitation cannot be used');
  assert.is((await member.jar.get('/teams/invitations/not-a-token')).status, 410);
});

pages('a member cannot change the team, and a stranger gets the 404 page for it', async ({ stack }) => {
  const owner = await person(stack, 'Olga');
  const member = await person(stack, 'Mika');
  const stranger = await person(stack, 'Sven');
  const team = await createTeam(stack.store, owner.id, { name: 'Riverside', ...LINKS });
  await stack.store.team_members.insert({ id: `m-${member.id}`, team_id: team.id, user_id: member.id, role: 'member', created_at: Date.now() });

  const seen = await stranger.jar.get(`/account/teams/${team.id}`);
  assert.is(seen.status, 404);
  assert.match(await seen.text(), 'There is nothing here, or it is not yours to see.');
  assert.is((await stranger.jar.get('/account/teams/no-such-team')).status, 404);
  for (const jar of [stranger.jar, member.jar]) {
    const csrf = await jar.csrf('/account/teams');
    assert.is((await jar.post(`/account/teams/${team.id}`, { name: 'Taken over', csrf })).status, 404);
    assert.is((await jar.post(`/account/teams/${team.id}/invitations`, { email: 'x@example.com', csrf })).status, 404);
    assert.is((await jar.post(`/account/teams/${team.id}/members/${owner.id}/remove`, { csrf })).status, 404);
  }
  assert.is((await stack.store.teams.get(team.id))?.name, 'Riverside');
  assert.is(await stack.store.team_invitations.count({ team_id: team.id }), 0);
});

pages('the owner removes a member, who then gets the 404 page; the owner cannot be removed', async ({ stack }) => {
  const owner = await person(stack, 'Olga');
  const member = await person(stack, 'Mika');
  const team = await createTeam(stack.store, owner.id, { name: 'Riverside', ...LINKS });
  await stack.store.team_members.insert({ id: `m-${member.id}`, team_id: team.id, user_id: member.id, role: 'member', created_at: Date.now() });
  const page = `/account/teams/${team.id}`;
  assert.match(await (await owner.jar.get(page)).text(), `${page}/members/${member.id}/remove`);
  const removed = await submit(owner.jar, page, `${page}/members/${member.id}/remove`, {});
  assert.is(removed.status, 303);
  assert.is(locationOf(removed, stack.baseUrl), `${page}?notice=removed`);
  assert.is((await member.jar.get(page)).status, 404);
  assert.is((await submit(owner.jar, page, `${page}/members/${owner.id}/remove`, {})).status, 422);
  assert.is(await stack.store.team_members.count({ team_id: team.id, user_id: owner.id }), 1);
});

pages('every team form without the session\'s CSRF token is refused with 403 and changes nothing', async ({ stack }) => {
  const owner = await person(stack, 'Olga');
  const team = await createTeam(stack.store, owner.id, { name: 'Riverside', ...LINKS });
  await authorizeTeam(stack.store, team.id, owner.id, ['activities:read']);
  const token = 'A'.repeat(43);
  for (const [action, fields] of [
    ['/account/teams', { name: 'Forged' }],
    [`/account/teams/${team.id}`, { name: 'Forged' }],
    [`/account/teams/${team.id}/invitations`, { email: 'forged@example.com' }],
    [`/account/teams/${team.id}/members/${owner.id}/remove`, {}],
    [`/account/authorized-teams/${team.id}/revoke`, {}],
    [`/teams/invitations/${token}`, {}],
  ] as const) {
    for (const csrf of [undefined, 'wrong']) {
      const response = await owner.jar.post(action, { ...fields, ...(csrf && { csrf }) });
      assert.is(response.status, 403, `${action} csrf=${csrf}`);
      assert.match(await response.text(), 'This form has expired');
    }
  }
  assert.is((await stack.store.teams.find({ user_id: owner.id })).map((row) => row.name).join(), 'Riverside');
  assert.is(await stack.store.team_invitations.count({ team_id: team.id }), 0);
  assert.is(await stack.store.team_authorizations.count({ team_id: team.id }), 1);
});

pages('revoking a team on /account/teams ends a delegated token minted through its authorization', async ({ stack }) => {
  const athlete = await person(stack, 'Ada');
  const coach = await stack.userWithToken(['sharing:read', 'activities:read'], {
    appId: (await createApplication(stack.store, (await createUser(stack.store, { email: null })).id, { name: 'Coach app' })).id,
  });
  const team = await createTeam(stack.store, coach.userId, { name: 'Coach Maren — Endurance', ...LINKS });
  await authorizeTeam(stack.store, team.id, athlete.id, ['activities:read']);
  const minted = await sendJson(stack, 'POST', '/api/v1/oauth/delegated-token', coach.token, { sub: athlete.id, team_id: team.id, scopes: null });
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  const delegatedToken: string = minted.body.access_token;
  assert.is((await stack.get('/api/v1/activities/', delegatedToken)).status, 200);

  const listed = await (await athlete.jar.get('/account/teams')).text();
  assert.match(listed, 'Coach Maren — Endurance');
  assert.match(listed, `/account/authorized-teams/${team.id}/revoke`);
  const revoked = await submit(athlete.jar, '/account/teams', `/account/authorized-teams/${team.id}/revoke`, {});
  assert.is(revoked.status, 303);
  assert.is(locationOf(revoked, stack.baseUrl), '/account/teams?notice=revoked');
  assert.is((await stack.get('/api/v1/activities/', delegatedToken)).status, 401, 'the delegated token died');
  const after = await (await athlete.jar.get('/account/teams?notice=revoked')).text();
  assert.match(after, 'Access revoked. The team can no longer see your data.');
  assert.match(after, 'No team can see your data');
  const twice = await submit(athlete.jar, '/account/teams', `/account/authorized-teams/${team.id}/revoke`, {});
  assert.is(locationOf(twice, stack.baseUrl), '/account/teams?notice=missing');
});

pages.run();
