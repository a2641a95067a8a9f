/**
 * The page frame every server-rendered screen shares, and the headers every page is sent with
 * (AUTH.md "Consent and sessions"): `Cache-Control: no-store`, `Referrer-Policy: no-referrer`, a
 * Content-Security-Policy with `frame-ancestors 'none'` (plus `X-Frame-Options: DENY` for old
 * browsers), no script at all, and styles allowed only by their hash. A page that names a `script` (the
 * athlete's pages: a file this gateway serves, never inline, never another origin) gets `script-src 'self'`
 * and `connect-src 'self'` in its own CSP; every other page keeps the policy without them.
 *
 * The CSP deliberately has no `form-action`: browsers apply it to the redirect that follows a form
 * post, and the consent form's answer is a redirect to the application's own redirect URI.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { html, trusted, type Html } from './html.js';

export interface Brand {
  /** The application's name, shown as "… wants to connect". */
  name: string;
  /** https image URL, or null. */
  image: string | null;
  /** `#rrggbb`, or null for the default accent. */
  color: string | null;
}

export interface PageOptions {
  title: string;
  body: Html;
  /** The application the screen is branded for (sign-in and consent during an authorization). */
  brand?: Brand | null;
  /** A wider card for lists and tables (account pages); sign-in and consent stay narrow. */
  wide?: boolean;
  /** CSS a page adds to the frame's (a form's own rules); covered by the same CSP hash. */
  extraStyle?: string;
  /**
   * A page of several panels (the athlete's pages): a wider main without the single card, and `nav`
   * beside the mark.
   */
  dashboard?: { nav: Html };
  /**
   * A script file served by this gateway (a path on this origin) with its Subresource Integrity value;
   * the page must work without it (progressive enhancement).
   */
  script?: { src: string; integrity: string };
}

const ACCENT = '#2457d6';
const COLOR = /^#[0-9a-fA-F]{6}$/;

const STYLE = `
:root{--accent:${ACCENT};--ink:#14171f;--muted:#5b6472;--line:#dde1e8;--bg:#f4f6f9;--danger:#b42318;color-scheme:light}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
main{max-width:28rem;margin:0 auto;padding:2.5rem 1rem 3rem}
main.wide{max-width:44rem}
.card{background:#fff;border:1px solid var(--line);border-radius:12px;padding:1.75rem 1.5rem;box-shadow:0 1px 2px rgba(16,24,40,.05)}
.mark{display:flex;align-items:center;gap:.5rem;margin:0 0 1.5rem;font-weight:650;letter-spacing:.01em;color:var(--ink)}
.mark svg{width:1.5rem;height:1.5rem}
.app{display:flex;align-items:center;gap:.75rem;margin:0 0 1.25rem}
.app img{width:3rem;height:3rem;border-radius:10px;object-fit:cover;border:1px solid var(--line)}
.app .initial{width:3rem;height:3rem;border-radius:10px;background:var(--accent);color:#fff;display:grid;place-items:center;font-weight:700;font-size:1.25rem}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 .5rem}
h2{font-size:1rem;margin:1.5rem 0 .5rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.925rem}
label{display:block;font-weight:600;font-size:.925rem;margin:1rem 0 .35rem}
input[type=email],input[type=password],input[type=text],input[type=url],textarea{width:100%;padding:.7rem .8rem;border:1px solid #c5cbd5;border-radius:8px;font:inherit;background:#fff}
textarea{resize:vertical}
details.create{margin:1rem 0}details.create summary{cursor:pointer;color:var(--accent);font-weight:600}
label .muted{font-weight:400}.app h1{margin:0 0 .15rem}.app .muted{margin:0}.nowrap{white-space:nowrap}
input:focus,textarea:focus{outline:3px solid color-mix(in srgb,var(--accent) 30%,transparent);border-color:var(--accent)}
button,.button{display:inline-block;width:100%;margin-top:1.1rem;padding:.75rem 1rem;border:0;border-radius:8px;background:var(--accent);color:#fff;font:inherit;font-weight:600;cursor:pointer;text-align:center;text-decoration:none}
button.secondary,.button.secondary{background:#fff;color:var(--ink);border:1px solid #c5cbd5}
button.danger{background:var(--danger)}
.row{display:flex;gap:.75rem}.row>*{flex:1}
.divider{display:flex;align-items:center;gap:.75rem;color:var(--muted);font-size:.85rem;margin:1.5rem 0 .25rem}
.divider:before,.divider:after{content:"";flex:1;border-top:1px solid var(--line)}
ul.scopes{list-style:none;padding:0;margin:1rem 0}
ul.scopes li{padding:.8rem 0;border-top:1px solid var(--line)}
ul.scopes li:last-child{border-bottom:1px solid var(--line)}
ul.scopes strong{display:block}
ul.plain{padding-left:1.2rem}
.notice{padding:.75rem .9rem;border-radius:8px;background:#eef4ff;border:1px solid #c7d7fe;font-size:.925rem;margin:1rem 0}
.error{background:#fef3f2;border-color:#fecdca;color:var(--danger)}
.warn{background:#fffaeb;border-color:#fedf89;color:#7a2e0e}
.success{background:#ecfdf3;border-color:#abefc6;color:#067647}
.center{text-align:center}
.lead{color:var(--muted);margin:0 0 1.25rem}
.who{display:flex;align-items:center;gap:.6rem;padding:.6rem .75rem;border:1px solid var(--line);border-radius:8px;margin:1rem 0;font-size:.925rem}
.who .avatar{width:2rem;height:2rem;border-radius:50%;background:#e7ecf5;color:var(--ink);display:grid;place-items:center;font-weight:650;flex:none}
.who span{overflow-wrap:anywhere}
ul.scopes li span{color:var(--muted);font-size:.925rem}
ul.scopes li q{display:block;margin-top:.35rem;padding-left:.6rem;border-left:3px solid var(--line);font-size:.925rem;quotes:none}
.item{display:flex;justify-content:space-between;align-items:flex-start;gap:.75rem;padding:.85rem 0;border-top:1px solid var(--line)}
.list{border-bottom:1px solid var(--line);margin:.5rem 0 1rem}
code.scope{word-break:normal;white-space:nowrap;font-size:.8rem}
.item>div{min-width:0;overflow-wrap:anywhere}
.item .muted{margin:.15rem 0 0}
details.confirm{flex:none}
details.confirm summary{list-style:none;cursor:pointer;color:var(--danger);font-weight:600;font-size:.925rem;padding:.35rem .1rem}
details.confirm summary::-webkit-details-marker{display:none}
details.confirm[open] summary{color:var(--muted)}
details.confirm p{max-width:16rem;font-size:.875rem}
details.confirm form button{margin-top:.4rem;padding:.5rem .8rem;width:auto}
.secret{display:block;padding:.8rem;font-size:.95rem;margin:.75rem 0;background:#f1f3f7;border:1px dashed #c5cbd5;user-select:all}
button.link{width:auto;margin:0;padding:0;background:none;border:0;color:var(--accent);font-weight:500;text-decoration:underline;cursor:pointer}
.actions{margin-top:1.5rem}
table{width:100%;border-collapse:collapse;font-size:.925rem}
td,th{text-align:left;padding:.5rem .25rem;border-top:1px solid var(--line);vertical-align:top}
code{font:.875rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f7;padding:.1rem .3rem;border-radius:4px;word-break:break-all}
footer{margin-top:1.25rem;text-align:center;color:var(--muted);font-size:.825rem}
a{color:var(--accent)}
form.inline{display:inline}form.inline button{width:auto;margin:0;padding:.4rem .8rem}
@media (max-width:420px){main{padding:1.25rem .75rem}.card{padding:1.25rem 1rem}}
`;

const LOGO = trusted(
  '<svg viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M3 20h4V9H3zm7 0h4V4h-4zm7 0h4v-7h-4z"/></svg>',
);

/** The whole document. The style block is per page (a brand colour changes it), so is its CSP hash. */
export function renderPage(options: PageOptions): { body: string; styleHash: string } {
  const color = options.brand?.color && COLOR.test(options.brand.color) ? options.brand.color : null;
  const base = options.extraStyle ? `${STYLE}${options.extraStyle}` : STYLE;
  const style = color ? `${base}:root{--accent:${color}}` : base;
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · Threshold</title>
<style>${trusted(style)}</style>
${options.script ? html`<script src="${options.script.src}" integrity="${options.script.integrity}" defer></script>` : null}
</head>
<body>
${options.dashboard
  ? html`<main class="dashboard">
<header class="top"><a class="mark" href="/training">${LOGO}<span>Threshold</span></a>${options.dashboard.nav}</header>
${options.body}`
  : html`<main${options.wide ? html` class="wide"` : ''}>
<p class="mark">${LOGO}<span>Threshold</span></p>
<div class="card">
${options.body}
</div>`}
<footer>Threshold keeps your training data. You decide which apps may use it.</footer>
</main>
</body>
</html>
`;
  return { body: document.value, styleHash: createHash('sha256').update(style, 'utf8').digest('base64') };
}

/** The application header shown above sign-in and consent during an authorization. */
export function appHeader(brand: Brand): Html {
  const image = brand.image && /^https:\/\//i.test(brand.image) ? brand.image : null;
  return html`<div class="app">${image ? html`<img src="${image}" alt="">` : html`<span class="initial" aria-hidden="true">${brand.name.slice(0, 1).toUpperCase()}</span>`}<div><strong>${brand.name}</strong></div></div>`;
}

/** Sends a page with the security headers every page carries. */
export function sendPage(ctx: Context, status: number, options: PageOptions): void {
  const { body, styleHash } = renderPage(options);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // A page's own script (options.script) is the only way script gets in: same origin, checked by integrity.
  const script = options.script ? "; script-src 'self'; connect-src 'self'" : '';
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'sha256-${styleHash}'; img-src https: data:; base-uri 'none'; frame-ancestors 'none'${script}`,
  );
  ctx.body = body;
}
