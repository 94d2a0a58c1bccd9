import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { tempProject } from '../e2e/_helpers.js';
import { emptyProject, install, npm, npmCacheDir, tempRoot } from '../packed/_install.js';
import { runInstalled } from '../packed/_cli.js';
import { caseResultsFromDocument } from '../../src/report/results.js';
import { CASES_TOML, SCRIPT } from '../targets/_project.js';
import { ATTR_RUNSPEC_EVAL_CATEGORY } from '../../src/semconv/attributes.js';
import { aiSdk7Install } from './setup/ai-sdk-7.js';

// An AI SDK 7 module target (its @ai-sdk/otel telemetry on) run by the packed CLI under a Node 22 binary: the
// tarball of this checkout installed into an empty project, its bin started with Node 22 first on PATH. The
// same two cases as every target: one pass, one wrong_tool, read from the trace the SDK emitted; with
// telemetry on, the SDK's spans are exported once each under the case root carrying the verdict.

describe('AI SDK 7 module target through the packed CLI on Node 22', () => {
  const project = tempProject('runspec-ai-sdk-7-target-');
  let model: FakeModelServer;
  let sink: OtlpSink;
  let node: string;
  let consumer: string;
  let root: string;
  beforeAll(async () => {
    const sdk = await aiSdk7Install(join(import.meta.dirname, 'ai-sdk-7'));
    node = sdk.node;
    const agent = join(sdk.dir, 'agent-target.mjs');
    copyFileSync(join(import.meta.dirname, 'ai-sdk-7', 'agent-target.mjs'), agent);
    root = tempRoot('runspec-ai-sdk-7-packed-');
    const cache = npmCacheDir();
    await npm(['pack', '--ignore-scripts', '--pack-destination', root, '--cache', cache], REPO_ROOT);
    const tarball = join(
      root,
      readdirSync(root).find((f) => f.endsWith('.tgz'))!,
    );
    consumer = emptyProject(root, 'consumer');
    await install(consumer, [tarball], cache);
    model = await startFakeOpenAI({ script: SCRIPT });
    sink = await startOtlpSink();
    project.write('cases.toml', CASES_TOML);
    project.write('runspec.toml', `[targets.aisdk7]\nkind = "module"\nmodule = "${agent}"\nvars = { base_url = "${model.url}" }\nquiet_ms = 100\n`);
  });
  afterAll(async () => {
    await model?.close();
    await sink?.close();
    project.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reports one pass and one wrong_tool from the spans AI SDK 7 emitted, and exports them once under the verdict', async () => {
    const out = join(project.dir, 'out.json');
    const versionFile = join(project.dir, 'node-version.txt');
    const env = { PATH: `${dirname(node)}:${process.env.PATH ?? ''}`, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, NODE_VERSION_FILE: versionFile };
    const version = await runInstalled(consumer, ['--version'], { env });
    expect(version.exitCode).toBe(0);
    const cli = await runInstalled(consumer, ['--path', project.dir, 'run', 'cases.toml', '--target', 'aisdk7', '--out', out, '--telemetry'], {
      env,
      cwd: project.dir,
      timeoutMs: 120_000,
    });
    expect(cli.stderr).not.toMatch(/^(error|warning)/m);
    expect(cli.exitCode).toBe(1);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.meta.target).toEqual({ name: 'aisdk7', kind: 'module' });
    const results = caseResultsFromDocument(doc);
    const v = Object.fromEntries(results.map((r) => [r.caseId, (r.samples[0] as { verdict: { category: string; reason: string } }).verdict]));
    expect(v['weather-paris']).toMatchObject({ category: 'pass', reason: expect.stringContaining('calls read from the trace') });
    expect(v['time-tokyo']).toMatchObject({ category: 'wrong_tool' });
    // The CLI ran under Node 22: the module wrote down which Node called it.
    expect(readFileSync(versionFile, 'utf8')).toMatch(/^22\./);
    // Telemetry: every span once; per case one root with the verdict; AI SDK 7's spans under it, not re-rendered.
    const spans = sink.spans();
    const ids = spans.map((s) => `${s.traceId}/${s.spanId}`);
    expect(new Set(ids).size).toBe(ids.length);
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(Object.fromEntries(roots.map((r) => [r.attributes['runspec.target.case_id'], r.attributes[ATTR_RUNSPEC_EVAL_CATEGORY]]))).toEqual({
      'weather-paris': 'pass',
      'time-tokyo': 'wrong_tool',
    });
    const sdkSpans = spans.filter((s) => s.parentSpanId);
    expect(sdkSpans.length).toBeGreaterThanOrEqual(2);
    // Each SDK span reaches a case root through parents of its own trace.
    const byId = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
    for (const s of sdkSpans) {
      let cur: (typeof spans)[number] | undefined = s;
      while (cur?.parentSpanId) cur = byId.get(`${cur.traceId}/${cur.parentSpanId}`);
      expect(cur && roots.includes(cur)).toBe(true);
    }
  });
});
