/**
 * GET /legal/privacy — the instance's privacy statement (pages/privacy-statement.ts), public, HTML. It is
 * the `privacy_statement` a team stored without one answers with (issue 23 item 2; services/team-links.ts).
 * Kept honest by test/gateway/team-links.test.ts.
 */
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { sendPage } from '../pages/layout.js';
import { privacyStatementPage } from '../pages/privacy-statement.js';
import { PRIVACY_STATEMENT_PATH } from '../services/team-links.js';

export function privacyStatementRoutes(table: RouteTable, deps: GatewayDeps): void {
  const host = new URL(deps.config.baseUrl).host;
  table.page({ method: 'get', path: PRIVACY_STATEMENT_PATH, name: 'privacyStatement' }, async function privacyStatement(ctx) {
    sendPage(ctx, 200, privacyStatementPage({ host }));
  });
}
