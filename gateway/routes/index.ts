/** The route table of the whole gateway, in the order of the interface. */
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';
import { systemRoutes } from './system.js';
import { wellKnownRoutes } from './well-known.js';
import { activityRoutes } from './activities.js';

export function addRoutes(table: RouteTable, deps: GatewayDeps): void {
  systemRoutes(table, deps);
  wellKnownRoutes(table, deps);
  activityRoutes(table, deps);
}
