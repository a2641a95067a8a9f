/**
 * The calling app's metadata on the user (interface §4 "Profile", §2 "App metadata", §8: at most 4 KB,
 * 32 levels): `PUT` replaces it, `DELETE` removes it, `GET` reads it back — the app's own object, or
 * null. Through the one mechanism of services/app-metadata.ts: app tokens only (403), size (413), depth
 * (422); an app never sees another app's object. `GET` is ours: the interface names no place where a
 * user's metadata is read, the userinfo shape is pinned by gaps.md and the User object is a managed
 * user's, so it is read where it is written. Kept honest by test/gateway/profile-app-metadata.test.ts.
 */
import { AppMetadataBody, putAppMetadata, requireAppToken } from '../services/app-metadata.js';
import { NotFoundError } from '../errors.js';
import type { UserRecord } from '../../storage/store.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const PATH = '/api/v1/profile/app-metadata';
/** Interface §8: "App metadata on a user: at most 4 KB". */
const USER_METADATA_BYTES = 4096;

export function profileAppMetadataRoutes(table: RouteTable, deps: GatewayDeps): void {
  async function tokenUser(userId: string): Promise<UserRecord> {
    const user = await deps.store.users.get(userId);
    if (!user) throw new NotFoundError('User not found');
    return user;
  }

  table.add(
    {
      method: 'get', path: PATH, operationId: 'getUserAppMetadata', tag: 'profile',
      summary: "The calling app's metadata on the user, or null (app tokens only)", auth: 'bearer', scope: 'activities:read',
      responses: { 200: { description: "The app's own object, or null", schema: AppMetadataBody.nullable() }, 403: { description: 'Not an app token' } },
    },
    async function getUserMetadata(ctx) {
      const applicationId = requireAppToken(ctx.state.auth);
      const user = await tokenUser(ctx.state.auth.userId);
      ctx.body = JSON.stringify(user.app_metadata[applicationId] ?? null);
      ctx.type = 'application/json';
    },
  );

  table.add(
    {
      method: 'put', path: PATH, operationId: 'putUserAppMetadata', tag: 'profile',
      summary: "Replace the calling app's metadata on the user (app tokens only; at most 4 KB, 32 levels)",
      auth: 'bearer', scope: 'activities:write', body: AppMetadataBody,
      responses: {
        200: { description: "The app's metadata as stored", schema: AppMetadataBody },
        403: { description: 'Not an app token' },
        413: { description: 'Metadata larger than 4 KB' },
      },
    },
    async function putUserMetadata(ctx) {
      const applicationId = requireAppToken(ctx.state.auth);
      const user = await tokenUser(ctx.state.auth.userId);
      ctx.body = await putAppMetadata(deps.store.users, user, applicationId, ctx.state.body, { maxBytes: USER_METADATA_BYTES });
    },
  );

  table.add(
    {
      method: 'delete', path: PATH, operationId: 'deleteUserAppMetadata', tag: 'profile',
      summary: "Remove the calling app's metadata from the user (app tokens only)", auth: 'bearer', scope: 'activities:write',
      responses: { 204: { description: 'Removed' }, 403: { description: 'Not an app token' } },
    },
    async function deleteUserMetadata(ctx) {
      const applicationId = requireAppToken(ctx.state.auth);
      await putAppMetadata(deps.store.users, await tokenUser(ctx.state.auth.userId), applicationId, null, { maxBytes: USER_METADATA_BYTES });
      ctx.status = 204;
    },
  );
}
