/**
 * `threshold user create`, `threshold user list` and `threshold user delete`. The listing names each field explicitly: a
 * password hash, app metadata or anything added to the record later never reaches the output.
 */
import type { UserRecord } from '../../storage/store.js';
import { createUser } from '../../gateway/services/accounts.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../gateway/auth/passwords.js';
import { command, CommandFailure } from '../command.js';
import { beginUserDeletion, continueUserDeletion, deletionPayload } from '../../storage/user-deletion.js';

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
  summary: 'Deletes a user and everything they own, for good → {"deleted": ID, "removed": N, "batches": N, "largest_batch": N}.',
  options: {
    user: { type: 'string', required: true, value: 'USER_ID', description: 'The user to delete.' },
    queue: { type: 'boolean', description: 'Only make the user gone and queue the removal of the rest for the engines → {"deleted": ID, "queued": JOB_ID}.' },
  },
  details: [
    'First, in one small write, the user and their managed users, applications and teams are deleted: from then on nothing of theirs is served, and every token and session of theirs (and of their applications) stops working. Then everything else — every record of every kind (activities, sources, traces, tests, dailies, markers, max efforts, …), their uploaded files, series and analysis caches, their applications\' secrets, grants and tokens — is removed in batches of at most 500 documents or 25 files, each its own write, as a delete-user job in the shared queue.',
    'Without --queue this command runs that job itself and answers when it is finished: removed counts the documents and files, batches the writes, largest_batch the largest one. With --queue it answers at once and the engines finish the job (a job cut off by a crash resumes after its lease). It cannot be undone. An unknown user is a refused operation (exit 1).',
  ],
  async run({ values }, context) {
    const store = await context.store();
    const job = await beginUserDeletion(store, values.user);
    if (job === null) throw new CommandFailure(`no user with id ${values.user}`);
    if (values.queue) return { deleted: values.user, queued: job.id };
    // Run here; an engine claiming the job meanwhile does the same idempotent walk.
    const done = await continueUserDeletion(store, deletionPayload(job));
    await store.jobs.updateOne({ id: job.id, status: { $ne: 'done' } }, { set: { status: 'done', payload: done, progress: 1, updated_at: Date.now() } });
    return { deleted: values.user, removed: done.removed, batches: done.batches, largest_batch: done.largest };
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
