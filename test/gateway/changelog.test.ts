/**
 * The release notes (interface §9 "Dated release notes exist for changes of the API"): CHANGELOG.md has
 * dated entries, newest first, each naming the interface version it targets; the service serves the file
 * as Markdown at /changelog.md and as a page at /changelog (gateway/pages/changelog.ts renders our small
 * Markdown subset, escaping everything); the OpenAPI document, and so /docs, links to it.
 * test/browser/api-docs.test.ts follows the link in Chromium.
 */
import fs from 'node:fs';
import path from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, type TestStack } from '../support/stack.js';
import { INTERFACE_VERSION } from '../../gateway/openapi.js';
import { changelogPage } from '../../gateway/pages/changelog.js';

const changelog = suite<{ stack: TestStack }>('release notes');
const FILE = fs.readFileSync(path.join(REPO_ROOT, 'CHANGELOG.md'), 'utf8');
const ENTRY = /^## (\d{4}-\d{2}-\d{2}) \(interface (\d+\.\d+\.\d+)\)$/gm;
const entries = [...FILE.matchAll(ENTRY)].map((match) => ({ heading: match[0].slice(3), date: match[1]!, version: match[2]! }));

changelog.before(async (context) => {
  context.stack = await startStack();
});
changelog.after(async (context) => {
  await context.stack?.close();
});

changelog('CHANGELOG.md has dated entries, newest first, each naming its interface version and listing changes', () => {
  assert.ok(entries.length >= 5, `${entries.length} dated entries`);
  const dates = entries.map((entry) => entry.date);
  assert.equal(dates, [...new Set(dates)].sort().reverse(), 'one entry per date, newest first');
  for (const { date } of entries) assert.ok(!Number.isNaN(Date.parse(`${date}T00:00:00Z`)), date);
  assert.ok(entries[0]!.date <= new Date().toISOString().slice(0, 10), `the newest entry (${entries[0]!.date}) is not dated in the future`);
  assert.is(entries[0]!.version, INTERFACE_VERSION);
  // Every `## ` heading is a dated entry, and each has at least one change under it.
  assert.is(FILE.match(/^## /gm)!.length, entries.length, 'a second-level heading that is not a dated entry');
  for (const section of FILE.split(/^## /m).slice(1)) assert.match(section, /^- \*\*/m, `no change listed under ${section.split('\n')[0]}`);
});

changelog('GET /changelog.md answers the file as text/markdown', async ({ stack }) => {
  const response = await stack.get('/changelog.md');
  assert.is(response.status, 200);
  assert.is(response.headers.get('content-type'), 'text/markdown; charset=utf-8');
  assert.is(response.headers.get('x-content-type-options'), 'nosniff');
  assert.is(await response.text(), FILE);
});

changelog('GET /changelog renders every dated entry as a heading, newest first, with its changes', async ({ stack }) => {
  const response = await stack.get('/changelog');
  assert.is(response.status, 200);
  assert.is(response.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(response.headers.get('content-security-policy') ?? '', "default-src 'none'");
  const page = await response.text();
  assert.match(page, '<h1>Release notes</h1>');
  const headings = [...page.matchAll(/<h2>([^<]+)<\/h2>/g)].map((match) => match[1]);
  assert.equal(headings, entries.map((entry) => entry.heading));
  assert.match(page, '<li><strong>Release notes:</strong> this changelog, served at <code>/changelog</code>');
  assert.match(page, '<a href="/changelog.md">');
  assert.not.match(page, '**');
});

changelog('the page escapes the text and keeps only http(s) and same-origin links', () => {
  const { title, body } = changelogPage('# Notes <b>\n\n## 2030-01-01 (interface 9.9.9)\n\n- **a** `<script>` [x](javascript:alert(1)) [y](//evil.example) [z](https://example.com/?a=1&b=2)\n  continued <i>here</i>\n\ntext & more');
  assert.is(title, 'Notes <b>');
  const markup = body.value;
  assert.match(markup, '<h1>Notes &lt;b&gt;</h1>');
  assert.match(markup, '<li><strong>a</strong> <code>&lt;script&gt;</code> [x](javascript:alert(1)) [y](//evil.example) <a href="https://example.com/?a=1&amp;b=2">z</a> continued &lt;i&gt;here&lt;/i&gt;</li>');
  assert.match(markup, '<p>text &amp; more</p>');
  assert.not.match(markup, /<(script|i|b)>/);
});

changelog('the OpenAPI document links the release notes from its description and as its external docs', async ({ stack }) => {
  const document = (await (await stack.get('/openapi.json')).json()) as { info: { description: string }; externalDocs: { url: string; description: string } };
  assert.match(document.info.description, '[Release notes](/changelog)');
  assert.match(document.info.description, '[as Markdown](/changelog.md)');
  assert.equal(document.externalDocs, { description: 'Release notes: dated changes of the API', url: `${stack.baseUrl}/changelog` });
});

changelog.run();
