/**
 * `threshold token mint`: an access token without the OAuth dance, for trying the API locally: the
 * same 15-minute token the token endpoint issues. Usage checks come first, so they never open the store.
 */
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';
import { isScope, splitScopes } from '../../gateway/auth/scopes.js';
import { unionGrant } from '../../gateway/services/accounts.js';
import { CommandFailure, UsageError, command } from '../command.js';

export const tokenMint = command({
  words: 'token mint',
  summary: 'Mints a 15-minute access token for a user → {access_token, token_type, expires_in}.',
  options: {
    user: { type: 'string', required: true, value: 'USER_ID', description: 'The user the token speaks for.' },
    scopes: { type: 'string', required: true, value: 'SCOPES', description: 'The scopes it carries, separated by spaces or commas, e.g. "activities:read activities:write".' },
    app: { type: 'string', value: 'APP_ID', description: 'Issues it to this application (as the token endpoint would); the user\'s grant to the application gains the scopes.' },
  },
  async run({ values }, context) {
    const scopes = [...new Set(splitScopes(values.scopes))];
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
    const store = await context.store();
    if (!(await store.users.get(values.user))) throw new CommandFailure(`user ${values.user} does not exist`);
    if (values.app) {
      if (!(await store.applications.get(values.app))) throw new CommandFailure(`application ${values.app} does not exist`);
      // An app token stands on a grant; minting one here records the consent it implies.
      await unionGrant(store, values.user, values.app, scopes);
    }
    const keys = await SigningKeys.open(store);
    return mintAccessToken(keys, { issuer: context.config().baseUrl, userId: values.user, applicationId: values.app ?? null, scopes });
  },
});
