/**
 * GET /legal/client-side-privacy: the instance's standard privacy policy for client-side apps
 * (pages/client-side-privacy.ts), the privacy statement the one-click page path gives an app. Public,
 * no session needed. Kept honest by test/gateway/clientside-apps.test.ts.
 */
import type { RouteTable } from '../route-table.js';
import { sendPage } from '../pages/layout.js';
import { CLIENTSIDE_PRIVACY_PATH, clientsidePrivacyPage } from '../pages/client-side-privacy.js';

export function clientsidePrivacyRoutes(table: RouteTable): void {
  table.page({ method: 'get', path: CLIENTSIDE_PRIVACY_PATH, name: 'clientsidePrivacy' }, function showClientsidePrivacy(ctx) {
    sendPage(ctx, 200, clientsidePrivacyPage());
  });
}
