/**
 * GET /docs: an interactive reference of /openapi.json (Swagger UI from the swagger-ui-dist package,
 * served from this origin, no CDN), and its four files under /docs/assets/: Swagger UI's stylesheet and
 * bundle, its start-up script, and our few rules that make it readable on a phone (pages/api-docs-style.ts). The page is public, like
 * the document it renders, and holds no user data; its CSP allows scripts and styles from this origin
 * only (Swagger UI sets inline style attributes, hence 'unsafe-inline' for styles on this page alone),
 * connections to this origin only (its "Try it out" calls the API here), and no framing.
 * test/browser/api-docs.test.ts renders it in Chromium.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Context } from 'koa';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { html } from '../pages/html.js';
import { DOCS_STYLE } from '../pages/api-docs-style.js';

const SWAGGER_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_VERSION = (JSON.parse(fs.readFileSync(path.join(SWAGGER_DIR, 'package.json'), 'utf8')) as { version: string }).version;

/** Starts Swagger UI on the document; no validator badge (it would call validator.swagger.io). */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null,
    docExpansion: 'list', defaultModelsExpandDepth: 1, displayOperationId: true, filter: true,
    presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout',
  });
});
`;

const ASSETS: Record<string, { type: string; read: () => Buffer | string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', read: () => fs.readFileSync(path.join(SWAGGER_DIR, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', read: () => fs.readFileSync(path.join(SWAGGER_DIR, 'swagger-ui-bundle.js')) },
  'init.js': { type: 'text/javascript; charset=utf-8', read: () => INIT_SCRIPT },
  'docs.css': { type: 'text/css; charset=utf-8', read: () => DOCS_STYLE },
};

const DOCS_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
  + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** What an asset's URL carries so that a change is a new URL: the package's version, or our file's digest (computed once). */
const versions = new Map<string, string>();
function versionOf(name: string): string {
  if (name.startsWith('swagger-ui')) return SWAGGER_VERSION;
  let version = versions.get(name);
  if (version === undefined) versions.set(name, (version = createHash('sha256').update(ASSETS[name]!.read()).digest('hex').slice(0, 12)));
  return version;
}

function docsPage(): string {
  const asset = (name: string) => `/docs/assets/${name}?v=${versionOf(name)}`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>API reference · Threshold</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
<link rel="stylesheet" href="${asset('docs.css')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${asset('swagger-ui-bundle.js')}"></script>
<script src="${asset('init.js')}"></script>
</body>
</html>
`.value;
}

function securityHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', DOCS_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
}

export function apiDocsRoutes(table: RouteTable, _deps: GatewayDeps): void {
  const page = docsPage();
  table.page({ method: 'get', path: '/docs', name: 'apiDocs' }, async function apiDocs(ctx) {
    securityHeaders(ctx);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  const loaded = new Map<string, Buffer | string>();
  table.page({ method: 'get', path: '/docs/assets/:name', name: 'apiDocsAsset' }, async function apiDocsAsset(ctx) {
    const name = (ctx as Context & { params: { name: string } }).params.name;
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name]! : null;
    if (asset === null) {
      ctx.status = 404;
      ctx.body = { detail: 'no such asset' };
      return;
    }
    let body = loaded.get(name);
    if (body === undefined) loaded.set(name, (body = asset.read()));
    securityHeaders(ctx);
    // The URL carries the package version or our file's digest, so a change is a new URL.
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = asset.type;
    ctx.body = body;
  });
}
