/**
 * Team management by its owner, shared by the command line (`threshold team …`) and the account pages
 * (/account/teams): create and edit a team (name, description; url, image and privacy statement
 * required), invite by email with a single-use link, accept an invitation, list and remove members. Each
 * function validates its input and throws a ValidationError naming the field, so both callers report
 * problems the same way.
 *
 * An invitation is like a sign-in link (auth/magic-links.ts): 256 random bits, only its SHA-256 stored,
 * used up by one conditional write. Whoever holds the link and is signed in joins as a member; the
 * address it was sent to is shown on the confirm page, not enforced (people sign in with another
 * address than the one a coach knows). Deliberately not here: sending the mail (the page does) and who
 * is signed in (the routes). Kept honest by test/gateway/team-pages.test.ts and test/cli.
 */
import { randomBytes } from 'node:crypto';
import type { Store, TeamInvitationRecord, TeamRecord, UserRecord } from '../../storage/store.js';
import { DuplicateKeyError } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { ValidationError } from '../errors.js';
import { hashSecret } from '../auth/secrets.js';
import { requiredName } from '../schemas/names.js';
import type { TeamRole } from '../presenters/team.js';
import { teamOfMember } from './team-access.js';

/** An invitation's lifetime: 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;

export interface TeamFields {
  name: string;
  description?: string | null;
  url?: string | null;
  image?: string | null;
  privacy_statement?: string | null;
}

const LINKS = { url: "the team's website", image: 'its logo', privacy_statement: 'its privacy statement' } as const;

/**
 * Validated fields; the description is '' when absent (gaps.md "Team": never null). The three links are
 * required (interface §2 "Team": "url, image, privacy_statement: string, uri"; issue 23 item 2): a team
 * stored before that answers with addresses this service serves (services/team-links.ts).
 */
function cleanFields(input: TeamFields): Omit<TeamRecord, 'id' | 'user_id' | 'created_at'> {
  const name = requiredName(input.name);
  const description = (input.description ?? '').trim();
  if (description.length > 500) throw ValidationError.single(['body', 'description'], 'at most 500 characters');
  const link = (field: keyof typeof LINKS) => {
    const value = (input[field] ?? '').trim();
    if (!value) throw ValidationError.single(['body', field], `is required: the https URL of ${LINKS[field]}`, 'missing');
    if (!(URL.canParse(value) && new URL(value).protocol === 'https:' && value.length <= 2048)) {
      throw ValidationError.single(['body', field], 'must be an https URL');
    }
    return value;
  };
  return { name, description, url: link('url'), image: link('image'), privacy_statement: link('privacy_statement') };
}

/** A team owned by `ownerId`, who is also its first member (role owner). */
export async function createTeam(store: Store, ownerId: string, input: TeamFields, now = Date.now()): Promise<TeamRecord> {
  const owner = await store.users.get(ownerId);
  if (!owner) throw ValidationError.single(['body', 'owner'], `user ${ownerId} does not exist`);
  if (owner.managed_by !== null) throw ValidationError.single(['body', 'owner'], 'a managed user cannot own a team');
  const team: TeamRecord = { id: newId(), user_id: ownerId, ...cleanFields(input), created_at: now };
  await store.batch([
    { collection: 'teams', insert: team },
    { collection: 'team_members', insert: { id: newId(), team_id: team.id, user_id: ownerId, role: 'owner', created_at: now } },
  ]);
  return team;
}

/** The team when `userId` owns it; null otherwise (unknown teams included). */
export async function ownedTeam(store: Store, teamId: string, userId: string): Promise<TeamRecord | null> {
  const found = await teamOfMember(store, teamId, userId);
  return found && found.role === 'owner' ? found.team : null;
}

export async function updateTeam(store: Store, team: TeamRecord, input: TeamFields): Promise<TeamRecord> {
  return (await store.teams.updateOne({ id: team.id }, { set: cleanFields(input) })) ?? team;
}

/** Members with their role, the owner first, then by name. */
export async function teamMembers(store: Store, teamId: string): Promise<{ user: UserRecord; role: TeamRole }[]> {
  const members = await store.team_members.find({ team_id: teamId });
  const users = new Map((await store.users.find({ id: { $in: members.map((member) => member.user_id) } })).map((user) => [user.id, user]));
  const name = (user: UserRecord) => `${user.first_name ?? ''} ${user.last_name ?? ''} ${user.email ?? ''}`.trim().toLowerCase();
  return members
    .flatMap((member) => (users.has(member.user_id) ? [{ user: users.get(member.user_id)!, role: member.role }] : []))
    .sort((a, b) => (a.role === b.role ? name(a.user).localeCompare(name(b.user)) : a.role === 'owner' ? -1 : 1));
}

/** Removes a member (never the owner); whether one was removed. Their team tokens stop working at once. */
export async function removeMember(store: Store, team: TeamRecord, userId: string): Promise<boolean> {
  if (userId === team.user_id) throw ValidationError.single(['body', 'user'], 'the owner cannot be removed from their team');
  return (await store.team_members.deleteMany({ team_id: team.id, user_id: userId })) > 0;
}

/** An invitation to `email`; the clear token is returned once and never stored. */
export async function inviteToTeam(store: Store, team: TeamRecord, email: string, now = Date.now()): Promise<{ token: string; record: TeamInvitationRecord }> {
  const address = email.trim().toLowerCase();
  if (!EMAIL.test(address)) throw ValidationError.single(['body', 'email'], 'value is not a valid email address');
  const token = randomBytes(32).toString('base64url');
  const record: TeamInvitationRecord = {
    id: newId(), team_id: team.id, user_id: team.user_id, email: address, token_hash: hashSecret(token),
    expires_at: now + INVITATION_TTL_MS, consumed_at: null, created_at: now,
  };
  await store.team_invitations.insert(record);
  return { token, record };
}

/** The invitation path for a token: `/teams/invitations/{token}`. */
export function invitationPath(token: string): string {
  return `/teams/invitations/${token}`;
}

/** The unused, unexpired invitation and its team, without using it (mail scanners fetch links first). */
export async function findInvitation(store: Store, token: unknown, now = Date.now()): Promise<{ invitation: TeamInvitationRecord; team: TeamRecord } | null> {
  if (typeof token !== 'string' || !TOKEN.test(token)) return null;
  const invitation = await store.team_invitations.findOne({ token_hash: hashSecret(token) });
  if (!invitation || invitation.consumed_at !== null || invitation.expires_at <= now) return null;
  const team = await store.teams.get(invitation.team_id);
  return team ? { invitation, team } : null;
}

/**
 * Uses the invitation up for `user` and makes them a member (an existing member or the owner keeps
 * their role). One conditional write: of two concurrent acceptances exactly one wins. Null when the
 * link is not usable.
 */
export async function acceptInvitation(store: Store, token: unknown, user: UserRecord, now = Date.now()): Promise<TeamRecord | null> {
  if (user.managed_by !== null) return null;
  const found = await findInvitation(store, token, now);
  if (!found) return null;
  const used = await store.team_invitations.updateOne({ id: found.invitation.id, consumed_at: null, expires_at: { $gt: now } }, { set: { consumed_at: now } });
  if (!used) return null;
  try {
    await store.team_members.insertIfAbsent({ id: newId(), team_id: found.team.id, user_id: user.id, role: 'member', created_at: now }, ['team_id', 'user_id']);
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
  }
  return found.team;
}
