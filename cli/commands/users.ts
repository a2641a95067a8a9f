/**
 * `threshold user create`, `threshold user list` and `threshold user delete`. The listing names each field explicitly: a
 * password hash, app metadata or anything added to the record later never reaches the output.
 */
import type { UserRecord } from '../../storage/store.js';
import { createUser } from '../../gateway/services/accounts.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../gateway/auth/passwords.js';
import { command, CommandFailure } from '../command.js';

export const userCreate = command({
  words: 'user create',
  summary: 'Creates a user → {"id": …}.',
  options: {
    email: { type: 'string', required: true, value: 'EMAIL', description: 'Their email address (unique, case-insensitively).' },
    password: { type: 'string', value: 'PASSWORD', description: `A password for signing in on the pages (${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters); without one the user signs in by emailed link.` },
    'first-name': { type: 'string', value: 'NAME', description: 'Given name.' },
    'last-name': { type: 'string', value: 'NAME', description: 'Family name.' },
  },
  async run({ values }, context) {
    const user = await createUser(await context.store(), {
      email: values.email,
      password: values.password ?? null,
      first_name: values['first-name'] ?? null,
      last_name: values['last-name'] ?? null,
    });
    return { id: user.id };
  },
});

export const userList = command({
  words: 'user list',
  summary: 'Lists the users, oldest first → [{id, email, first_name, last_name, admin, managed_by, registered_at}].',
  options: {
    email: { type: 'string', value: 'EMAIL', description: 'Only the user with this email address (case-insensitively).' },
  },
  details: ['Managed users have no email and show the id of the user who manages them in managed_by. Password hashes are never printed.'],
  async run({ values }, context) {
    const store = await context.store();
    const filter = values.email === undefined ? {} : { email: values.email.trim().toLowerCase() };
    const users = await store.users.find(filter, { sort: { registered_at: 1 } });
    return users.map(presentUser);
  },
});

export const userDelete = command({
  words: 'user delete',
  summary: 'Deletes a user and everything they own, for good → {"deleted": ID, "removed": N}.',
  options: {
    user: { type: 'string', required: true, value: 'USER_ID', description: 'The user to delete.' },
  },
  details: [
    'Removes at once, in one transaction: the user, every record of every kind (activities, sources, traces, tests, dailies, markers, max efforts, …), their uploaded files, series and analysis caches, their managed users, their applications with those applications\' secrets and grants, and every token. removed counts the documents and files. It cannot be undone. An unknown user is a refused operation (exit 1).',
  ],
  async run({ values }, context) {
    const store = await context.store();
    if (!(await store.users.get(values.user))) throw new CommandFailure(`no user with id ${values.user}`);
    return { deleted: values.user, removed: await store.deleteUser(values.user) };
  },
});

function presentUser(user: UserRecord) {
  return {
    id: user.id,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    admin: user.admin,
    managed_by: user.managed_by,
    registered_at: new Date(user.registered_at).toISOString(),
  };
}
