/**
 * Headless Chromium for page tests (Debian's `chromium` driven by playwright-core). CHROMIUM_PATH
 * overrides where it is; otherwise it is looked up on PATH. A missing browser fails the test with the
 * command that installs it, rather than skipping silently.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from './paths.js';

export const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'screenshots');

export function chromiumPath(): string {
  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured) return configured;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim().split('\n')[0]!;
  } catch {
    throw new Error('browser tests need Chromium: install it with `apt-get install chromium` (or set CHROMIUM_PATH)');
  }
}

export async function launchChromium(): Promise<Browser> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
