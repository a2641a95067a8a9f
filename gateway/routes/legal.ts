/**
 * The instance's legal pages, public HTML, no session needed:
 * - GET /legal/privacy: the instance's privacy statement (pages/privacy-statement.ts), which a team stored
 *   without one is listed with (services/team-links.ts; test/gateway/team-links.test.ts);
 * - GET /legal/client-side-privacy: the standard privacy policy of client-side apps
 *   (pages/client-side-privacy.ts), the privacy statement the one-click page path gives an app
 *   (services/clientside-apps.ts; test/gateway/clientside-apps.test.ts).
 */
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { sendPage } from '../pages/layout.js';
import { privacyStatementPage } from '../pages/privacy-statement.js';
import { CLIENTSIDE_PRIVACY_PATH, clientsidePrivacyPage } from '../pages/client-side-privacy.js';
import { PRIVACY_STATEMENT_PATH } from '../services/team-links.js';

export function legalRoutes(table: RouteTable, deps: GatewayDeps): void {
  const host = new URL(deps.config.baseUrl).host;
  table.page({ method: 'get', path: PRIVACY_STATEMENT_PATH, name: 'privacyStatement' }, function showPrivacyStatement(ctx) {
    sendPage(ctx, 200, privacyStatementPage({ host }));
  });
  table.page({ method: 'get', path: CLIENTSIDE_PRIVACY_PATH, name: 'clientsidePrivacy' }, function showClientsidePrivacy(ctx) {
    sendPage(ctx, 200, clientsidePrivacyPage());
  });
}
