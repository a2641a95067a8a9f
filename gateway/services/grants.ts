/**
 * Ending what a grant or a client secret stands on. Access tokens are stateless JWTs, but the resource
 * server checks on every request that the grant and the secret behind a token still exist
 * (auth/access-tokens.ts), so deleting them here ends every access token at once — and for good, since
 * an app token names its grant by id and a later consent makes a new grant; refresh tokens and
 * unredeemed codes are deleted with them.
 */
import type { Store } from '../../storage/store.js';

/** Revokes the user's grant to an application; returns whether there was one. */
export async function revokeGrant(store: Store, userId: string, applicationId: string): Promise<boolean> {
  const grant = await store.grants.findOne({ user_id: userId, application_id: applicationId });
  if (!grant) return false;
  await store.batch([
    { collection: 'grants', delete: { id: grant.id } },
    { collection: 'refresh_tokens', delete: { grant_id: grant.id } },
    { collection: 'authorization_codes', delete: { grant_id: grant.id } },
  ]);
  return true;
}

/** Deletes one client secret of an application and every refresh token issued under it. */
export async function deleteClientSecret(store: Store, applicationId: string, secretId: string): Promise<boolean> {
  const secret = await store.client_secrets.findOne({ id: secretId, application_id: applicationId });
  if (!secret) return false;
  await store.batch([
    { collection: 'client_secrets', delete: { id: secret.id } },
    { collection: 'refresh_tokens', delete: { client_secret_id: secret.id } },
  ]);
  return true;
}
