/** GET /api/v1/users/: the caller, managed users and shared users. */
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';

export function userRoutes(table: RouteTable, deps: GatewayDeps): void {
  void table; void deps;
}
