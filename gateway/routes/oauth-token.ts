/** The token endpoint (and its alias) and userinfo. */
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';

export function oauthTokenRoutes(table: RouteTable, deps: GatewayDeps): void {
  void table; void deps;
}
