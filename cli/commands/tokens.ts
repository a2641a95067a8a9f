/**
 * `threshold token mint`: an access token without the OAuth dance, for trying the API locally. It is
 * the same token the token endpoint issues (15 minutes by default); `--expires-in` asks for a longer
 * one, up to MAX_LIFETIME_S. Usage checks come first, so a bad lifetime never opens the store.
 */
import { SigningKeys, ACCESS_TOKEN_TTL_S } from '../../gateway/auth/signing-keys.js';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';
import { isScope, splitScopes } from '../../gateway/auth/scopes.js';
import { unionGrant } from '../../gateway/services/accounts.js';
import { CommandFailure, UsageError, command } from '../command.js';

/** Shortest lifetime --expires-in accepts, in seconds: less is no use for trying anything by hand. */
export const MIN_LIFETIME_S = 60;
/**
 * Longest, in seconds: 30 days. A month of local scripts and notebooks without minting again, while a
 * token that is forgotten or leaks still ends on its own (a personal token otherwise ends only with
 * its user, or 15 minutes after `threshold keys rotate` retires the key that signed it).
 */
export const MAX_LIFETIME_S = 30 * 24 * 3600;

export const tokenMint = command({
  words: 'token mint',
  summary: 'Mints an access token for a user → {access_token, token_type, expires_in}; 15 minutes unless --expires-in says otherwise.',
  options: {
    user: { type: 'string', required: true, value: 'USER_ID', description: 'The user the token speaks for.' },
    scopes: { type: 'string', required: true, value: 'SCOPES', description: 'The scopes it carries, separated by spaces or commas, e.g. "activities:read activities:write".' },
    app: { type: 'string', value: 'APP_ID', description: 'Issues it to this application (as the token endpoint would); the user\'s grant to the application gains the scopes.' },
    'expires-in': {
      type: 'string', value: 'SECONDS',
      description: `Lifetime in whole seconds, from ${MIN_LIFETIME_S} to ${MAX_LIFETIME_S} (30 days); default ${ACCESS_TOKEN_TTL_S} (15 minutes), what the OAuth endpoints issue.`,
    },
  },
  details: [
    'A longer lifetime is for local play (scripts, notebooks, a client under development). The 30-day cap bounds how long a forgotten '
    + 'or leaked token stays usable. Whatever its lifetime, a token stops working when its user is deleted, when (with --app) the user\'s '
    + 'grant to the application is revoked (granting it again later does not revive it: the token names the grant it was minted under), '
    + 'and 15 minutes (plus 30 s) after `threshold keys rotate` retires the key that signed it.',
  ],
  async run({ values }, context) {
    const lifetimeS = values['expires-in'] === undefined ? ACCESS_TOKEN_TTL_S : lifetime(values['expires-in']);
    const scopes = [...new Set(splitScopes(values.scopes))];
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
    const store = await context.store();
    if (!(await store.users.get(values.user))) throw new CommandFailure(`user ${values.user} does not exist`);
    let grantId: string | null = null;
    if (values.app) {
      if (!(await store.applications.get(values.app))) throw new CommandFailure(`application ${values.app} does not exist`);
      // An app token stands on a grant, and names it; minting one here records the consent it implies.
      grantId = (await unionGrant(store, values.user, values.app, scopes)).id;
    }
    const keys = await SigningKeys.open(store);
    return mintAccessToken(keys, { issuer: context.config().baseUrl, userId: values.user, applicationId: values.app ?? null, grantId, scopes, lifetimeS });
  },
});

function lifetime(text: string): number {
  const seconds = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= MIN_LIFETIME_S && seconds <= MAX_LIFETIME_S)) {
    throw new UsageError(`--expires-in must be a whole number of seconds from ${MIN_LIFETIME_S} to ${MAX_LIFETIME_S} (30 days), got '${text}'`);
  }
  return seconds;
}
