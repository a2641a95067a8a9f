/**
 * Managed users (interface §4 "Users"): POST /api/v1/users/ creates one; GET, PUT (form-urlencoded,
 * omitted fields unchanged) and DELETE /api/v1/users/{user_id} work on it, "only its manager". Anyone
 * else, the caller themself included, gets the same 404 as an unknown id. Create, update and delete need
 * sharing:write, the read sharing:read ("sharing:write | create, update, delete managed accounts"). A
 * delegated token never carries either and is refused by name first: these act as the signed-in user.
 * Kept honest by test/gateway/managed-users.test.ts.
 */
import { z } from 'zod';
import { User, presentUser } from '../presenters/managed-user.js';
import { createManagedUser, deleteManagedUser, managedUserOf, renameManagedUser } from '../services/managed-users.js';
import { NotFoundError } from '../errors.js';
import { personGivenName } from '../schemas/names.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const name = personGivenName().max(100);

/** "first_name (string, required), last_name (string or null, key required)" */
const CreateBody = z.object({
  first_name: name.describe('First name'),
  last_name: name.nullable().describe('Last name; the key is required, null allowed'),
});

/** "both optional and nullable; omitted fields stay unchanged". A form sends null as an empty value. */
const UpdateBody = z.object({
  first_name: name.nullish().describe('New first name; empty or null clears it, omitted keeps it'),
  last_name: name.nullish().describe('New last name; empty or null clears it, omitted keeps it'),
});

const UserParams = z.object({ user_id: z.string().min(1).max(64).describe("The managed user's id") });
type UserParams = z.output<typeof UserParams>;

const NOT_FOUND = { description: 'No user by this id that the caller manages (the same answer either way)' };

export function managedUserRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;
  const missing = (id: string) => new NotFoundError(`users: no managed user ${id}`);

  table.add(
    {
      method: 'post', path: '/api/v1/users/', operationId: 'createManagedUser', tag: 'users',
      summary: 'Create a managed user (no sign-in of its own; the caller manages its data)',
      auth: 'bearer', scope: 'sharing:write', refuseDelegated: true, body: CreateBody,
      responses: { 200: { description: 'The new user', schema: User } },
    },
    async function createUser(ctx) {
      const body = ctx.state.body as z.output<typeof CreateBody>;
      ctx.body = presentUser(await createManagedUser(store, ctx.state.auth.userId, body));
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/users/{user_id}', operationId: 'getManagedUser', tag: 'users',
      summary: 'A managed user; only its manager', auth: 'bearer', scope: 'sharing:read', refuseDelegated: true, params: UserParams,
      responses: { 200: { description: 'The user', schema: User }, 404: NOT_FOUND },
    },
    async function getUser(ctx) {
      const { user_id } = ctx.state.input as UserParams;
      const user = await managedUserOf(store, ctx.state.auth.userId, user_id);
      if (!user) throw missing(user_id);
      ctx.body = presentUser(user);
    },
  );

  table.add(
    {
      method: 'put', path: '/api/v1/users/{user_id}', operationId: 'updateManagedUser', tag: 'users',
      summary: "Rename a managed user; omitted fields stay unchanged; only its manager",
      auth: 'bearer', scope: 'sharing:write', refuseDelegated: true, params: UserParams,
      body: UpdateBody, bodyMediaType: 'application/x-www-form-urlencoded',
      responses: { 200: { description: 'The updated user', schema: User }, 404: NOT_FOUND },
    },
    async function updateUser(ctx) {
      const { user_id } = ctx.state.input as UserParams;
      const user = await renameManagedUser(store, ctx.state.auth.userId, user_id, ctx.state.body as z.output<typeof UpdateBody>);
      if (!user) throw missing(user_id);
      ctx.body = presentUser(user);
    },
  );

  table.add(
    {
      method: 'delete', path: '/api/v1/users/{user_id}', operationId: 'deleteManagedUser', tag: 'users',
      summary: 'Delete a managed user and all its data, irreversibly; only its manager',
      auth: 'bearer', scope: 'sharing:write', refuseDelegated: true, params: UserParams,
      responses: { 204: { description: 'Deleted, with every record it owned' }, 404: NOT_FOUND },
    },
    async function deleteUser(ctx) {
      const { user_id } = ctx.state.input as UserParams;
      if (!(await deleteManagedUser(store, ctx.state.auth.userId, user_id))) throw missing(user_id);
      ctx.status = 204;
    },
  );
}
