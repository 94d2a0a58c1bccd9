// A judged trace's TraceInfo outlives its scoring: `serve` holds each provisional verdict, info included, for
// its trace's re-open window (60 s by default), outside --max-retained-bytes. The info's lazy members must keep
// only what they read: their closures used to share normaliseUnsafe's scope and kept the parsed model calls
// (prompts and answers), the spans and the logs alive with it.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_OUTPUT_MESSAGES, ATTR_GEN_AI_REQUEST_MODEL, ATTR_GEN_AI_TOOL_NAME } from '../../src/semconv/gen-ai.js';
import { normaliseTraceForScoring, type TraceInfo } from '../../src/traces/normalise.js';
import { spansFromRequest } from '../../src/traces/spans.js';
import { request, span, traceId } from './_otlp.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const spans = spansFromRequest(
  request([
    span({ trace: 1, id: 1, name: 'invoke_agent ops', start: 0, end: 10 }),
    span({
      trace: 1,
      id: 2,
      parent: 1,
      name: 'chat gpt-4o',
      start: 1,
      end: 5,
      attrs: {
        [ATTR_GEN_AI_OPERATION_NAME]: 'chat',
        [ATTR_GEN_AI_REQUEST_MODEL]: 'gpt-4o',
        [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify([
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'service_status', arguments: { name: 'api' } }] },
        ]),
      },
    }),
    span({
      trace: 1,
      id: 3,
      parent: 1,
      name: 'execute_tool service_status',
      start: 6,
      end: 7,
      attrs: { [ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool', [ATTR_GEN_AI_TOOL_NAME]: 'service_status' },
    }),
  ]),
  'test',
).spans;

/** Normalise, keep only the info, and watch the run's model calls through a weak reference. */
function infoAndModelCalls(): { info: TraceInfo; modelCalls: WeakRef<object> } {
  const r = normaliseTraceForScoring({ traceId: traceId(1), spans, logs: [], evicted: false });
  if (!r.ok) throw new Error(r.reason);
  expect(r.run.modelCalls).toHaveLength(1);
  return { info: r.info, modelCalls: new WeakRef(r.run.modelCalls) };
}

describe('a trace info kept after scoring', () => {
  it('does not keep the parsed model calls alive, and its lazy members still read', async () => {
    const { info, modelCalls } = infoAndModelCalls();
    // A weak reference holds its target until the current job ends.
    await new Promise((r) => setImmediate(r));
    gc();
    expect(modelCalls.deref()).toBeUndefined();
    expect(Object.keys(info.callSpanIds)).toEqual(['call_1']);
    expect(Object.keys(info.rootAttributes)).toContain('service.name');
  });
});
