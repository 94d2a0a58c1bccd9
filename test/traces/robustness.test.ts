// Garbage in never throws: random JSON values, random attribute values and random bytes come out as
// counted problems or uninterpretable traces.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spansFromRequest, logsFromRequest } from '../../src/traces/spans.js';
import { readTraceStream } from '../../src/traces/readers.js';
import { normaliseTrace } from '../../src/traces/normalise.js';
import { createTraceScorer } from '../../src/traces/score-traces.js';
import { one, request, span } from './_otlp.js';

const KEYS = [
  'gen_ai.operation.name',
  'gen_ai.output.messages',
  'gen_ai.input.messages',
  'gen_ai.tool.name',
  'gen_ai.tool.call.arguments',
  'openinference.span.kind',
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.name',
  'llm.output_messages.0.message.tool_calls',
  'gen_ai.completion.0.tool_calls.0.name',
  'gen_ai.completion',
  'ai.response.toolCalls',
  'tool.name',
  'input.value',
  'runspec.eval.executed',
];

describe('robustness', () => {
  it('never throws converting arbitrary JSON as a trace or logs request', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        spansFromRequest(v, 'x');
        spansFromRequest({ resourceSpans: [{ scopeSpans: [{ spans: [v] }] }] }, 'x');
        logsFromRequest(v, 'x', 'event.name');
      }),
      { numRuns: 300 },
    );
  });

  it('never throws normalising spans with arbitrary values under the keys producers use', () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constantFrom('{"a":1}', '[{"type":"tool_call"}]', '"\\"{}\\""', 'execute_tool', 'chat', 'TOOL', 'LLM'),
      fc.jsonValue({ maxDepth: 3 }),
    );
    const attrs = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 6 });
    fc.assert(
      fc.property(fc.array(attrs, { minLength: 1, maxLength: 4 }), (list) => {
        const trace = one(request(list.map((a, i) => span({ trace: 1, id: i + 1, parent: i ? 1 : undefined, name: 's', start: i, attrs: a }))));
        const r = normaliseTrace(trace);
        // The catch-all in normaliseTrace is a safety net; hitting it means a normaliser bug.
        if (!r.ok) expect(r.reason).not.toMatch(/^could not interpret/);
        createTraceScorer({ rules: [{ name: 'r', maxCalls: 1, forbidTools: ['x'], jsonDump: true }] }).score(trace);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws reading arbitrary bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), async (bytes) => {
        async function* src(): AsyncGenerator<Uint8Array> {
          yield bytes;
        }
        for await (const _ of readTraceStream(src(), { name: 'rand', maxRecordBytes: 1 << 16 })) void _;
      }),
      { numRuns: 300 },
    );
  });
});
