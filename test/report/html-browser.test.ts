import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/index.js';
import { sampleDocument } from './_doc.js';

const CHROMIUM = '/usr/bin/chromium';

// CI installs Debian's chromium (see the workflow); elsewhere `apt-get install -y chromium`.
describe.skipIf(!existsSync(CHROMIUM))('HTML report in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const html = renderHtml(sampleDocument(new Date('2026-01-01T00:00:00Z')));

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'] });
    page = await browser.newPage();
    await page.route('**/*', (route) => {
      requests.push(route.request().url());
      return route.abort();
    });
    await page.setContent(html, { waitUntil: 'load' });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the headline, the summary and one row per case', async () => {
    expect(await page.title()).toBe('runspec-eval · fleet · gpt-test (openai)');
    await expect.poll(() => page.locator('h1').isVisible()).toBe(true);
    expect(await page.locator('#verdict').innerText()).toContain('3/6');
    expect(await page.locator('#verdict').innerText()).toContain('cases meet the threshold');
    expect(await page.locator('tbody tr').count()).toBe(6);
    const row = page.locator('tr[data-case="restart-nginx-targeted"]');
    expect(await row.locator('.badge').first().innerText()).toBe('wrong_host');
    expect(await row.locator('td.rate').innerText()).toBe('2/3 67%');
    expect(await row.innerText()).toContain('expected host web-01, got web-02');
  });

  it('renders hostile case text as text, not markup', async () => {
    const cell = page.locator('tr[data-case^="edit"] td').first();
    expect(await cell.innerText()).toContain('edit <tests> & "quotes"');
    expect(await page.locator('tests').count()).toBe(0);
  });

  it('keeps per-sample detail collapsed until opened', async () => {
    const row = page.locator('tr[data-case="restart-nginx-targeted"]');
    const sample = row.locator('details li').nth(1);
    expect(await sample.isVisible()).toBe(false);
    await row.locator('details summary').click();
    expect(await sample.isVisible()).toBe(true);
    expect(await sample.innerText()).toContain('restart-service({"host":"web-02","service":"nginx"})');
  });

  it('is self-contained: the page requests nothing', async () => {
    expect(requests).toEqual([]);
    expect(html).not.toMatch(/<(?:script|link|img|iframe)\b/i);
    expect(html).not.toMatch(/(?:src|href)\s*=/i);
  });
});
