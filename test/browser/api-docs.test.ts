/**
 * /docs in Chromium: Swagger UI renders every operation of /openapi.json from this origin alone (no
 * request leaves it, no CSP violation), lists every named schema, expands an operation's response, and looks
 * right at desktop and phone size (screenshots in test-artifacts/screenshots/): on the phone nothing is wider
 * than the screen, neither the operation list nor an expanded response with its schema
 * (gateway/pages/api-docs-style.ts). The release notes are linked from the page and open at /changelog.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium } from '../support/chromium.js';

interface Context { stack: TestStack; browser: Browser }
const docs = suite<Context>('browser API reference');
skipUnless(chromiumMissing(), docs);

docs.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
});
docs.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

/** The page is no wider than the viewport, and the expanded schema box needs no sideways scroller. */
async function assertFits(page: Page, what: string): Promise<void> {
  const widths = await page.evaluate<{ document: number; viewport: number; boxes: number[] }>(
    '({ document: document.documentElement.scrollWidth, viewport: window.innerWidth, boxes: [...document.querySelectorAll(".opblock-body .model-box")].filter((box) => box.scrollWidth > box.clientWidth + 1).map((box) => box.scrollWidth - box.clientWidth) })',
  );
  assert.ok(widths.document <= widths.viewport, `${what}: the page is ${widths.document}px wide in a ${widths.viewport}px viewport`);
  assert.equal(widths.boxes, [], `${what}: a schema is wider than its box`);
}

const SIZES = [{ name: 'desktop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }] as const;

docs('renders every operation from this origin only, and an operation shows its named schema', async ({ stack, browser }) => {
  const spec = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
  const operations = Object.values(spec.paths).reduce((sum, methods) => sum + Object.keys(methods).length, 0);
  for (const size of SIZES) {
    const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
    const foreign: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== new URL(stack.baseUrl).origin && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${stack.baseUrl}/docs`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    assert.is(await page.locator('.opblock').count(), operations);
    assert.match((await page.locator('.info .title').textContent()) ?? '', 'Threshold');
    await page.screenshot({ path: path.join(ARTIFACTS, `${size.name}-api-docs.png`) });
    await assertFits(page, `${size.name} operation list`);

    // The Schemas section lists every named schema; an operation's response expands into its fields.
    const models = (await page.locator('section.models').textContent()) ?? '';
    for (const name of Object.keys(spec.components.schemas)) assert.match(models, name);
    const operation = page.locator('#operations-activities-listActivities');
    await operation.locator('.opblock-summary').first().click();
    const ok = operation.locator('.response[data-code="200"]');
    await ok.getByText('Schema', { exact: true }).click();
    await ok.getByText('Items', { exact: true }).click();
    await ok.getByText('source_id', { exact: true }).waitFor();
    await ok.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, `${size.name}-api-docs-operation.png`), fullPage: false });
    await assertFits(page, `${size.name} expanded response`);
    assert.equal(foreign, [], 'no request leaves the service');
    assert.equal(problems, [], 'no console error (a CSP violation would be one)');
    await page.close();
  }
});

docs('links the release notes: the link is visible above the operations and opens the dated entries, newest first', async ({ stack, browser }) => {
  const newest = /^## (\d{4}-\d{2}-\d{2} \(interface [^)]+\))$/m.exec(await (await stack.get('/changelog.md')).text())![1]!;
  for (const size of SIZES) {
    const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
    await page.goto(`${stack.baseUrl}/docs`);
    const link = page.locator('.info .description').getByRole('link', { name: 'Release notes', exact: true });
    await link.waitFor({ timeout: 20_000 });
    assert.ok(await link.isVisible(), `${size.name}: the link is visible`);
    // Swagger UI opens the description's links in a new tab.
    const [notes] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await notes.waitForLoadState();
    assert.is(notes.url(), `${stack.baseUrl}/changelog`);
    assert.is(await notes.locator('h1').textContent(), 'Release notes');
    assert.is(await notes.locator('h2').first().textContent(), newest);
    await notes.screenshot({ path: path.join(ARTIFACTS, `${size.name}-changelog.png`) });
    const widths = await notes.evaluate<{ document: number; viewport: number }>('({ document: document.documentElement.scrollWidth, viewport: window.innerWidth })');
    assert.ok(widths.document <= widths.viewport, `${size.name}: the release notes are ${widths.document}px wide in a ${widths.viewport}px viewport`);
    assert.is(await page.locator('.info a.info__extdocs').getAttribute('href'), `${stack.baseUrl}/changelog`);
    await page.close();
  }
});

docs.run();
