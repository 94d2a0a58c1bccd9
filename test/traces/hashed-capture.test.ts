// capture_content = "hashed": tool spans carry, per argument, an HMAC of the value in the scorer's
// tolerant-canonical form. Acceptance: the same verdicts from traces with content and from the same traces
// with hashes (given the key); without the key, or for a regex, the argument checks are not checkable.
import { describe, expect, it } from 'vitest';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { renderRunTrace } from '../../src/telemetry/index.js';
import { scoreRun } from '../../src/scoring/index.js';
import { createTraceScorer } from '../../src/traces/score-traces.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { FLEET_TOOLSET_FILE } from '../../src/toolset/load.js';
import { loadToolsetFile } from '../../src/toolset/file.js';
import type { ArgExpectation, Case, Run } from '../../src/types/index.js';
import { makeCase, makeRun } from '../scoring/_build.js';
import { one } from './_otlp.js';

const fleet = loadToolsetFile(FLEET_TOOLSET_FILE);
const KEY = 'test-hash-key';
const eq = (value: unknown): ArgExpectation => ({ kind: 'equals', value });

const restart = makeCase({ id: 'restart', runspec: { tool: ['restart-service'], host: 'web-01', args: { service: eq('nginx') } } });
const scale = makeCase({
  id: 'scale',
  runspec: { tool: ['scale-deployment'], args: { replicas: eq(3), env: { kind: 'one_of', values: ['prod', 'staging'] } } },
});
const regex = makeCase({ id: 'regex', runspec: { tool: ['restart-service'], args: { service: { kind: 'regex', pattern: '^ngi' } } } });

const SAMPLES: Array<{ c: Case; args: Record<string, unknown> }> = [
  { c: restart, args: { host: 'web-01', service: ' NGINX ' } },
  { c: restart, args: { host: 'web-01', service: 'apache2' } },
  { c: restart, args: { host: 'web-01' } },
  { c: scale, args: { host: 'web-01', deployment: 'api', replicas: '3', env: ' Prod ' } },
  { c: scale, args: { host: 'web-01', deployment: 'api', replicas: 4, env: 'prod' } },
  { c: scale, args: { host: 'web-01', deployment: 'api', replicas: 3, env: 'dev' } },
];

function traceOf(c: Case, args: Record<string, unknown>, capture: 'content' | 'hashed' | 'none'): OtlpTraceRequest {
  const run: Run = makeRun({ calls: [{ name: c.runspec!.tool![0]!, arguments: args }], terminal: true });
  run.caseId = c.id;
  run.toolMode = 'dedup';
  // Real times: a span ending at 0 reads as never ended (the trace would be incomplete).
  const t0 = 1_767_225_600_000;
  run.startTimeMs = t0;
  run.endTimeMs = t0 + 10;
  for (const r of run.toolCalls) Object.assign(r, { startTimeMs: t0 + 1, endTimeMs: t0 + 2 });
  const verdict = scoreRun(c, run, { toolset: fleet });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  renderRunTrace(provider.getTracer('t'), {
    case: c,
    run,
    verdict,
    runId: 'r',
    captureContent: capture === 'content',
    ...(capture === 'hashed' ? { hashKey: KEY } : {}),
    toolset: fleet,
  });
  return JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())!)) as OtlpTraceRequest;
}

function categoryOf(req: OtlpTraceRequest, cases: Case[], hashKey?: string): { category: string; reason: string } {
  const scorer = createTraceScorer({ cases, toolsetFor: () => fleet, ...(hashKey !== undefined ? { hashKey } : {}) });
  const out = scorer.score(one(req));
  if (out.kind !== 'scored') throw new Error(out.reason);
  const line = out.lines[0]!;
  return { category: line.category ?? '-', reason: line.reason };
}

describe('hashed argument capture', () => {
  it('gives the same verdicts as content capture when re-scored with the key', () => {
    const cases = [restart, scale];
    for (const { c, args } of SAMPLES) {
      const withContent = categoryOf(traceOf(c, args, 'content'), cases);
      const hashed = categoryOf(traceOf(c, args, 'hashed'), cases, KEY);
      expect(hashed.category, `${c.id} ${JSON.stringify(args)}`).toBe(withContent.category);
    }
    expect(SAMPLES.map(({ c, args }) => categoryOf(traceOf(c, args, 'content'), cases).category)).toEqual([
      'pass',
      'wrong_args',
      'wrong_args',
      'pass',
      'wrong_args',
      'wrong_args',
    ]);
  });

  it('never puts a value on the wire, only hashes', () => {
    const body = JSON.stringify(traceOf(restart, { host: 'web-01', service: 'secret-service-name' }, 'hashed'));
    expect(body).not.toContain('secret-service-name');
    expect(body).toContain('runspec.eval.argument_hashes');
  });

  it('re-checks a changed case from the hashes with the key; without the key the arguments are not checkable', () => {
    const changed = makeCase({ id: 'restart', runspec: { tool: ['restart-service'], host: 'web-01', args: { service: eq('apache2') } } });
    const req = traceOf(restart, { host: 'web-01', service: 'apache2' }, 'hashed');
    expect(categoryOf(req, [changed], KEY).category).toBe('pass');
    const noKey = categoryOf(req, [changed]);
    expect(noKey.category).toBe('unscorable');
    expect(noKey.reason).toContain('RUNSPEC_HASH_KEY');
    const wrongKey = categoryOf(req, [changed], 'another-key');
    expect(wrongKey.category).toBe('unscorable');
    expect(wrongKey.reason).toContain('another key');
  });

  it('says a regex expectation is not checkable under hashing', () => {
    const r = categoryOf(
      traceOf(regex, { host: 'web-01', service: 'nginx' }, 'hashed'),
      [makeCase({ ...regex, runspec: { ...regex.runspec!, args: { service: { kind: 'regex', pattern: '^ng' } } } })],
      KEY,
    );
    expect(r.category).toBe('unscorable');
    expect(r.reason).toContain('regex expectation needs the value');
  });
});
