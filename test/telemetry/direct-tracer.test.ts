// The direct tracer (src/telemetry/direct-tracer.ts) against the SDK's own Tracer: the same render inputs,
// the same ids, the same resource and scope; the official OTLP serialisers must write the same bytes, and
// the ReadableSpans must agree on what the serialisers do not write (duration, ended, dropped counts).
import { SpanKind, SpanStatusCode, ROOT_CONTEXT, trace, type Attributes, type Tracer } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, type IdGenerator, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDirectTracer, directTracerEligible } from '../../src/telemetry/direct-tracer.js';
import { renderRunTrace, type RenderInput } from '../../src/telemetry/render.js';
import { createTelemetry } from '../../src/telemetry/telemetry.js';
import type { TelemetryConfig } from '../../src/config/telemetry.js';
import type { ToolMode } from '../../src/types/toolset.js';
import { startOtlpSink } from '../helpers/otlp-sink.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict, T0, TOOLSET, TRAJECTORY_CASE, trajectoryRun, trajectoryVerdict } from './_fixtures.js';

const LIMITS = { attributeCountLimit: 100_000, eventCountLimit: 1000, linkCountLimit: 1000 };

/** Ids 1, 2, 3, ... in the SDK's format, so both tracers hand out the same ones. */
function countingIds(): IdGenerator {
  let n = 0;
  const next = (digits: number) => (++n).toString(16).padStart(digits, '0');
  return { generateTraceId: () => next(32), generateSpanId: () => next(16) };
}

/** Both pipelines over the same resource and scope; `render` runs once against each tracer. */
async function bothWays(render: (tracer: Tracer) => void, limits: Partial<typeof LIMITS> = {}): Promise<{ sdk: ReadableSpan[]; direct: ReadableSpan[] }> {
  const resource = resourceFromAttributes({ 'service.name': 'runspec-test', 'deployment.environment.name': 'ci' });
  const spanLimits = { ...LIMITS, ...limits };
  const sdkExporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource, spanLimits, idGenerator: countingIds(), spanProcessors: [new BatchSpanProcessor(sdkExporter)] });
  const sdkTracer = provider.getTracer('runspec-eval', '9.9.9');
  const directExporter = new InMemorySpanExporter();
  const processor = new BatchSpanProcessor(directExporter);
  const scope = (sdkTracer as unknown as { instrumentationScope: { name: string } }).instrumentationScope;
  const direct = createDirectTracer({
    sampler: 'parentbased_always_on',
    resource,
    scope,
    idGenerator: countingIds(),
    processor,
    limits: { ...spanLimits, attributePerEventCountLimit: 128, attributePerLinkCountLimit: 128 },
  });
  render(sdkTracer);
  render(direct);
  await provider.forceFlush();
  await processor.forceFlush();
  const out = { sdk: sdkExporter.getFinishedSpans(), direct: directExporter.getFinishedSpans() };
  await provider.shutdown();
  await processor.shutdown();
  return out;
}

function expectSameWire(sdk: ReadableSpan[], direct: ReadableSpan[]): void {
  expect(direct.length).toBe(sdk.length);
  expect(direct.map((s) => s.name)).toEqual(sdk.map((s) => s.name));
  const proto = (spans: ReadableSpan[]) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
  const json = (spans: ReadableSpan[]) => Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString('utf8');
  expect(json(direct)).toBe(json(sdk));
  expect(proto(direct).equals(proto(sdk))).toBe(true);
  for (const [i, s] of sdk.entries()) {
    const d = direct[i]!;
    expect({ duration: d.duration, ended: d.ended, dropped: [d.droppedAttributesCount, d.droppedEventsCount, d.droppedLinksCount] }).toEqual({
      duration: s.duration,
      ended: s.ended,
      dropped: [s.droppedAttributesCount, s.droppedEventsCount, s.droppedLinksCount],
    });
    expect(d.resource).toBe(s.resource);
    expect(d.instrumentationScope).toBe(s.instrumentationScope);
    expect(d.spanContext()).toEqual(s.spanContext());
  }
}

const MODES: ToolMode[] = ['dedup', 'per_host', 'search'];
const inputs: Array<[string, RenderInput]> = [
  ...MODES.flatMap((mode): Array<[string, RenderInput]> => [
    [`decision ${mode}, no content`, { case: DECISION_CASE, run: decisionRun(mode), verdict: decisionVerdict(mode), result: DECISION_RESULT, runId: 'r1', captureContent: false, toolset: TOOLSET }],
    [`decision ${mode}, content`, { case: DECISION_CASE, run: decisionRun(mode), verdict: decisionVerdict(mode), result: DECISION_RESULT, runId: 'r1', captureContent: true, toolset: TOOLSET }],
  ]),
  ['decision, hashed arguments', { case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), runId: 'r1', captureContent: false, hashKey: 'k-123' }],
  ['trajectory, no content', { case: TRAJECTORY_CASE, run: trajectoryRun(), verdict: trajectoryVerdict(), runId: 'r2', captureContent: false }],
  ['trajectory, content', { case: TRAJECTORY_CASE, run: trajectoryRun(), verdict: trajectoryVerdict(), runId: 'r2', captureContent: true, agentName: 'ops-agent' }],
  [
    'run error and a failed model call',
    (() => {
      const run = { ...decisionRun('dedup'), status: 'error' as const, error: { code: 'PROVIDER_TIMEOUT', message: 'model did not answer' } };
      run.modelCalls[0] = { ...run.modelCalls[0]!, error: { code: 'PROVIDER_RESPONSE', message: 'HTTP 500' } };
      return { case: DECISION_CASE, run, runId: 'r3', captureContent: true };
    })(),
  ],
  ['sample without a run', { case: DECISION_CASE, runId: 'r4', captureContent: false, sample: 2, error: { code: 'PROVIDER_AUTH', message: 'bad key' }, startTimeMs: T0, endTimeMs: T0 + 5 }],
];

describe('direct tracer: the same spans on the wire as the SDK tracer', () => {
  it.each(inputs)('%s', async (_name, input) => {
    const { sdk, direct } = await bothWays((tracer) => {
      renderRunTrace(tracer, input);
      renderRunTrace(tracer, input);
    });
    expectSameWire(sdk, direct);
  });

  it('applies the SDK rules to odd attributes, statuses, events, links and times', async () => {
    const odd = (): Attributes =>
      ({
        a: 'x',
        '': 'empty key',
        n: null,
        u: undefined,
        mixed: [1, 'two'],
        holes: ['a', null, 'b'],
        obj: { nested: true },
        num: 1.5,
        big: 2 ** 40,
        flag: false,
        '7': 'integer-like key',
      }) as unknown as Attributes;
    const { sdk, direct } = await bothWays((tracer) => {
      const root = tracer.startSpan('root', { kind: SpanKind.SERVER, startTime: [1_780_000_000, 5], attributes: odd(), root: true }, ROOT_CONTEXT);
      const ctx = trace.setSpan(ROOT_CONTEXT, root);
      const list = ['a', 'b'];
      const child = tracer.startSpan('child', { startTime: new Date(T0), attributes: { ok: 'yes', list }, links: [{ context: root.spanContext(), attributes: odd() }] }, ctx);
      list.push('pushed after start: not on the span');
      child.setAttribute('late', 'v');
      child.setAttribute('ok', 'overwritten');
      child.setAttributes(odd());
      child.setStatus({ code: SpanStatusCode.OK });
      child.setStatus({ code: SpanStatusCode.ERROR, message: 'ignored after OK' });
      child.addEvent('e1', odd(), [1_780_000_000, 7]);
      child.addEvent('e2', new Date(T0 + 1));
      child.updateName('child renamed');
      child.recordException(new Error('boom'), [1_780_000_000, 9]);
      // ends before it starts: clamped to the start, duration 0
      child.end([1_779_999_999, 0]);
      child.setAttribute('after-end', 'dropped');
      // one invalid value among valid ones (each alone decides whether the attributes are taken as they are)
      for (const only of [{ n: null }, { u: undefined }, { mixed: [1, 'two'] }, { '': 'empty key' }] as unknown as Attributes[]) {
        tracer.startSpan('one odd', { startTime: [1_780_000_000, 1], attributes: { a: 'x', ...only, z: ['y'] } }, ctx).end([1_780_000_000, 2]);
      }
      root.setStatus({ code: SpanStatusCode.ERROR, message: 42 as unknown as string });
      root.end(new Date(T0 + 10));
    });
    // the exception event's stack differs between the two calls: compare it apart
    for (const s of [...sdk, ...direct]) for (const e of s.events) if (e.attributes?.['exception.stacktrace']) e.attributes['exception.stacktrace'] = 'stack';
    expectSameWire(sdk, direct);
  });

  it('startActiveSpan runs the function with the span and returns its result, as the SDK tracer does', async () => {
    const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), traceFlags: 1 });
    const results: unknown[] = [];
    const { sdk, direct } = await bothWays((tracer) => {
      results.push(tracer.startActiveSpan('bare', (span) => (span.setAttribute('k', 1), span.end(), 'a')));
      results.push(tracer.startActiveSpan('with options', { kind: SpanKind.CLIENT, attributes: { x: 'y' } }, (span) => (span.end(), 'b')));
      results.push(tracer.startActiveSpan('with a parent', {}, parent, (span) => (span.end(), 'c')));
    });
    expect(results).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(direct.find((s) => s.name === 'with a parent')?.parentSpanContext?.spanId).toBe('cd'.repeat(8));
    // Started at "now": the same wire but for the clock.
    const untimed = (spans: ReadableSpan[]) => Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString('utf8').replace(/"(start|end)TimeUnixNano":"?\d+"?/g, '"$1TimeUnixNano":0');
    expect(untimed(direct)).toBe(untimed(sdk));
  });

  it('counts attributes over the limit as dropped, as the SDK does', async () => {
    const many: Attributes = {};
    for (let i = 0; i < 12; i++) many[`k${i}`] = i;
    const { sdk, direct } = await bothWays(
      (tracer) => {
        const span = tracer.startSpan('limited', { startTime: [1_780_000_000, 0], attributes: many, root: true }, ROOT_CONTEXT);
        span.setAttribute('k3', 'existing key still updates');
        span.setAttribute('extra', 'dropped');
        for (let i = 0; i < 3; i++) span.addEvent(`e${i}`, [1_780_000_000, i]);
        span.end([1_780_000_001, 0]);
      },
      { attributeCountLimit: 10, eventCountLimit: 2 },
    );
    expect(direct[0]!.droppedAttributesCount).toBe(3);
    expectSameWire(sdk, direct);
  });
});

describe('direct tracer: used only where the SDK would decide the same', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('is off for a non-default sampler or an attribute value length limit', () => {
    expect(directTracerEligible()).toMatchObject({ sampler: 'parentbased_always_on', attributePerEventCountLimit: 128 });
    vi.stubEnv('OTEL_TRACES_SAMPLER', 'always_on');
    expect(directTracerEligible()).toMatchObject({ sampler: 'always_on' });
    vi.stubEnv('OTEL_TRACES_SAMPLER', 'traceidratio');
    expect(directTracerEligible()).toBeUndefined();
    vi.stubEnv('OTEL_TRACES_SAMPLER', '');
    vi.stubEnv('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', '4');
    expect(directTracerEligible()).toBeUndefined();
  });

  it('createTelemetry still honours the SDK environment (sampler off, value length limit)', async () => {
    const sink = await startOtlpSink();
    try {
      const config: TelemetryConfig = {
        enabled: true,
        captureContent: false,
        captureHashed: false,
        annotations: false,
        phoenixExperiment: false,
        exporter: { kind: 'otlp', url: `${sink.url}/v1/traces`, protocol: 'http/protobuf', headers: {}, compression: 'none' },
        timeoutMs: 5000,
        serviceName: 'runspec-test',
        resourceAttributes: {},
        apiKeyEnv: 'PHOENIX_API_KEY',
        sources: { enabled: 'default', captureContent: 'default', annotations: 'default', endpoint: 'env', protocol: 'env', timeoutMs: 'default', annotationsUrl: 'default', project: 'default', serviceName: 'default' },
      };
      const input = { case: DECISION_CASE, run: decisionRun('dedup'), verdict: decisionVerdict('dedup'), runId: 'r1' };
      vi.stubEnv('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', '4');
      let telemetry = createTelemetry(config);
      telemetry.emitCase(input);
      await telemetry.shutdown();
      expect(sink.spans()).toHaveLength(3);
      expect(sink.spans().every((s) => Object.values(s.attributes).every((v) => typeof v !== 'string' || v.length <= 4))).toBe(true);
      vi.unstubAllEnvs();
      vi.stubEnv('OTEL_TRACES_SAMPLER', 'always_off');
      sink.requests.length = 0;
      telemetry = createTelemetry(config);
      telemetry.emitCase(input);
      await telemetry.shutdown();
      expect(sink.spans()).toEqual([]);
    } finally {
      await sink.close();
    }
  });
});
