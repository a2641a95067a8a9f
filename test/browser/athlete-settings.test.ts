/**
 * The athlete's settings page in a real browser (issue 28 items 4 and 7), at desktop (1280×800) and phone
 * (390×844) size: a person signs in, opens Settings from the athlete navigation, declares critical power,
 * maximum and resting heart rate and body mass, watches the "recomputing" state resolve (the page's script
 * polling /training/settings/derived), and sees the values with their provenance, the maps and the
 * heart-rate zones; then declares an FTP and sees the power zones; a hostile value shows its error beside
 * the field. No page is wider than the phone. Screenshots: test-artifacts/screenshots/settings-*.png
 * (with SCREENS_DIR=docs/screens copied there for the README). The same page over HTTP: test/gateway/athlete-settings.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium, screenshot, signInWithPassword, VIEWPORTS } from '../support/chromium.js';
import { createUser } from '../../gateway/services/accounts.js';
import { todayLocal } from '../../domain/time.js';

interface Context {
  stack: TestStack;
  browser: Browser;
}

const settings = suite<Context>('browser athlete settings');
skipUnless(chromiumMissing(), settings);

const PASSWORD = 'correct horse battery';
/** How long the recomputation may take to resolve on a loaded machine. */
const RESOLVE_MS = 60_000;

settings.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
});
settings.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

async function assertNoOverflow(page: Page, what: string): Promise<void> {
  const widths = await page.evaluate<{ document: number; viewport: number }>('({ document: document.documentElement.scrollWidth, viewport: window.innerWidth })');
  assert.ok(widths.document <= widths.viewport, `${what}: the page is ${widths.document}px wide in a ${widths.viewport}px viewport`);
}

/** Submits the form and answers the HTML the server sent for the page it lands on (before the script changes it). */
async function save(page: Page): Promise<string> {
  const [response] = await Promise.all([page.waitForNavigation(), page.click('form.settings button[type=submit]')]);
  return (await response!.text());
}

settings('declares CP and heart rates, watches the recomputation resolve, and sees values with provenance, maps and zones, in Chromium', async (context) => {
  const today = todayLocal();
  for (const viewport of VIEWPORTS) {
    const email = `settings-${viewport.name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    await createUser(context.stack.store, { email, password: PASSWORD, first_name: 'Ada', last_name: 'Rider' });
    const browser = await context.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
    await signInWithPassword(page, context.stack.baseUrl, email, PASSWORD);

    await Promise.all([page.waitForURL(/\/training\/settings$/), page.getByRole('navigation', { name: 'Training' }).getByRole('link', { name: 'Settings' }).click()]);
    assert.ok(await page.getByText('Body mass: record it above.').isVisible(), 'what is missing, in words');

    await page.fill('#power', '285');
    await page.selectOption('select[name=power_kind]', 'critical_power');
    await page.fill('#heart_rate_max', '186');
    await page.fill('#resting_hr', '46');
    await page.fill('#body_mass', '70.5');
    const sent = await save(page);
    assert.match(sent, /data-state="recomputing"/, 'the answer to the form says the maps are being recomputed');
    assert.ok(await page.getByText('Saved. Your maps, zones and training load are recomputed').isVisible());
    await page.locator('#derived[data-state=ready]').waitFor({ timeout: RESOLVE_MS });
    const values = page.locator('dl.current');
    assert.match((await values.locator('div', { hasText: 'Critical power' }).textContent())!, new RegExp(`285 W\\s*declared on ${today}`));
    assert.match((await values.locator('div', { hasText: 'Maximum heart rate' }).textContent())!, new RegExp(`186 bpm\\s*declared on ${today}`));
    assert.match((await values.locator('div', { hasText: 'Resting heart rate' }).textContent())!, new RegExp(`46 bpm\\s*declared on ${today}`));
    const heartZones = page.locator('section.panel:has(h2:text-is("Heart-rate zones (Olympiatoppen I-1 to I-5)"))').locator('table.zones tbody tr');
    assert.is(await heartZones.count(), 5, 'Olympiatoppen I-1 to I-5 from the declared maximum');
    assert.match((await page.locator('section.panel:has(h2:text-is("Cycling power"))').textContent())!, /Critical power\s*285 W\s*declared on/);

    await page.fill('#power', '270');
    await page.selectOption('select[name=power_kind]', 'ftp');
    await save(page);
    await page.locator('#derived[data-state=ready]').waitFor({ timeout: RESOLVE_MS });
    const powerZones = page.locator('section.panel:has(h2:text-is("Cycling power zones (seven zones)"))').locator('table.zones tbody tr');
    assert.is(await powerZones.count(), 7, 'seven power zones from the declared FTP');
    assert.not.ok(await page.getByText('Threshold power: rides with power').count(), 'nothing missing for power any more');
    await assertNoOverflow(page, `${viewport.name} settings`);
    await screenshot(page, `settings-${viewport.name}`);

    assert.equal(errors, [], `${viewport.name}: no script errors`);

    // Chromium logs the form's 422 answer as a failed resource; that is the refusal under test, not a script error.
    await page.fill('#body_mass', '70 kg');
    const refused = await save(page);
    assert.match(refused, /id="body_mass-error"/);
    const error = page.locator('#body_mass-error');
    assert.ok(await error.isVisible());
    assert.match((await error.textContent())!, /Enter a number of kg from 20 to 300/);
    assert.is(await page.locator('#body_mass').getAttribute('aria-invalid'), 'true');
    if (viewport.name === 'desktop') await page.screenshot({ path: path.join(ARTIFACTS, `settings-${viewport.name}-error.png`), fullPage: false });
    assert.equal(errors.filter((text) => !/status of 422/.test(text)), [], `${viewport.name}: no script errors`);
    await browser.close();
  }
});

settings.run();
