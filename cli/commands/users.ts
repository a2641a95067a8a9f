/** `threshold user create`. */
import { createUser } from '../../gateway/services/accounts.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../gateway/auth/passwords.js';
import { command } from '../command.js';

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
