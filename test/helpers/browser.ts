// Headless Chromium from npm (@sparticuz/chromium), driven by playwright-core: no system browser needed.
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser } from 'playwright-core';

/** Launch a headless Chromium; close it in afterAll. */
export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args, '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    headless: true,
  });
}
