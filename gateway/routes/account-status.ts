/**
 * `GET /api/v1/profile/status` (interface §2 "Account status", §4 "Profile": "Needs a valid token and no
 * scope. Beta."): the status of each capability and at most one issue, for the calling application.
 * The rules are domain/account-status.ts; the facts are gathered by services/account-status.ts. Kept
 * honest by test/gateway/account-status.test.ts.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import { CAPABILITIES, ISSUE_CODES, PORTAL_DESTINATIONS } from '../../domain/account-status.js';
import { accountStatusOf } from '../services/account-status.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const CapabilityStatus = z.enum(['ready', 'syncing', 'action_required', 'unavailable']);

const AccountStatus = named('AccountStatus', z.object({
  issue: z.object({
    code: z.enum(ISSUE_CODES).describe('Why; clients branch on status, never on code, whose values and ordering may change'),
    status: z.enum(['action_required', 'syncing']),
    message: z.string().describe('A sentence to show the user'),
    destination: z.enum(PORTAL_DESTINATIONS).nullable().describe('The portal destination that helps, for POST /api/v1/portal/sessions; always null on a delegated token'),
  }).nullable().describe('null when there is nothing to tell the user; reported only for the capabilities the calling application declares'),
  capabilities: z.object(Object.fromEntries(CAPABILITIES.map((key) => [key, CapabilityStatus])) as Record<(typeof CAPABILITIES)[number], typeof CapabilityStatus>)
    .describe('Status per capability key; the key set is open, clients ignore unknown keys'),
}));

export function accountStatusRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/profile/status', operationId: 'getAccountStatus', tag: 'profile',
      summary: 'Account status: each capability and at most one issue for the calling application (beta)', auth: 'bearer',
      responses: { 200: { description: 'Capabilities and the issue, if any', schema: AccountStatus } },
    },
    async function getAccountStatus(ctx) {
      ctx.body = await accountStatusOf(deps.store, ctx.state.auth, deps.config.configuredProviders);
    },
  );
}
