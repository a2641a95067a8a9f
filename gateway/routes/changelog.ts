/**
 * GET /changelog and /changelog.md: the release notes (CHANGELOG.md at the repository root; interface §9
 * "Dated release notes exist for changes of the API"), as a page and as the Markdown file itself. Public,
 * like /docs, which links to them (through the OpenAPI document's description). The file is read once at
 * start-up: a build without it fails to start rather than answer 500s. test/gateway/changelog.test.ts.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { sendPage } from '../pages/layout.js';
import { changelogPage } from '../pages/changelog.js';
import { CHANGELOG_PATH } from '../openapi.js';

/** CHANGELOG.md from dist/gateway/routes/ (compiled; the image keeps it beside dist/) or gateway/routes/. */
export function readChangelog(): string {
  for (const relative of ['../../../CHANGELOG.md', '../../CHANGELOG.md']) {
    const file = fileURLToPath(new URL(relative, import.meta.url));
    if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
  }
  throw new Error(`changelog: CHANGELOG.md not found above ${fileURLToPath(import.meta.url)}`);
}

export function changelogRoutes(table: RouteTable, _deps: GatewayDeps): void {
  const markdown = readChangelog();
  const page = changelogPage(markdown);
  table.page({ method: 'get', path: CHANGELOG_PATH, name: 'changelog' }, async function changelog(ctx) {
    sendPage(ctx, 200, page);
  });
  table.page({ method: 'get', path: `${CHANGELOG_PATH}.md`, name: 'changelogMarkdown' }, async function changelogMarkdown(ctx) {
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/markdown; charset=utf-8';
    ctx.body = markdown;
  });
}
