/** GET /oauth/authorize, the interaction screens (sign-in or consent) and the consent decision. */
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';

export function authorizeRoutes(table: RouteTable, deps: GatewayDeps): void {
  void table; void deps;
}
