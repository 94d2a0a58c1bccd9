// Every attribute we write comes from a convention (gen_ai.* / error / server from
// @opentelemetry/semantic-conventions, OpenInference, langsmith.span.kind) or our runspec.eval.* registry,
// with the registry's value type; flattened OpenInference lists are built only from OpenInference keys.
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTR_LANGSMITH_SPAN_KIND, RUNSPEC_EVAL_ATTRIBUTE_TYPES } from '../../src/semconv/index.js';
import { emitVerdictSpan, renderRunTrace, type RenderInput } from '../../src/telemetry/index.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict, TOOLSET, TRAJECTORY_CASE, trajectoryRun, trajectoryVerdict } from './_fixtures.js';

const CONVENTION_KEYS = new Set<string>([
  ...Object.entries(incubating)
    .filter(([name, v]) => name.startsWith('ATTR_') && typeof v === 'string')
    .map(([, v]) => v as string),
  ...(Object.values(OI) as unknown[]).filter((v): v is string => typeof v === 'string'),
  ATTR_LANGSMITH_SPAN_KIND,
]);
const OI_VALUES = new Set((Object.values(OI) as unknown[]).filter((v): v is string => typeof v === 'string'));
const REGISTRY = RUNSPEC_EVAL_ATTRIBUTE_TYPES as Record<string, string>;

/** Why a key is not allowed, or undefined when it is. */
function problemWith(key: string, value: unknown): string | undefined {
  if (key in REGISTRY) {
    const type = REGISTRY[key];
    const ok =
      type === 'boolean'
        ? typeof value === 'boolean'
        : type === 'int'
          ? Number.isInteger(value)
          : type === 'double'
            ? typeof value === 'number'
            : type === 'string'
              ? typeof value === 'string'
              : false;
    return ok ? undefined : `${key}: expected ${type}, got ${JSON.stringify(value)}`;
  }
  if (CONVENTION_KEYS.has(key)) return undefined;
  // Flattened OpenInference list: prefix.{i}.suffix, every piece an OpenInference key.
  const pieces = key.split(/\.\d+\./);
  if (pieces.length > 1 && pieces.every((p) => OI_VALUES.has(p))) return undefined;
  return `${key}: not in any convention or in semconv/registry.yaml`;
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], spanLimits: { attributeCountLimit: 10_000 } });
const tracer = provider.getTracer('test');

afterEach(() => exporter.reset());

function problems(spans: ReadableSpan[]): string[] {
  const out: string[] = [];
  for (const s of spans) {
    for (const [k, v] of Object.entries(s.attributes)) {
      const p = problemWith(k, v);
      if (p) out.push(`${s.name}: ${p}`);
    }
    for (const e of s.events)
      for (const [k, v] of Object.entries(e.attributes ?? {})) {
        const p = problemWith(k, v);
        if (p) out.push(`${s.name} event ${e.name}: ${p}`);
      }
  }
  return out;
}

const INPUTS: Array<[string, RenderInput]> = [
  ...(['dedup', 'per_host', 'search'] as const).map((m): [string, RenderInput] => [
    `decision ${m}`,
    { case: DECISION_CASE, run: decisionRun(m), verdict: decisionVerdict(m), result: DECISION_RESULT, runId: 'r', captureContent: true, toolset: TOOLSET },
  ]),
  ['trajectory', { case: TRAJECTORY_CASE, run: trajectoryRun(), verdict: trajectoryVerdict(), runId: 'r', captureContent: true }],
  ['errored before a run', { case: DECISION_CASE, runId: 'r', captureContent: true, sample: 2, error: { code: 'PROVIDER_TIMEOUT', message: 'no answer' } }],
];

describe('attribute conventions', () => {
  it.each(INPUTS)('%s: every attribute belongs to a convention or the registry', (_name, input) => {
    renderRunTrace(tracer, input);
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(0);
    expect(problems(spans)).toEqual([]);
  });

  it.each(INPUTS)('%s: no attribute key is a dotted prefix of another on the same span (Phoenix nests them)', (_name, input) => {
    renderRunTrace(tracer, input);
    for (const s of exporter.getFinishedSpans()) {
      const keys = Object.keys(s.attributes);
      expect(
        keys.filter((a) => keys.some((b) => b.startsWith(`${a}.`))),
        s.name,
      ).toEqual([]);
    }
  });

  it('verdict spans use only convention and registry attributes', () => {
    emitVerdictSpan(tracer, {
      target: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) },
      verdict: decisionVerdict('dedup'),
      rule: 'forbidden_tools',
      runId: 'r',
    });
    expect(problems(exporter.getFinishedSpans())).toEqual([]);
  });

  it('flags an attribute outside every convention (the check can fail)', () => {
    expect(problemWith('runspec.eval.pass', 'yes')).toMatch(/expected boolean/);
    expect(problemWith('gen_ai.made_up', 1)).toMatch(/not in any convention/);
    expect(problemWith('llm.input_messages.0.message.bogus', 'x')).toMatch(/not in any convention/);
    expect(problemWith('llm.input_messages.0.message.role', 'user')).toBeUndefined();
  });
});
