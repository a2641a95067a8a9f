/** Sign up, sign in (email link or password) and sign out pages. */
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';

export function signInRoutes(table: RouteTable, deps: GatewayDeps): void {
  void table; void deps;
}
