/**
 * An import of many files on the upload page, in Chromium (issue 28 item 7): twelve generated CSV rides
 * chosen at once are sent in batches of the server's per-request limit (10), every one gets its row, and one
 * progress bar counts the files read until it says all are done, with the number of activities. Before, the
 * script sent the first ten and silently dropped the rest. The single-file upload: test/browser/athlete-pages.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { chromiumMissing, launchChromium, signInWithPassword } from '../support/chromium.js';
import { csvActivity } from '../support/uploads.js';
import { createUser } from '../../gateway/services/accounts.js';
import { MAX_FILES_PER_UPLOAD } from '../../gateway/services/sources.js';

interface Context {
  stack: TestStack;
  browser: Browser;
}

const progress = suite<Context>('browser upload progress');
skipUnless(chromiumMissing(), progress);

const PASSWORD = 'correct horse battery';
/** More files than one request may carry. */
const FILES = MAX_FILES_PER_UPLOAD + 2;
/** How long the files may take to be read on a loaded machine. */
const PROCESSING_MS = 120_000;

progress.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
});
progress.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

progress('imports more files than one request carries, in batches, under one progress bar that reaches all of them', async (context) => {
  const email = `importer-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await createUser(context.stack.store, { email, password: PASSWORD, first_name: 'Ada' });
  const browser = await context.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await browser.newPage();
  await signInWithPassword(page, context.stack.baseUrl, email, PASSWORD);
  await page.goto(`${context.stack.baseUrl}/training/upload`);

  const files = Array.from({ length: FILES }, (_, index) => ({
    name: `ride-${String(index + 1).padStart(2, '0')}.csv`, mimeType: 'text/csv',
    buffer: Buffer.from(csvActivity({ start: `2024-06-${String(index + 1).padStart(2, '0')}T06:00:00Z`, rows: 60 })),
  }));
  await page.setInputFiles('#files', files);
  const status = page.locator('#upload-progress');
  await status.waitFor();
  assert.match((await status.textContent())!, new RegExp(`of ${FILES} files read|All ${FILES} files read`));
  await page.getByText(`All ${FILES} files read: ${FILES} activities.`).waitFor({ timeout: PROCESSING_MS });
  assert.is(await status.locator('progress').evaluate((bar) => (bar as unknown as { value: number }).value), FILES);
  assert.is(await page.locator('#live li .badge.processed').count(), FILES, 'every file has its row, processed');
  await browser.close();
});

progress.run();
