/**
 * The authorize flow's team variant (issue 14: "ordinary users authorize a team through the consent
 * screen … and revoke it on their account page"; auth/team-consent.ts): `team_id` on /oauth/authorize,
 * the team on the consent screen, the authorization recorded on approval (and not on denial), prompt=none
 * never skipping a team consent not yet given, and a member's delegated token through the authorization
 * dying when the user revokes it on /account/teams. Driven over HTTP with a signed-in CookieJar.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, csrfFrom, signIn } from '../support/browser-session.js';
import { makeApp, pkcePair } from '../support/oauth.js';
import { sendJson } from '../support/json-api.js';
import { createUser } from '../../gateway/services/accounts.js';
import { createTeam } from '../../gateway/services/teams.js';
import type { ApplicationRecord, TeamRecord } from '../../storage/store.js';

interface Context {
  stack: TestStack;
  app: ApplicationRecord;
}

const consent = suite<Context>('team consent');
const REDIRECT = 'https://coach.example.com/callback';
const PASSWORD = 'correct horse battery';

consent.before(async (context) => {
  context.stack = await startStack();
  const { app } = await makeApp(context.stack, { redirectUris: [REDIRECT] });
  context.app = (await context.stack.store.applications.updateOne({ id: app.id }, {
    set: {
      name: 'Coachly', description: 'Coaching plans', url: 'https://coach.example.com', image: 'https://coach.example.com/logo.png',
      privacy_statement: 'https://coach.example.com/privacy', purposes: { activities: 'Your coach reads your rides.', wellness: 'Your coach plans recovery.', email: 'We send a weekly summary.' },
    },
  }))!;
});
consent.after(async (context) => {
  await context.stack.close();
});

let counter = 0;
async function athlete(stack: TestStack): Promise<{ id: string; jar: CookieJar }> {
  counter += 1;
  const email = `athlete-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Ada' });
  return { id: user.id, jar: await signIn(stack, email, PASSWORD) };
}

/** A coach with an app token (sharing:read, activities:read, wellness:read) who owns a team. */
async function coachTeam(context: Context, name = 'Endurance Squad'): Promise<{ team: TeamRecord; token: string }> {
  const coach = await context.stack.userWithToken(['sharing:read', 'activities:read', 'wellness:read'], { appId: context.app.id });
  return { team: await createTeam(context.stack.store, coach.userId, {
    name, description: 'Spring marathon block', url: 'https://coach.example', image: 'https://coach.example/logo.png', privacy_statement: 'https://coach.example/privacy',
  }), token: coach.token };
}

function authorizePath(context: Context, params: Record<string, string | string[]>): string {
  const url = new URL('/oauth/authorize', context.stack.baseUrl);
  const all = { response_type: 'code', client_id: context.app.id, redirect_uri: REDIRECT, scope: 'openid activities:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 's1', ...params };
  for (const [key, value] of Object.entries(all)) for (const one of [value].flat()) url.searchParams.append(key, one);
  return `${url.pathname}${url.search}`;
}

/** Follows /oauth/authorize to the screen it ends on (through the interaction redirect). */
async function openAuthorize(jar: CookieJar, path: string): Promise<Response> {
  let response = await jar.get(path);
  while (response.status === 303 && (response.headers.get('location') ?? '').includes('/oauth/interaction/')) response = await jar.get(response.headers.get('location')!);
  return response;
}

function redirectParams(response: Response): URLSearchParams {
  assert.is(response.status, 303);
  const location = new URL(response.headers.get('location')!);
  assert.is(`${location.origin}${location.pathname}`, REDIRECT);
  return location.searchParams;
}

async function decide(jar: CookieJar, page: string, decision: 'approve' | 'deny'): Promise<Response> {
  const action = /<form method="post" action="([^"]*\/decision)"/.exec(page)?.[1];
  assert.ok(action, 'a consent form');
  return jar.post(action, { csrf: csrfFrom(page), decision });
}

consent('an unknown, malformed or repeated team_id, or a team request without a data scope, goes back as an error redirect', async (context) => {
  const { jar, id } = await athlete(context.stack);
  const { team } = await coachTeam(context);
  for (const [params, error] of [
    [{ team_id: 'no-such-team' }, 'invalid_request'],
    [{ team_id: 'not a team!' }, 'invalid_request'],
    [{ team_id: [team.id, team.id] }, 'invalid_request'],
    [{ team_id: team.id, scope: 'openid profile email' }, 'invalid_scope'],
  ] as [Record<string, string | string[]>, string][]) {
    const query = redirectParams(await jar.get(authorizePath(context, params)));
    assert.is(query.get('error'), error, JSON.stringify(params));
    assert.is(query.get('state'), 's1');
  }
  assert.is(await context.stack.store.team_authorizations.count({ user_id: id }), 0);
});

consent('approving names the team on the consent screen, records its authorization beside the grant, and revoking it on /account/teams ends a member\'s delegated token', async (context) => {
  const { jar, id } = await athlete(context.stack);
  const { team, token } = await coachTeam(context, '<i>Squad</i>');
  const screen = await openAuthorize(jar, authorizePath(context, { team_id: team.id, scope: 'openid email activities:read wellness:read' }));
  assert.is(screen.status, 200);
  const page = await screen.text();
  assert.match(page, 'Also share with the team &ldquo;&lt;i&gt;Squad&lt;/i&gt;&rdquo;');
  assert.match(page, 'Spring marathon block');
  assert.equal(await context.stack.store.team_authorizations.find({ user_id: id }), [], 'showing the screen authorizes nothing');

  const query = redirectParams(await decide(jar, page, 'approve'));
  assert.ok(query.get('code'));
  const authorization = await context.stack.store.team_authorizations.findOne({ team_id: team.id, user_id: id });
  assert.equal(authorization?.scopes, ['activities:read', 'wellness:read'], 'data scopes only: no openid or email');
  assert.ok(await context.stack.store.grants.findOne({ user_id: id, application_id: context.app.id }), 'the app is granted as always');

  const minted = await sendJson(context.stack, 'POST', '/api/v1/oauth/delegated-token', token, { sub: id, team_id: team.id, scopes: null });
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  assert.is((await context.stack.get('/api/v1/activities/', minted.body.access_token)).status, 200);

  const teamsPage = await (await jar.get('/account/teams')).text();
  const revoked = await jar.post(`/account/authorized-teams/${team.id}/revoke`, { csrf: csrfFrom(teamsPage) });
  assert.is(revoked.status, 303);
  assert.is((await context.stack.get('/api/v1/activities/', minted.body.access_token)).status, 401);
});

consent('denying authorizes neither the app nor the team', async (context) => {
  const { jar, id } = await athlete(context.stack);
  const { team } = await coachTeam(context);
  const page = await (await openAuthorize(jar, authorizePath(context, { team_id: team.id }))).text();
  assert.is(redirectParams(await decide(jar, page, 'deny')).get('error'), 'access_denied');
  assert.is(await context.stack.store.team_authorizations.count({ user_id: id }), 0);
  assert.is(await context.stack.store.grants.count({ user_id: id }), 0);
});

consent('prompt=none shows the consent screen until the team\'s authorization covers the request, then skips it', async (context) => {
  const { jar, id } = await athlete(context.stack);
  const { team } = await coachTeam(context);
  // Granted to the app already, but not to the team.
  const plain = await (await openAuthorize(jar, authorizePath(context, {}))).text();
  assert.ok(redirectParams(await decide(jar, plain, 'approve')).get('code'));
  const asked = await openAuthorize(jar, authorizePath(context, { team_id: team.id, prompt: 'none' }));
  assert.is(asked.status, 200, 'the team consent is shown');
  assert.ok(redirectParams(await decide(jar, await asked.text(), 'approve')).get('code'));
  const skipped = await openAuthorize(jar, authorizePath(context, { team_id: team.id, prompt: 'none' }));
  assert.ok(redirectParams(skipped).get('code'), 'covered: straight back with a code');
  assert.is(await context.stack.store.team_authorizations.count({ user_id: id }), 1);
});

consent('approving again unites the team\'s scopes and never narrows them', async (context) => {
  const { jar, id } = await athlete(context.stack);
  const { team } = await coachTeam(context);
  for (const scope of ['openid wellness:read', 'openid activities:read']) {
    const page = await (await openAuthorize(jar, authorizePath(context, { team_id: team.id, scope }))).text();
    assert.ok(redirectParams(await decide(jar, page, 'approve')).get('code'));
  }
  assert.equal((await context.stack.store.team_authorizations.findOne({ team_id: team.id, user_id: id }))?.scopes, ['activities:read', 'wellness:read']);
});

consent.run();
