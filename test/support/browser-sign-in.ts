/** Signing a person in through the password form in a real browser (the page lands on /training). */
import type { Page } from 'playwright-core';

export async function signInWithPassword(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.fill('form[action="/signin/password"] input[name="email"]', email);
  await page.fill('form[action="/signin/password"] input[name="password"]', password);
  await Promise.all([page.waitForURL(/\/training$/), page.click('form[action="/signin/password"] button[type="submit"]')]);
}
