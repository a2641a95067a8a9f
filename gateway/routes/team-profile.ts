/**
 * A team's public addresses (issue 23 item 2; services/team-links.ts), what a team stored without its
 * own website or image answers with in the teams API:
 *
 *   GET /teams/:id            its page: name, description, image, links — what the consent screen shows of it
 *   GET /teams/:id/image.svg  an SVG of its initials
 *
 * Public: the team id is a random 64-bit name that only its members and the people asked to authorize
 * it are given, and neither shows members or who authorized it. An unknown id is the 404 page (or a
 * plain 404 for the image). Kept honest by test/gateway/team-links.test.ts.
 */
import type { Context } from 'koa';
import type { TeamRecord } from '../../storage/store.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { sendPage } from '../pages/layout.js';
import { notFoundPage } from '../pages/messages.js';
import { teamProfilePage } from '../pages/teams.js';
import { teamImageSvg } from '../pages/team-image.js';
import { PRIVACY_STATEMENT_PATH } from '../services/team-links.js';

export function teamProfileRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;

  /** The team the path names, or null (an id longer than any we issue is not looked up). */
  async function teamOf(ctx: Context): Promise<TeamRecord | null> {
    const id = String(ctx.params.id ?? '');
    return id.length >= 1 && id.length <= 64 ? store.teams.get(id) : null;
  }

  table.page({ method: 'get', path: '/teams/:id', name: 'teamProfile' }, async function teamProfile(ctx) {
    const team = await teamOf(ctx);
    if (!team) return sendPage(ctx, 404, notFoundPage());
    sendPage(ctx, 200, teamProfilePage({
      id: team.id, name: team.name, description: team.description ?? '', url: team.url ?? '', image: team.image ?? '',
      privacyStatement: team.privacy_statement || PRIVACY_STATEMENT_PATH,
    }));
  });

  table.page({ method: 'get', path: '/teams/:id/image.svg', name: 'teamImage' }, async function teamImage(ctx) {
    const team = await teamOf(ctx);
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (!team) {
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'teams: no such team';
      return;
    }
    ctx.type = 'image/svg+xml; charset=utf-8';
    // Opened on its own, the document runs nothing and loads nothing.
    ctx.set('Content-Security-Policy', "default-src 'none'");
    // A renamed team shows its new initials within 5 minutes.
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = teamImageSvg(team);
  });
}
