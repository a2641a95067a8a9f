/**
 * Headless Chromium for page tests (Debian's `chromium` driven by playwright-core). CHROMIUM_PATH
 * overrides where it is; otherwise it is looked up on PATH. Without one, browser suites skip with a line
 * that names the command installing it (`.ci/run` installs it, so CI always runs them).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from './paths.js';

/** The two sizes every page is checked and screenshotted at. */
export const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

export const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'screenshots');

/** Where Chromium is, or null when it is not installed. */
export function chromiumPath(): string | null {
  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured) return configured;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim().split('\n')[0]!;
  } catch {
    return null;
  }
}

/** For `skipUnless`: what a browser suite misses, or null when Chromium is there. */
export function chromiumMissing(): string | null {
  return chromiumPath() === null ? 'needs Chromium (`apt-get install chromium`, or set CHROMIUM_PATH)' : null;
}

export async function launchChromium(): Promise<Browser> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath() ?? undefined,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Fills the password form of the page on screen and submits it; the caller waits for where it lands. */
export async function submitPasswordForm(page: Page, email: string, password: string): Promise<void> {
  await page.fill('form[action="/signin/password"] input[name="email"]', email);
  await page.fill('form[action="/signin/password"] input[name="password"]', password);
  await page.click('form[action="/signin/password"] button[type="submit"]');
}

/** Signs `email` in through the password form of /signin and waits until the page lands on /training. */
export async function signInWithPassword(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await Promise.all([page.waitForURL(/\/training$/), submitPasswordForm(page, email, password)]);
}

/**
 * A full-page screenshot into test-artifacts/screenshots/`name`.png; with SCREENS_DIR set (relative to the
 * repository, e.g. `SCREENS_DIR=docs/screens`) copied there too, where the README's screens are kept.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const copyTo = process.env.SCREENS_DIR;
  if (copyTo) {
    const dir = path.resolve(REPO_ROOT, copyTo);
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(file, path.join(dir, path.basename(file)));
  }
}
