// Regression: traces written with the default settings (no content capture) carry no tool arguments.
// Scoring them back used to report false wrong_args / missing_required, and after a case changed it echoed
// the recorded verdict ("pass") instead of judging what the trace does show (the tool, host, command).
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { renderHtml, renderJUnit, renderMarkdown, renderTable } from '../../src/report/index.js';
import { parseResultsDocument } from '../../src/report/results.js';
import { verdictLines } from '../helpers/verdict-lines.js';

interface Line {
  case?: string;
  rule?: string;
  sample: number;
  category: string;
  pass: boolean | null;
  reason: string;
  calls: unknown[];
  traceId: string;
  rootSpanId: string;
  traceUrl?: string;
  checks?: Array<{ check: string; judged: boolean; pass?: boolean; via?: string; missing?: string }>;
}
const parse = (stdout: string): Line[] => verdictLines(stdout) as Line[];

describe('round trip on the embedded default (no content capture)', () => {
  it('judges what the content-free demo traces carry: never a false failure or pass, case changes seen, unscorable named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-rt-default-'));
    writeFileSync(
      join(dir, 'runspec.toml'),
      '[telemetry]\nproject = "ops"\ntrace_url = "http://phoenix.test/projects/{project}/traces/{trace_id}?span={span_id}"\n',
    );
    const demo = await runCli(['--path', dir, 'demo', '--output', 'json']);
    expect(demo.exitCode, demo.stderr).toBe(0);
    const resultsDir = join(dir, '.runspec', 'results');
    const doc = JSON.parse(
      readFileSync(
        join(
          resultsDir,
          readdirSync(resultsDir).find((f) => f.endsWith('.json'))!,
        ),
        'utf8',
      ),
    );
    const live = new Map<string, { category: string; traceId?: string }>();
    for (const [caseId, entry] of Object.entries(
      doc.iterations[0].cases as Record<string, { runs: Array<{ sample: number; verdict: { category: string; trace_id?: string } }> }>,
    )) {
      for (const run of entry.runs)
        live.set(`${caseId}#${run.sample}`, { category: run.verdict.category, ...(run.verdict.trace_id ? { traceId: run.verdict.trace_id } : {}) });
    }
    const traces = join(dir, '.runspec', 'traces');

    // Every verdict links to its trace: the id is a trace in the exported files whose root names the case.
    const rootsByTrace = new Map<string, string>();
    for (const f of readdirSync(traces)) {
      for (const line of readFileSync(join(traces, f), 'utf8').split('\n').filter(Boolean)) {
        for (const rs of JSON.parse(line).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const sp of ss.spans ?? []) {
              const caseAttr = (sp.attributes ?? []).find((a: { key: string }) => a.key === 'runspec.eval.case_id');
              if (!sp.parentSpanId && caseAttr) rootsByTrace.set(`${sp.traceId}/${sp.spanId}`, caseAttr.value.stringValue);
            }
      }
    }
    const parsed = parseResultsDocument(JSON.stringify(doc), 'results.json');
    const failing = doc.iterations[0].cases['status-not-restart'].runs[0].verdict;
    expect(rootsByTrace.get(`${failing.trace_id}/${failing.root_span_id}`)).toBe('status-not-restart');
    const link = `http://phoenix.test/projects/ops/traces/${failing.trace_id}?span=${failing.root_span_id}`;
    expect(failing.trace_url).toBe(link);
    expect(renderHtml(parsed)).toContain(`<a class="trace-link" href="${link.replace(/&/g, '&amp;')}"`);
    expect(renderMarkdown(parsed)).toContain(`(${link})`);
    expect(renderJUnit(parsed)).toContain(`<property name="trace_id" value="${failing.trace_id}"/>`);
    // Every sample's verdict names its trace in JUnit, not only the case's first one.
    const junit = renderJUnit(parsed);
    for (const { traceId } of live.values()) expect(junit).toContain(traceId);
    expect(renderTable(parsed)).toContain(`  status-not-restart  ${link}`);
    const scored = await runCli([
      '--path',
      dir,
      'score',
      traces,
      '--output',
      'jsonl',
      '--rules',
      join(REPO_ROOT, 'examples', 'rules.toml'),
      '--toolset',
      'builtin:fleet',
    ]);
    const lines = parse(scored.stdout);
    const caseLines = lines.filter((l) => l.case !== undefined);
    // score's verdict lines carry the same link.
    for (const l of caseLines) expect(l.traceUrl).toBe(`http://phoenix.test/projects/ops/traces/${l.traceId}?span=${l.rootSpanId}`);
    expect(caseLines.length).toBe(live.size);
    let unscorable = 0;
    for (const l of caseLines) {
      const want = live.get(`${l.case}#${l.sample}`)!;
      // The live verdict carries the trace it was recorded as.
      expect(want.traceId, `${l.case}#${l.sample}`).toBe(l.traceId);
      if (l.category === 'unscorable') {
        unscorable++;
        expect(l.pass).toBeNull();
        expect(l.checks?.some((k) => !k.judged && /not captured/.test(k.missing ?? ''))).toBe(true);
      } else expect(l.category, `${l.case}#${l.sample}: ${l.reason}`).toBe(want.category);
    }
    expect(unscorable).toBeGreaterThan(0);
    // The decision suite's tool / host / command / autonomy are on the trace: all judged, none unscorable.
    for (const id of ['restart-nginx-targeted', 'cron-add-is-confirm', 'deploy-force-is-manual', 'status-not-restart']) {
      expect(caseLines.find((l) => l.case === id)?.category).toBe(live.get(`${id}#0`)!.category);
    }
    // validate_args on calls without arguments is not checkable, never a false missing_required / bad_command.
    const validate = lines.filter((l) => l.rule === 'valid-arguments' && l.calls.length > 0);
    expect(validate.length).toBeGreaterThan(0);
    for (const l of validate) expect(l.category).toBe('unscorable');
    expect(lines.some((l) => l.rule !== undefined && l.reason.includes('holds') && l.category !== 'pass')).toBe(false);
    expect(scored.exitCode).toBe(1);

    // The case changed since the run: it now expects another tool. The trace shows the tool, so: wrong_tool.
    const fleet = readFileSync(join(REPO_ROOT, 'fixtures', 'runspec', 'fleet.toml'), 'utf8');
    const changed = fleet.replace('expect_tool = "restart-service"\nexpect_host = "web-01"', 'expect_tool = "service-status"\nexpect_host = "web-01"');
    expect(changed).not.toBe(fleet);
    writeFileSync(join(dir, 'changed.toml'), changed);
    const rescored = await runCli(['--path', dir, 'score', traces, '--cases', join(dir, 'changed.toml'), '--output', 'jsonl', '--fail-on-unscorable']);
    const restart = parse(rescored.stdout).find((l) => l.case === 'restart-nginx-targeted')!;
    expect(restart.category).toBe('wrong_tool');
    expect(restart.reason).toContain('expected service-status, got restart-service');
    // Unchanged argument expectations keep the recorded argument verdict (proved by their fingerprint).
    const scale = parse(rescored.stdout).find((l) => l.case === 'scale-with-coercion')!;
    expect(scale.category).toBe('pass');
    expect(scale.checks?.find((k) => k.check === 'args')).toMatchObject({ judged: true, pass: true, via: 'recorded' });
    expect(rescored.exitCode).toBe(1);
  });
});
