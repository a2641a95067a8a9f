/** Delegated and principal tokens. */
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';

export function delegationRoutes(table: RouteTable, deps: GatewayDeps): void {
  void table; void deps;
}
