/**
 * `threshold team create`, `threshold team invite` and `threshold team list`: the operator's side of
 * team management, through the same service as the account pages (gateway/services/teams.ts). An
 * invitation is printed, not emailed: the operator passes the link on. Kept honest by test/cli/teams.test.ts.
 */
import { createTeam, invitationPath, inviteToTeam } from '../../gateway/services/teams.js';
import { presentTeam } from '../../gateway/presenters/team.js';
import { command, CommandFailure } from '../command.js';

export const teamCreate = command({
  words: 'team create',
  summary: 'Creates a team owned by a user → {id, name, description, url, image, privacy_statement, owner}.',
  options: {
    owner: { type: 'string', required: true, value: 'USER_ID', description: 'The owner, also its first member (not a managed user).' },
    name: { type: 'string', required: true, value: 'NAME', description: 'The team name (1 to 100 characters).' },
    description: { type: 'string', value: 'TEXT', description: 'At most 500 characters.' },
    url: { type: 'string', required: true, value: 'URL', description: "The team's website (https)." },
    image: { type: 'string', required: true, value: 'URL', description: 'Its logo (https).' },
    'privacy-statement': { type: 'string', required: true, value: 'URL', description: 'Its privacy statement (https).' },
  },
  async run({ values }, context) {
    const team = await createTeam(await context.store(), values.owner, {
      name: values.name, description: values.description ?? null, url: values.url, image: values.image, privacy_statement: values['privacy-statement'],
    });
    const { role: _role, ...fields } = presentTeam(team, 'owner', context.config().baseUrl);
    return { ...fields, owner: team.user_id };
  },
});

export const teamInvite = command({
  words: 'team invite',
  summary: 'Invites someone to a team → {team_id, email, url, expires_at}: a single-use link to pass on.',
  options: {
    team: { type: 'string', required: true, value: 'TEAM_ID', description: 'The team.' },
    email: { type: 'string', required: true, value: 'EMAIL', description: 'Who it is for (shown on the page that accepts it).' },
  },
  details: ['The link works once, for 7 days; whoever opens it signs in and joins as a member. Nothing is emailed: pass the link on.'],
  async run({ values }, context) {
    const store = await context.store();
    const team = await store.teams.get(values.team);
    if (!team) throw new CommandFailure(`no team with id ${values.team}`);
    const { token, record } = await inviteToTeam(store, team, values.email);
    return { team_id: team.id, email: record.email, url: `${context.config().baseUrl}${invitationPath(token)}`, expires_at: new Date(record.expires_at).toISOString() };
  },
});

export const teamList = command({
  words: 'team list',
  summary: 'Lists the teams, oldest first → [{id, name, owner, members}].',
  options: {},
  async run(_input, context) {
    const store = await context.store();
    const teams = await store.teams.find({}, { sort: { created_at: 1 } });
    return Promise.all(teams.map(async (team) => ({ id: team.id, name: team.name, owner: team.user_id, members: await store.team_members.count({ team_id: team.id }) })));
  },
});
