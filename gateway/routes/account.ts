/** Signed-in account pages: connected apps (revoke) and application client secrets. */
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';

export function accountRoutes(table: RouteTable, deps: GatewayDeps): void {
  void table; void deps;
}
