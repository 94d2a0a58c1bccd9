// An errored sample (provider outage) is not a verdict, but its trace was exported: its run entry names the
// trace (results JSON, the .jsonl log), the results codec reads it back, and the reports link it like a
// scored sample's.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { caseResultsFromDocument, parseResultsDocument, runEntryOf } from '../../src/report/results.js';
import { renderHtml, renderJUnit, renderMarkdown } from '../../src/report/index.js';
import { cliEnv, tempProject } from './_helpers.js';

const SUITE = `
[[eval]]
id          = "status-check"
prompt      = "is nginx running on web-02?"
expect_tool = "service-status"
`;

describe('errored samples carry their trace', () => {
  const project = tempProject('runspec-errored-ref-');
  let model: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/ops.toml', SUITE);
    project.write('runspec.toml', '[telemetry]\nproject = "ops"\ntrace_url = "http://phoenix.test/projects/{project}/traces/{trace_id}?span={span_id}"\n');
    model = await startFakeOpenAI({ respond: () => ({ status: 400, body: { error: { message: 'bad request' } } }) });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  it('names the exported trace in results JSON, the log, the codec and every report', async () => {
    const cli = await runCli(
      ['--path', project.dir, 'run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--attempts', '1', '--out', 'out/r.json'],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(cli.exitCode, cli.stderr).toBe(3);
    const text = readFileSync(join(project.dir, 'out', 'r.json'), 'utf8');
    const doc = JSON.parse(text);
    const run = doc.iterations[0].cases['status-check'].runs[0];
    expect(run.status).toBe('errored');
    expect(run.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(run.root_span_id).toMatch(/^[0-9a-f]{16}$/);
    const link = `http://phoenix.test/projects/ops/traces/${run.trace_id}?span=${run.root_span_id}`;
    expect(run.trace_url).toBe(link);

    // The id is the exported trace whose root names the case.
    const traces = join(project.dir, '.runspec', 'traces');
    const roots: string[] = [];
    for (const f of readdirSync(traces)) {
      for (const line of readFileSync(join(traces, f), 'utf8').split('\n').filter(Boolean)) {
        for (const rs of JSON.parse(line).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) for (const sp of ss.spans ?? []) if (!sp.parentSpanId) roots.push(`${sp.traceId}/${sp.spanId}`);
      }
    }
    expect(roots).toContain(`${run.trace_id}/${run.root_span_id}`);

    // The .jsonl log names it too.
    const log = join(project.dir, 'out', 'r.jsonl');
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, 'utf8')).toContain(run.trace_id);

    // The codec reads it back and writes it again.
    const parsed = parseResultsDocument(text, 'r.json');
    const sample = caseResultsFromDocument(parsed)[0]!.samples[0]!;
    expect(sample.status === 'errored' ? sample.traceRef : undefined).toEqual({ traceId: run.trace_id, rootSpanId: run.root_span_id, url: link });
    expect(runEntryOf(sample)).toMatchObject({ trace_id: run.trace_id, root_span_id: run.root_span_id, trace_url: link });

    expect(renderMarkdown(parsed)).toContain(`(${link})`);
    expect(renderJUnit(parsed)).toContain(`<property name="trace_id" value="${run.trace_id}"/>`);
    expect(renderJUnit(parsed)).toContain(`(trace ${run.trace_id})`);
    expect(renderHtml(parsed)).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
  });
});
