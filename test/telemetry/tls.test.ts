// TLS: the CA from [telemetry] ca_file (or OTEL_EXPORTER_OTLP_CERTIFICATE) is trusted by both the span
// export and the Phoenix annotation POST; without it a private-CA server is refused with one warning each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config/env.js';
import { resolveTelemetryConfig } from '../../src/config/telemetry.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { startFakePhoenix, type FakePhoenix } from '../helpers/fake-phoenix.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { DECISION_CASE, decisionRun, decisionVerdict } from './_fixtures.js';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runCli } from '../helpers/run-cli.js';
import { request, span } from '../traces/_otlp.js';

const TLS_DIR = join(import.meta.dirname, 'tls');
const tls = { key: readFileSync(join(TLS_DIR, 'server.key')), cert: readFileSync(join(TLS_DIR, 'server.pem')) };

let phoenix: FakePhoenix | undefined;
let sink: OtlpSink | undefined;
afterEach(async () => {
  await phoenix?.close();
  await sink?.close();
  phoenix = undefined;
  sink = undefined;
});

async function emitOne(env: Record<string, string>, file: Parameters<typeof resolveTelemetryConfig>[0]['file']) {
  const warnings: string[] = [];
  const e = readEnv(env);
  const config = resolveTelemetryConfig({ flags: {}, env: e, file, projectDir: TLS_DIR });
  const telemetry = createTelemetry(config, { onWarning: (m) => warnings.push(m) });
  telemetry.emitCase({ case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), runId: 'r' });
  await telemetry.shutdown();
  return { warnings: [...e.warnings, ...warnings] };
}

describe('TLS with a private CA', () => {
  it('trusts ca_file for both the export and the annotations', async () => {
    phoenix = await startFakePhoenix({ tls });
    const { warnings } = await emitOne({}, { endpoint: `${phoenix.url}/v1/traces`, eval_annotations: true, ca_file: 'ca.pem', timeout_ms: 5000 });
    expect(warnings).toEqual([]);
    expect(phoenix.url.startsWith('https://')).toBe(true);
    expect(phoenix.spans()).toHaveLength(3);
    expect(phoenix.annotations).toHaveLength(1);
  });

  it('trusts OTEL_EXPORTER_OTLP_CERTIFICATE for the export', async () => {
    sink = await startOtlpSink({ tls });
    const { warnings } = await emitOne({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_EXPORTER_OTLP_CERTIFICATE: join(TLS_DIR, 'ca.pem') }, {});
    expect(warnings).toEqual([]);
    expect(sink.spans()).toHaveLength(3);
  });

  it('refuses the server without the CA: one export warning, one annotation warning, nothing thrown', async () => {
    phoenix = await startFakePhoenix({ tls });
    const { warnings } = await emitOne({}, { endpoint: `${phoenix.url}/v1/traces`, eval_annotations: true, timeout_ms: 3000 });
    expect(phoenix.spans()).toEqual([]);
    expect(phoenix.annotations).toEqual([]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^export to https:\/\/127\.0\.0\.1:\d+\/v1\/traces/);
    // The spans never reached Phoenix, so their annotations are not posted either (they would dangle).
    expect(warnings[1]).toMatch(/^phoenix annotations: 1 verdict annotation\(s\) not sent: their spans were not exported/);
  });
});

describe('score --annotate over TLS', () => {
  // Regression: score --annotate posted with no CA, so a Phoenix the export could reach was refused.
  it('posts annotations with the CA file of the export', async () => {
    phoenix = await startFakePhoenix({ tls });
    const dir = mkdtempSync(join(tmpdir(), 'runspec-tls-score-'));
    copyFileSync(join(TLS_DIR, 'ca.pem'), join(dir, 'ca.pem'));
    writeFileSync(join(dir, 'runspec.toml'), `[telemetry]\nendpoint = "${phoenix.url}/v1/traces"\nca_file = "ca.pem"\n`);
    writeFileSync(join(dir, 'rules.toml'), '[[rule]]\nname = "no-restarts"\nforbid_tools = ["service_restart"]\n');
    const trace = request([
      span({ trace: 7, id: 1, name: 'invoke_agent ops', start: 0, end: 10, attrs: { 'gen_ai.operation.name': 'invoke_agent' } }),
      span({
        trace: 7,
        id: 2,
        parent: 1,
        name: 'execute_tool service_restart',
        start: 1,
        end: 2,
        attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'service_restart' },
      }),
    ]);
    writeFileSync(join(dir, 'trace.jsonl'), JSON.stringify(trace) + '\n');
    const r = await runCli(['--path', dir, 'score', 'trace.jsonl', '--rules', 'rules.toml', '--annotate'], { cwd: dir });
    expect(r.stderr).not.toMatch(/phoenix annotations/);
    expect(r.exitCode).toBe(1);
    expect(phoenix.annotations).toHaveLength(1);
    expect(phoenix.annotations[0]!.body.data[0]).toMatchObject({ name: 'runspec.rule.no-restarts', result: { label: 'forbidden_tool', score: 0 } });
  });
});
