import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml, renderJUnit } from '../../src/report/index.js';
import { sampleDocument } from './_doc.js';
import { launchBrowser } from '../helpers/browser.js';

// Chromium comes from the @sparticuz/chromium devDependency (Linux x64) or RUNSPEC_CHROMIUM; see
// test/helpers/browser.ts. Without a browser this test fails (a skipped browser test would prove nothing).
describe('HTML report in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const html = renderHtml(sampleDocument(new Date('2026-01-01T00:00:00Z')));

  beforeAll(async () => {
    browser = await launchBrowser();
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

  it("parses the JUnit report with the browser's XML parser: one testcase per case, failures with the reason", async () => {
    const xml = renderJUnit(sampleDocument(new Date('2026-01-01T00:00:00Z')));
    const parsed = await page.evaluate((text) => {
      const d = new DOMParser().parseFromString(text, 'application/xml');
      return {
        errors: d.getElementsByTagName('parsererror').length,
        cases: [...d.getElementsByTagName('testcase')].map((t) => t.getAttribute('name')),
        failures: [...d.getElementsByTagName('failure')].map((f) => f.getAttribute('message')),
      };
    }, xml);
    expect(parsed.errors).toBe(0);
    expect(parsed.cases).toHaveLength(6);
    expect(parsed.cases).toContain('edit <tests> & "quotes"');
    expect(parsed.failures).toEqual(['wrong_host: expected host web-01, got web-02', 'wrong_sequence: Ordered subset: 1/2; missing edit_file']);
  });
});
