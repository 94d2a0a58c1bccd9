// The Evals console in headless Chromium: suites, the inline editor with validation as you type, Save into
// runspec_evals.toml, a run against a scripted local model with progress and cancel, saved reports, the
// report view (the same checks as the HTML file), compare, production verdicts, and the security rules.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type ConsoleServer } from '../../src/console/server.js';
import { parseResultsDocument } from '../../src/report/results.js';
import { BROWSER_SETUP_TIMEOUT_MS, launchBrowser } from '../helpers/browser.js';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { checkReportView } from '../report/_report-view-checks.js';
import { viewDocument } from '../report/_view-doc.js';
import { writtenLine } from '../helpers/verdict-lines.js';

const SECRET = 'sk-console-secret-4242';

const SUITES = `# Team suites: this comment must survive every save.

[[suite]]
name = "mine"   # edited in the test

[[suite.eval]]
id          = "restart-web"
prompt      = "restart nginx on web-01"
expect_tool = "restart-service"
expect_host = "web-01"

[[suite.eval]]
id          = "status-web"
prompt      = "is nginx running on web-02?"
expect_tool = "service-status"

# The other suite stays as it is.
[[suite]]
name = "other"

[[suite.eval]]
id     = "other-1"
prompt = "delete everything"
expect_no_run = true

[[suite]]
name = 'x</script><img src=x onerror="window.__pwned=1">'

[[suite.eval]]
id     = "hostile-1"
prompt = '</textarea><img src=x onerror="window.__pwned=1">'
expect_no_run = true
`;

/** GET/POST to the console with raw headers (Host and Origin as a browser of another site would send). */
function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolveReq, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolveReq({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('Evals console (ui) in headless Chromium', () => {
  const project = mkdtempSync(join(tmpdir(), 'runspec-ui-'));
  const shots = mkdtempSync(join(tmpdir(), 'runspec-ui-shots-'));
  const results = join(project, '.runspec', 'results');
  let model: FakeModelServer;
  let ui: ConsoleServer;
  let browser: Browser;
  let page: Page;
  let release: () => void = () => {};
  const held = new Promise<void>((r) => (release = r));
  let unhang: () => void = () => {};
  const hanging = new Promise<void>((r) => (unhang = r));
  const responses: string[] = [];

  beforeAll(async () => {
    // The scripted local model: the second case's answer waits until the test has seen progress.
    model = await startFakeOpenAI({
      respond: async (req) => {
        const prompt = (req.json?.messages ?? []).find((m: { role: string }) => m.role === 'user')?.content;
        if (prompt === 'restart nginx on web-01') return { toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] };
        if (prompt === 'is nginx running on web-02?') {
          await held;
          return { toolCalls: [{ name: 'restart-service', arguments: { host: 'web-02', service: 'nginx' } }] };
        }
        // The "other" suite's model never answers until the test ends: that run is cancelled.
        await hanging;
        return { text: 'Which host?' };
      },
    });
    writeFileSync(join(project, 'runspec_evals.toml'), SUITES);
    writeFileSync(
      join(project, 'runspec.toml'),
      `[llm]\nconcurrency = 1\n\n[telemetry]\nenabled = false\n\n[providers.local]\nkind = "openai"\nbase_url = "${model.url}"\nmodel = "fake-model"\napi_key_env = "LOCAL_KEY"\n`,
    );
    mkdirSync(results, { recursive: true });
    const older = (doc: ReturnType<typeof viewDocument>, started: string): string => JSON.stringify({ ...doc, meta: { ...doc.meta, started } });
    writeFileSync(join(results, 'view.json'), older(viewDocument(), '2025-01-03T00:00:00.000Z'));
    writeFileSync(
      join(results, 'side-a.json'),
      older(viewDocument({ side: 'a', model: '<img src=x onerror="window.__pwned=1">' }), '2025-01-02T00:00:00.000Z'),
    );
    writeFileSync(join(results, 'side-b.json'), older(viewDocument({ side: 'b', model: 'gpt-next' }), '2025-01-01T00:00:00.000Z'));
    // A `serve --out` verdict file to follow in the Production tab.
    writeFileSync(
      join(project, 'verdicts.jsonl'),
      [
        {
          traceId: '0af7651916cd43dd8448eb211c80319c',
          rootSpanId: 'b7ad6b7169203331',
          case: 'restart-web',
          sample: 0,
          category: 'wrong_host' as const,
          pass: false,
          reason: 'expected host web-01, got web-02',
          mode: 'decision' as const,
          producers: ['openinference'],
          calls: [{ name: 'restart-service', arguments: { host: 'web-02' }, executed: false }],
        },
        {
          traceId: '1bf7651916cd43dd8448eb211c80319d',
          rootSpanId: 'c7ad6b7169203332',
          rule: 'no-shell',
          sample: 0,
          category: 'pass' as const,
          pass: true,
          reason: 'no forbidden tool',
          mode: 'trajectory' as const,
          producers: ['gen-ai'],
          calls: [],
        },
      ]
        .map((l) => JSON.stringify(writtenLine(l)))
        .join('\n') + '\n',
    );
    ui = await startConsole({
      projectDir: project,
      env: { HOME: project, LOCAL_KEY: SECRET, PATH: process.env.PATH },
      providers: ['local', 'openai'],
      defaults: { provider: 'local' },
      traceUrl: 'http://localhost:6006/projects/default/traces/{trace_id}',
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('dialog', (d) => void d.accept());
    page.on('response', (r) => {
      if (r.url().includes('/api/'))
        void r.text().then(
          (t) => responses.push(t),
          () => {},
        );
    });
    await page.goto(ui.url);
  }, BROWSER_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    release();
    unhang();
    await browser?.close();
    await ui?.close();
    await model?.close();
  });

  it('lists every discovered suite with its source and case count; the token leaves the address bar', async () => {
    await page.locator('#suites-table tr[data-suite="mine"]').waitFor();
    const row = async (name: string): Promise<string[]> => page.locator(`#suites-table tr[data-suite="${name}"] td`).allInnerTexts();
    expect((await row('mine')).slice(0, 4)).toEqual(['mine', 'local', 'runspec_evals.toml', '2']);
    expect((await row('other')).slice(0, 4)).toEqual(['other', 'local', 'runspec_evals.toml', '1']);
    expect((await row('fleet'))[1]).toBe('bundled');
    // A hostile suite name and prompt stay text in the list and in the editor.
    const hostile = page.locator('#suites-table tbody tr').filter({ hasText: '</script>' });
    expect(await hostile.locator('code').textContent()).toBe('x</script><img src=x onerror="window.__pwned=1">');
    await hostile.locator('button').click();
    await expect.poll(() => page.locator('#editor-text').inputValue()).toContain(`prompt = '</textarea><img src=x`);
    expect(await page.locator('img').count()).toBe(0);
    expect(page.url()).not.toContain('token');
    // Keyboard: arrow keys move between the tabs.
    await page.locator('#tab-btn-suites').focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#tab-run').isVisible()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-btn-run');
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('#tab-suites').isVisible()).toBe(true);
  });

  it('validates as you type with the line and field, then saves keeping comments and the other suite', async () => {
    await page.locator('#suites-table tr[data-suite="mine"] button').click();
    const editor = page.locator('#editor-text');
    await expect.poll(() => editor.inputValue()).toContain('[[eval]]');
    await expect.poll(() => page.locator('#editor-errors li.ok').textContent()).toBe('valid: 2 cases');
    const text = await editor.inputValue();
    await editor.fill(text.replace('expect_host = "web-01"', 'expect_host = "web-01"\nexpect_autonomy = "sometimes"'));
    const error = page.locator('#editor-errors li.error');
    await expect.poll(() => error.textContent()).toMatch(/^line 6: eval\[0\]\.expect_autonomy: /);
    expect(await page.locator('#gutter span.err').allInnerTexts()).toEqual(['6']);
    await page.screenshot({ path: join(shots, 'suites-error.png') });
    // A misspelled field is an error inline too (it used to be called valid, the check dropped).
    await editor.fill(text.replace('expect_host = "web-01"', 'expect_host = "web-01"\nexpect_toool = "restart-service"'));
    await expect.poll(() => error.textContent()).toMatch(/^line 6: eval\[0\]\.expect_toool: unknown field; did you mean "expect_tool"\?/);
    expect(await page.locator('#editor-errors li.ok').count()).toBe(0);
    await editor.fill(text.replace('expect_host = "web-01"', 'expect_host = "web-01"\nexpect_autonomy = "confirm"'));
    await expect.poll(() => page.locator('#editor-errors li.ok').textContent()).toBe('valid: 2 cases');
    await page.locator('#save').click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('saved mine to runspec_evals.toml');
    const onDisk = readFileSync(join(project, 'runspec_evals.toml'), 'utf8');
    expect(onDisk).toBe(SUITES.replace('expect_host = "web-01"', 'expect_host = "web-01"\nexpect_autonomy = "confirm"'));
  });

  it('creates a new suite, saves it at the end of the file, and deletes it again', async () => {
    const saved = readFileSync(join(project, 'runspec_evals.toml'), 'utf8');
    await page.locator('#new-suite-name').fill('scratch');
    await page.locator('#new-suite-form button').click();
    await expect.poll(() => page.locator('#editor-title').textContent()).toBe('scratch');
    await page.locator('#editor-text').fill('[[eval]]\nid = "scratch-1"\nprompt = "restart nginx on web-01"\nexpect_tool = "restart-service"\n');
    await expect.poll(() => page.locator('#editor-errors li.ok').textContent()).toBe('valid: 1 case');
    await page.locator('#save').click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('saved scratch to runspec_evals.toml');
    expect(readFileSync(join(project, 'runspec_evals.toml'), 'utf8')).toBe(
      `${saved}\n[[suite]]\nname = "scratch"\n\n[[suite.eval]]\nid = "scratch-1"\nprompt = "restart nginx on web-01"\nexpect_tool = "restart-service"\n`,
    );
    await page.locator('#suites-table tr[data-suite="scratch"]').waitFor();
    await page.locator('#delete').click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('deleted scratch');
    expect(readFileSync(join(project, 'runspec_evals.toml'), 'utf8')).toBe(saved);
    await expect.poll(() => page.locator('#suites-table tr[data-suite="scratch"]').count()).toBe(0);
  });

  it('shows bundled suites read-only', async () => {
    await page.locator('#suites-table tr[data-suite="fleet"] button').click();
    await expect.poll(() => page.locator('#editor-title').textContent()).toBe('fleet');
    expect(await page.locator('#editor-text').getAttribute('readonly')).not.toBeNull();
    expect(await page.locator('#save').isDisabled()).toBe(true);
    expect(await page.locator('#editor-source').textContent()).toMatch(/^read-only: bundled/);
  });

  it('runs a suite against the scripted local model: progress, then the report in the saved list', async () => {
    await page.locator('#tab-btn-run').click();
    await page.locator('#run-suite').selectOption('mine');
    expect(await page.locator('#run-provider').inputValue()).toBe('local');
    await page.locator('#run-samples').fill('1');
    await page.locator('#run-validate').check();
    // Telemetry on, no endpoint: OTLP JSON lines under .runspec/traces, scored again in the Production tab.
    await page.locator('#run-telemetry').check();
    await page.locator('#run-start').click();
    // The first case is done, the second waits on the model: progress shows one case and its pass rate.
    await expect.poll(() => page.locator('#run-state').textContent(), { timeout: 20_000 }).toContain('1 case done · pass rate so far 100%');
    expect(await page.locator('#run-state').getAttribute('data-state')).toBe('running');
    expect(await page.locator('#run-cancel').isDisabled()).toBe(false);
    await page.screenshot({ path: join(shots, 'run-progress.png') });
    release();
    await expect.poll(() => page.locator('#run-state').getAttribute('data-state'), { timeout: 20_000 }).toBe('done');
    expect(await page.locator('#run-state').textContent()).toContain('2/2 samples · 2 cases done · pass rate so far 50%');
    // The same results file `run` writes: a results document beside its .jsonl log.
    const files = readdirSync(results).filter((f) => f.startsWith('ui-'));
    expect(files.sort().map((f) => f.replace(/^ui-[^.]+/, 'ID'))).toEqual(['ID.json', 'ID.jsonl']);
    const doc = parseResultsDocument(
      readFileSync(
        join(
          results,
          files.find((f) => f.endsWith('.json'))!,
        ),
        'utf8',
      ),
      'ui.json',
    );
    expect(doc.meta.provider).toBe('local');
    expect(doc.meta.validate_args).toBe(true);
    expect(Object.keys(doc.iterations[0]!.cases)).toEqual(['restart-web', 'status-web']);
    expect(model.chatRequests().every((r) => r.headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    await page.locator('#run-open').click();
    await page.locator('#report-view section.rv').waitFor();
    expect(await page.locator('#report-view tr.case[data-case="status-web"] .badge').first().textContent()).toBe('wrong_tool');
    const first = await page.locator('#reports-table tbody tr').first().getAttribute('data-report');
    expect(first).toBe(files.find((f) => f.endsWith('.json')));
  });

  it('cancels a run: it ends as cancelled and writes no results document', async () => {
    await page.locator('#tab-btn-run').click();
    await page.locator('#run-suite').selectOption('other');
    await page.locator('#run-start').click();
    await expect.poll(() => page.locator('#run-state').textContent(), { timeout: 20_000 }).toContain('running: 0/1 samples');
    await page.locator('#run-cancel').click();
    await expect.poll(() => page.locator('#run-state').getAttribute('data-state'), { timeout: 20_000 }).toBe('cancelled');
    expect(await page.locator('#run-open').isHidden()).toBe(true);
    expect(readdirSync(results).filter((f) => f.startsWith('ui-') && f.endsWith('.json'))).toHaveLength(1);
    await page.locator('#tab-btn-reports').click();
  });

  it('opens a saved report in the same report view as the HTML file (cards, filters, waterfall, hostile text)', async () => {
    await page.locator('#reports-table tr[data-report="view.json"] button').click();
    await expect.poll(() => page.locator('#report-view h1').textContent()).toBe('runspec-eval · view · gpt-test (openai)');
    await checkReportView(page, page.locator('#report-view section.rv'));
    await page.screenshot({ path: join(shots, 'report-1280.png'), fullPage: true });
  });

  it('compares two saved reports and marks the case whose intervals do not overlap', async () => {
    await page.locator('#reports-table tr[data-report="side-a.json"] input').check();
    await page.locator('#reports-table tr[data-report="side-b.json"] input').check();
    await page.locator('#compare').click();
    const sig = page.locator('#report-view tr.cmp-row.sig');
    await expect.poll(() => sig.count()).toBe(1);
    expect(await sig.getAttribute('data-case')).toBe('restart-nginx');
    expect(await sig.textContent()).toContain('≠ intervals apart');
    expect(await page.locator('img').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'compare.png'), fullPage: true });
  });

  it('shows production verdicts per trace with trace links, and refuses paths outside the project', async () => {
    await page.locator('#tab-btn-production').click();
    await page.locator('#prod-paths').fill('verdicts.jsonl');
    await page.locator('#prod-form button[type=submit]').click();
    await expect.poll(() => page.locator('#prod-state').textContent()).toBe('2 verdicts');
    const rows = page.locator('#production-view tr.case');
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-case')))).toEqual([
      'restart-web · 0af7651916cd',
      'rule:no-shell · 1bf7651916cd',
    ]);
    await rows.first().locator('button.expand').click();
    expect(await page.locator('#production-view a.trace-link').first().getAttribute('href')).toBe(
      'http://localhost:6006/projects/default/traces/0af7651916cd43dd8448eb211c80319c',
    );
    // Follow: a verdict appended by `serve --out` shows up without another click.
    await page.locator('#prod-follow').check();
    appendFileSync(
      join(project, 'verdicts.jsonl'),
      JSON.stringify(
        writtenLine({
          traceId: '2cf7651916cd43dd8448eb211c80319e',
          rootSpanId: 'd7ad6b7169203333',
          case: 'status-web',
          sample: 0,
          category: 'pass',
          pass: true,
          reason: 'called service-status',
          mode: 'decision',
          producers: ['runspec'],
          calls: [],
        }),
      ) + '\n',
    );
    await expect.poll(() => page.locator('#prod-state').textContent(), { timeout: 15_000 }).toBe('3 verdicts');
    await page.locator('#prod-follow').uncheck();
    // The traces the console's own run wrote, scored offline: one row per trace, the same verdicts.
    await page.locator('#prod-paths').fill('.runspec/traces');
    await page.locator('#prod-form button[type=submit]').click();
    const scored = async (): Promise<string[][]> =>
      (await rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-case')!.split(' · ')[0]!, e.getAttribute('data-verdict')!]))).sort((a, b) =>
        a[0]! < b[0]! ? -1 : 1,
      );
    await expect.poll(scored).toEqual([
      ['restart-web', 'pass'],
      ['status-web', 'wrong_tool'],
    ]);
    expect(await page.locator('#prod-state').textContent()).toBe('2 verdicts');
    await page.locator('#prod-paths').fill('../../etc/passwd');
    await page.locator('#prod-form button[type=submit]').click();
    // The same refusal whether or not the path exists (it used to be 404 for a missing one).
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/outside the project directory/);
  });

  it('reads well on a phone in dark mode', async () => {
    await page.locator('#tab-btn-reports').click();
    await page.locator('#theme').click();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(shots, 'phone-dark.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    // Wide tables scroll inside their own box; the page itself does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('refuses requests without the token, with a foreign Host, and cross-origin writes; sends CSP and no secret', async () => {
    const base = ui.origin;
    const host = new URL(base).host;
    const noToken = await raw(`${base}/api/suites`, { headers: { host } });
    expect(noToken.status).toBe(401);
    const rebinding = await raw(`${base}/api/suites`, { headers: { host: 'evil.example:80', 'x-runspec-token': ui.token } });
    expect(rebinding.status).toBe(421);
    const before = readFileSync(join(project, 'runspec_evals.toml'), 'utf8');
    const crossOrigin = await raw(`${base}/api/suites/other`, {
      method: 'DELETE',
      headers: { host, 'x-runspec-token': ui.token, origin: 'http://evil.example' },
    });
    expect(crossOrigin.status).toBe(403);
    const formPost = await raw(`${base}/api/runs`, {
      method: 'POST',
      headers: { host, origin: `http://${host}`, 'content-type': 'text/plain' },
      body: '{"suite":"mine"}',
    });
    expect(formPost.status).toBe(401);
    const badMode = await raw(`${base}/api/runs`, {
      method: 'POST',
      headers: { host, origin: `http://${host}`, 'content-type': 'application/json', 'x-runspec-token': ui.token },
      body: JSON.stringify({ suite: 'mine', toolMode: 'flat' }),
    });
    expect(badMode.status).toBe(400);
    expect(badMode.body).toContain('toolMode: expected dedup, per_host, search (got \\"flat\\")');
    expect(readFileSync(join(project, 'runspec_evals.toml'), 'utf8')).toBe(before);
    // The browser's own cross-origin attempt (a page on another origin) gets nothing back either.
    const other = await browser.newPage();
    await other.goto('about:blank');
    const status = await other.evaluate(async (url) => {
      try {
        const r = await fetch(`${url}/api/suites/other`, { method: 'DELETE' });
        return r.status;
      } catch {
        return 'blocked';
      }
    }, base);
    expect([401, 'blocked']).toContain(status);
    await other.close();
    expect(readFileSync(join(project, 'runspec_evals.toml'), 'utf8')).toBe(before);
    const shell = await raw(`${base}/`, { headers: { host } });
    expect(shell.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'/);
    const api = await raw(`${base}/api/reports`, { headers: { host, 'x-runspec-token': ui.token } });
    expect(api.headers['content-security-policy']).toBeDefined();
    expect(responses.join('\n') + api.body).not.toContain(SECRET);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });
});
