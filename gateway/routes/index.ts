/** The route table of the whole gateway, in the order of the interface. */
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { systemRoutes } from './system.js';
import { wellKnownRoutes } from './well-known.js';
import { activityByIdRoutes, activityRoutes } from './activities.js';
import { activitySeriesRoutes } from './activity-series.js';
import { activityAnalyticsRoutes, analyticsRoutes } from './analytics.js';
import { profileRoutes } from './profile.js';
import { markerRoutes } from './markers.js';
import { templateWeekRoutes } from './template-week.js';
import { zoneRoutes } from './zones.js';
import { maxEffortRoutes } from './max-efforts.js';
import { profileAppMetadataRoutes } from './profile-app-metadata.js';
import { sourceRoutes } from './sources.js';
import { signInRoutes } from './sign-in.js';
import { accountRoutes } from './account.js';
import { authorizeRoutes } from './authorize.js';
import { oauthTokenRoutes } from './oauth-token.js';
import { delegationRoutes } from './delegation.js';
import { userRoutes } from './users.js';
import { grantRoutes } from './grants.js';
import { dailyRoutes } from './dailies.js';
import { traceRoutes } from './traces.js';
import { testRoutes } from './tests.js';
import { applicationRoutes } from './applications.js';
import { pageRoutes } from './pages.js';

export function addRoutes(table: RouteTable, deps: GatewayDeps): void {
  systemRoutes(table, deps);
  wellKnownRoutes(table, deps);
  authorizeRoutes(table, deps);
  oauthTokenRoutes(table, deps);
  delegationRoutes(table, deps);
  grantRoutes(table, deps);
  signInRoutes(table, deps);
  accountRoutes(table, deps);
  userRoutes(table, deps);
  applicationRoutes(table, deps);
  pageRoutes(table, deps);
  sourceRoutes(table, deps);
  activityRoutes(table, deps);
  activitySeriesRoutes(table, deps);
  analyticsRoutes(table, deps);
  profileRoutes(table, deps);
  dailyRoutes(table, deps);
  markerRoutes(table, deps);
  templateWeekRoutes(table, deps);
  zoneRoutes(table, deps);
  maxEffortRoutes(table, deps);
  profileAppMetadataRoutes(table, deps);
  traceRoutes(table, deps);
  testRoutes(table, deps);
  // Last: `/activities/{activity_id}` must not capture fixed paths registered above.
  activityByIdRoutes(table, deps);
  activityAnalyticsRoutes(table, deps);
}
