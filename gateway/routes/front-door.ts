/**
 * GET / (issue 26 item 6): the front door page for a browser (pages/front-door.ts). The interface says
 * nothing about `/`, and API clients keep what they always got: a request that prefers JSON to HTML
 * (`Accept: application/json`) is answered with the JSON 404 of any unknown path. The page is a page
 * (RouteTable.page), so it is not in /openapi.json, like the sign-in and account pages. Kept honest by
 * test/gateway/front-door.test.ts and test/browser/front-door.test.ts.
 */
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { sendPage } from '../pages/layout.js';
import { frontDoorPage } from '../pages/front-door.js';

export function frontDoorRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.page({ method: 'get', path: '/', name: 'frontDoor' }, async function frontDoor(ctx) {
    // Left without a body, the error writer answers `{"detail": "Not Found"}` as for any unknown path.
    ctx.vary('Accept');
    if (ctx.accepts('html', 'json') !== 'html') return void (ctx.status = 404);
    const found = await deps.sessions.signedInUser(ctx);
    const name = found ? [found.user.first_name, found.user.last_name].filter(Boolean).join(' ') || (found.user.email ?? 'your account') : null;
    sendPage(ctx, 200, frontDoorPage({ signedInAs: name }));
  });
}
