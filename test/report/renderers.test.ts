import { describe, expect, it } from 'vitest';
import { renderHtml, renderJson, renderJUnit, renderMarkdown, renderTable } from '../../src/report/index.js';
import { parseResultsDocument } from '../../src/report/index.js';
import { blankVolatile, sampleDocument } from './_doc.js';

const doc = blankVolatile(sampleDocument());

describe('golden reports (volatile fields blanked)', () => {
  it.each([
    { name: 'table', file: 'table.txt', render: () => renderTable(doc) },
    { name: 'table, 100 columns wide', file: 'table-100.txt', render: () => renderTable(doc, { width: 100 }) },
    { name: 'markdown', file: 'report.md', render: () => renderMarkdown(doc) },
    { name: 'junit', file: 'junit.xml', render: () => renderJUnit(doc) },
    { name: 'html', file: 'report.html', render: () => renderHtml(doc) },
    { name: 'json', file: 'results.json', render: () => renderJson(doc) },
  ])('$name', async ({ file, render }) => {
    await expect(render()).toMatchFileSnapshot(`golden/${file}`);
  });
});

describe('headline pass rate', () => {
  it('is one number with one label in the terminal, Markdown and HTML: judged samples pooled, with its interval', () => {
    // The sample document's case pass rates average 63.3%; its judged samples pool to 5/8.
    const text = 'pass rate 62.5% (5/8 judged samples, 95% interval 31%–86%)';
    expect(renderTable(doc)).toContain(text);
    expect(renderMarkdown(doc)).toContain(text);
    const html = renderHtml(doc);
    expect(html).toContain('<b>62.5%</b><span>pass rate (5/8 judged samples)</span><small>95% interval 31%–86%</small>');
    for (const out of [renderTable(doc), renderMarkdown(doc)]) {
      expect(out).not.toContain('63.3%');
      // replio's accuracy is labelled so it cannot read as a second pass rate.
      expect(out).not.toMatch(/(?<!expected-sequence )accuracy \d/);
      expect(out).toContain('expected-sequence accuracy 50.0%');
    }
  });
});

describe('renderTable', () => {
  it('colours only when asked', () => {
    expect(renderTable(doc)).not.toContain('\u001b[');
    const colored = renderTable(doc, { color: true });
    expect(colored).toContain('\u001b[32mpass');
    expect(colored).toContain('\u001b[31mwrong_host');
  });

  it('keeps every line within the width', () => {
    for (const line of renderTable(doc, { width: 100 }).split('\n')) {
      if (line.startsWith('samples') || line.startsWith('by ')) continue;
      expect(line.length).toBeLessThanOrEqual(100);
    }
  });

  it('shows verdict, tool, command, autonomy, host, pass rate and reason per case', () => {
    const line = renderTable(doc)
      .split('\n')
      .find((l) => l.includes('cron-add-is-confirm'))!;
    expect(line.split(/\s{2,}/)).toEqual([
      '✓',
      'cron-add-is-confirm',
      'pass',
      'cron',
      'add',
      'confirm',
      'web-01',
      '1/1 100%',
      'called cron add on web-01 (confirm) as expected',
    ]);
  });
});

describe('renderJson', () => {
  it('is the results document, readable back', () => {
    const text = renderJson(doc);
    expect(parseResultsDocument(text, 'out.json')).toEqual(doc);
  });
});

describe('renderJUnit', () => {
  const xml = renderJUnit(doc);

  it('is well-formed XML', () => {
    expect(checkWellFormed(xml)).toEqual([]);
  });

  it('has one testcase per case, grouped by suite', () => {
    const cases = [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"/g)].map((m) => `${m[1]}/${m[2]}`);
    expect(cases).toEqual([
      'fleet/restart-nginx-targeted',
      'fleet/cron-add-is-confirm',
      'fleet/ambiguous-should-clarify',
      'fleet/provider-down',
      'replio/read-file-lines',
      'workspace/edit &lt;tests&gt; &amp; &quot;quotes&quot;',
    ]);
    expect(xml).toMatch(/<testsuites name="runspec-eval" tests="6" failures="2" errors="1"/);
  });

  it('reports a failure with the reason as its message, and an errored case as an error', () => {
    expect(xml).toContain('<failure message="wrong_host: expected host web-01, got web-02" type="wrong_host">');
    expect(xml).toContain('<error message="PROVIDER_TIMEOUT: no answer in 60000 ms" type="errored">');
  });

  it('drops characters XML cannot carry', () => {
    const nasty = structuredClone(doc);
    nasty.iterations[0]!.cases['cron-add-is-confirm']!.meets_threshold = false;
    nasty.iterations[0]!.cases['cron-add-is-confirm']!.runs[0]!.verdict!.reason = 'bell \u0007 and ]]> and \uD800 lone';
    const out = renderJUnit(nasty);
    expect(checkWellFormed(out)).toEqual([]);
    expect(out).not.toContain('\u0007');
  });
});

describe('renderMarkdown', () => {
  it('escapes pipes and markup in cells', () => {
    const md = renderMarkdown(doc);
    const row = md.split('\n').find((l) => l.includes('edit <tests>') || l.includes('edit &lt;tests'))!;
    expect(row.split(/(?<!\\)\|/).length).toBe(11);
    expect(row).toContain('`edit <tests> & "quotes"`');
  });
});

/**
 * A small XML well-formedness check: one root, balanced tags, quoted attributes, only the five
 * predefined entities and numeric references, no raw `<` or `&` in text.
 */
function checkWellFormed(xml: string): string[] {
  const problems: string[] = [];
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (const m of body.matchAll(token)) {
    if (m[6]) {
      problems.push(`stray < at ${m.index}`);
      continue;
    }
    if (m[5] !== undefined) {
      const text = m[5];
      if (/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(text)) problems.push(`bad entity in text at ${m.index}`);
      if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(text)) problems.push(`control character at ${m.index}`);
      if (stack.length === 0 && text.trim() !== '') problems.push('text outside the root');
      continue;
    }
    const [, close, name, attrs, selfClose] = m;
    if (/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(attrs ?? '')) problems.push(`bad entity in attributes of ${name}`);
    if (close) {
      if (stack.pop() !== name) problems.push(`mismatched </${name}>`);
    } else if (!selfClose) {
      if (stack.length === 0) roots++;
      stack.push(name!);
    } else if (stack.length === 0) roots++;
  }
  if (stack.length) problems.push(`unclosed ${stack.join(', ')}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}

describe('renderMarkdown on a large suite', () => {
  it('lists at most 200 failing samples and counts the rest', () => {
    const big = structuredClone(doc);
    const it0 = big.iterations[0]!;
    const template = it0.cases['restart-nginx-targeted']!;
    for (let i = 0; i < 150; i++) it0.cases[`case-${i}`] = structuredClone(template);
    for (const entry of Object.values(it0.cases)) for (const run of entry.runs) run.pass = false;
    const md = renderMarkdown(big);
    expect(md.split('\n').filter((l) => / sample \d+: /.test(l))).toHaveLength(200);
    expect(md).toMatch(/- … and \d+ more/);
  });
});
