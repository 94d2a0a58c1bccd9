// The report-view checks both surfaces pass: the self-contained HTML file (from file://) and the `ui`
// console (after opening a saved report). `root` scopes every locator to the view under test.
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { HOSTILE_CASE_ID } from './_injection.js';

/** Run every check on a page that shows the report view of `viewDocument()` inside `root`. */
export async function checkReportView(page: Page, root: Locator): Promise<void> {
  const rows = root.locator('tr.case');
  const visible = async (): Promise<string[]> => {
    const ids: string[] = [];
    for (const r of await rows.all()) if (await r.isVisible()) ids.push((await r.getAttribute('data-case'))!);
    return ids;
  };
  // Summary cards: the pass rate with its interval in plain sight, and nothing that contradicts it.
  const rate = await root.locator('[id$="-passrate"]').innerText();
  expect(rate).toContain('80.0%');
  expect(rate).toContain('95% interval 38%–96%');
  expect(await root.locator('[id$="-meeting"]').innerText()).toContain('2/3');
  expect(await root.locator('[id$="-passk"]').innerText()).toContain('pass@k');
  expect(await root.locator('.cards').innerText()).not.toMatch(/accuracy/i);
  expect(await root.locator('svg[role=img]').count()).toBeGreaterThanOrEqual(3);

  // One row per case; filters by verdict, tag and text.
  expect(await visible()).toEqual(['run-the-build', 'restart-nginx', HOSTILE_CASE_ID]);
  await root.locator('.f-verdict').selectOption('wrong_host');
  expect(await visible()).toEqual(['restart-nginx']);
  expect(await root.locator('.f-count').innerText()).toBe('1 of 3 cases');
  await root.locator('.f-verdict').selectOption('');
  await root.locator('.f-tag').selectOption('build');
  expect(await visible()).toEqual(['run-the-build']);
  await root.locator('.f-tag').selectOption('');
  await root.locator('.f-text').fill('WEB-02');
  expect(await visible()).toEqual(['restart-nginx']);
  await root.locator('.f-text').fill('');
  await root.locator('button[data-filter-verdict="pass"]').click();
  expect(await visible()).toEqual(['run-the-build', 'restart-nginx', HOSTILE_CASE_ID]);
  await root.locator('button[data-filter-verdict="pass"]').click();

  // A sample's waterfall: turn → llm → tool with durations; the failing bash call (exit 127) is in sight.
  const build = root.locator('tr.case[data-case="run-the-build"]');
  const detail = root.locator('tr.detail[data-for="run-the-build"]');
  expect(await detail.isVisible()).toBe(false);
  await build.locator('button.expand').focus();
  await page.keyboard.press('Enter');
  expect(await build.locator('button.expand').getAttribute('aria-expanded')).toBe('true');
  expect(await detail.isVisible()).toBe(true);
  const sample0 = detail.locator('details.sample[data-sample="0"]');
  const kinds = await sample0
    .locator('.wf-row')
    .evaluateAll((els) => els.map((e) => [...e.classList].find((c) => c === 'turn' || c === 'llm' || c === 'tool')));
  expect(kinds).toEqual(['turn', 'llm', 'tool', 'turn', 'llm']);
  expect(await sample0.locator('.wf-row.tool .wf-dur').innerText()).toBe('150 ms');
  const err = sample0.locator('.wf-row.tool.is-error pre.err');
  expect(await err.isVisible()).toBe(true);
  expect(await err.innerText()).toContain('command exited with code 127');
  expect(await sample0.locator('.wf-row.tool pre.args').innerText()).toContain('nosuchbuild --all');
  await sample0.locator('.wf-row.llm summary').first().click();
  expect(await sample0.locator('pre.text').first().innerText()).toBe('Running the build.');
  // replio samples said their reason twice (reason and match detail).
  expect(await sample0.locator('p.reason').count()).toBe(1);
  expect(await sample0.locator('p.muted').count()).toBe(0);
  await build.locator('button.expand').click();
  expect(await detail.isVisible()).toBe(false);

  // Hostile text stays text.
  const hostile = root.locator('tr.case').nth(2);
  expect(await hostile.getAttribute('data-case')).toBe(HOSTILE_CASE_ID);
  expect(await hostile.locator('code').first().innerText()).toBe(HOSTILE_CASE_ID);
  await hostile.locator('button.expand').click();
  expect(await root.locator('tr.detail').nth(2).locator('pre.text').textContent()).toContain('<img src=x onerror="window.__pwned=1">');
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(await page.locator('img, iframe, svg[onload]').count()).toBe(0);
}
