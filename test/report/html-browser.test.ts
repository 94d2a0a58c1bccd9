import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCompareHtml, renderHtml, renderJUnit } from '../../src/report/index.js';
import { BROWSER_SETUP_TIMEOUT_MS, launchBrowser } from '../helpers/browser.js';
import { sampleDocument } from './_doc.js';
import { checkReportView } from './_report-view-checks.js';
import { viewDocument } from './_view-doc.js';

// One browser for the file: the self-contained report opened from file://, as a person opens it.
describe('HTML report in headless Chromium (file://)', () => {
  let browser: Browser;
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), 'runspec-report-'));
  const requests: string[] = [];
  const problems: string[] = [];
  const doc = viewDocument();
  // A trace id as telemetry records it on a sample (read from the file when present).
  const withTrace = structuredClone(doc);
  Object.assign(Object.values(withTrace.iterations[0]!.cases)[0]!.runs[0]!, { trace_id: '0af7651916cd43dd8448eb211c80319c', span_id: 'b7ad6b7169203331' });
  // A verdict that already carries its link (written when the run was recorded) keeps it.
  Object.assign(Object.values(withTrace.iterations[0]!.cases)[1]!.runs[0]!.verdict!, {
    trace_id: '1bf7651916cd43dd8448eb211c80319d',
    trace_url: 'https://smith.langchain.com/o/x/projects/p/r/1bf7651916cd43dd8448eb211c80319d',
  });
  const file = join(dir, 'report.html');
  writeFileSync(file, renderHtml(withTrace, { traceUrl: 'http://localhost:6006/projects/default/traces/{trace_id}?span={span_id}' }));

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(file).href);
  }, BROWSER_SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
  });

  it('passes the report-view checks (cards, filters, waterfall, hostile text)', async () => {
    expect(await page.title()).toBe('runspec-eval · view · gpt-test (openai)');
    await checkReportView(page, page.locator('section.rv'));
    await page.screenshot({ path: join(dir, 'report-1280.png'), fullPage: true });
  });

  it('links a sample to its trace when a trace URL template is configured', async () => {
    const link = page.locator('tr.detail[data-for="run-the-build"] details.sample[data-sample="0"] a.trace-link');
    expect(await link.getAttribute('href')).toBe('http://localhost:6006/projects/default/traces/0af7651916cd43dd8448eb211c80319c?span=b7ad6b7169203331');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await page.locator('tr.detail[data-for="restart-nginx"] details.sample[data-sample="0"] a.trace-link').getAttribute('href')).toBe(
      'https://smith.langchain.com/o/x/projects/p/r/1bf7651916cd43dd8448eb211c80319d',
    );
    expect(await page.locator('a.trace-link').count()).toBe(2);
  });

  it('switches to dark mode and stays readable on a phone', async () => {
    await page.locator('.theme-toggle').first().click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.setViewportSize({ width: 390, height: 844 });
    // The page does not scroll sideways: the table turns into one block per case.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(dir, 'report-phone-dark.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('is self-contained: no request leaves the file, and the CSP allows only its own script', async () => {
    expect(requests).toEqual([]);
    expect(problems).toEqual([]);
    const html = renderHtml(doc);
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(html).not.toMatch(/<(?:link|img|iframe)\b/i);
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
  });

  it('compares two reports: deltas, and the case whose intervals do not overlap is marked', async () => {
    const cmp = join(dir, 'compare.html');
    writeFileSync(cmp, renderCompareHtml({ doc: viewDocument({ side: 'a' }) }, { doc: viewDocument({ side: 'b', model: 'gpt-next' }) }));
    await page.goto(pathToFileURL(cmp).href);
    expect(await page.locator('h1').innerText()).toBe('gpt-test vs gpt-next');
    const sig = page.locator('tr.cmp-row.sig');
    expect(await sig.count()).toBe(1);
    expect(await sig.getAttribute('data-case')).toBe('restart-nginx');
    expect(await sig.innerText()).toContain('+100 pts');
    expect(await sig.innerText()).toContain('≠ intervals apart');
    expect(await page.locator('table.cmp-summary').innerText()).toContain('+1');
    await page.screenshot({ path: join(dir, 'compare-1280.png'), fullPage: true });
    expect(requests).toEqual([]);
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
