// OTLP/JSON agent traces for the scorer benchmarks, generated on the fly (never written to disk):
// `node bench/_traces.mjs BYTES` writes about BYTES of JSON lines (50 traces per line) to stdout.

const PER_LINE = 50;
const hex = (n, width) => n.toString(16).padStart(width, '0');
const str = (key, v) => ({ key, value: { stringValue: v } });
const int = (key, v) => ({ key, value: { intValue: String(v) } });

/** One agent trace: invoke_agent → chat (OpenInference + gen_ai output messages) → execute_tool. */
export function trace(i, idPrefix = '') {
  const traceId = idPrefix ? `${idPrefix}${hex(i + 1, 32 - idPrefix.length)}` : hex(i + 1, 32);
  const t0 = 1_764_000_000_000_000_000n + BigInt(i) * 1_000_000_000n;
  const tool = i % 7 === 0 ? 'restart-service' : 'service-status';
  const args = JSON.stringify({ service: 'nginx', host: `web-0${(i % 3) + 1}` });
  const span = (n, parent, name, attrs, startMs, endMs) => ({
    traceId,
    spanId: hex(i * 4 + n, 16),
    ...(parent ? { parentSpanId: hex(i * 4 + parent, 16) } : {}),
    name,
    kind: n === 2 ? 3 : 1,
    startTimeUnixNano: String(t0 + BigInt(startMs) * 1_000_000n),
    endTimeUnixNano: String(t0 + BigInt(endMs) * 1_000_000n),
    attributes: attrs,
    status: {},
  });
  return [
    span(
      1,
      0,
      'invoke_agent ops',
      [str('gen_ai.operation.name', 'invoke_agent'), str('openinference.span.kind', 'AGENT'), str('input.value', `is nginx up on web-0${(i % 3) + 1}?`)],
      0,
      900,
    ),
    span(
      2,
      1,
      'chat gpt-4o',
      [
        str('gen_ai.operation.name', 'chat'),
        str('gen_ai.provider.name', 'openai'),
        str('gen_ai.request.model', 'gpt-4o'),
        str('openinference.span.kind', 'LLM'),
        int('gen_ai.usage.input_tokens', 812),
        int('gen_ai.usage.output_tokens', 31),
        str('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'is nginx up?' }] }])),
        str(
          'gen_ai.output.messages',
          JSON.stringify([
            { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: `call_${i}`, name: tool, arguments: JSON.parse(args) }] },
          ]),
        ),
        str('llm.output_messages.0.message.role', 'assistant'),
        str('llm.output_messages.0.message.tool_calls.0.tool_call.id', `call_${i}`),
        str('llm.output_messages.0.message.tool_calls.0.tool_call.function.name', tool),
        str('llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments', args),
      ],
      10,
      600,
    ),
    span(
      3,
      1,
      `execute_tool ${tool}`,
      [
        str('gen_ai.operation.name', 'execute_tool'),
        str('gen_ai.tool.name', tool),
        str('gen_ai.tool.call.id', `call_${i}`),
        str('gen_ai.tool.call.arguments', args),
        str('gen_ai.tool.call.result', 'active (running)'),
        str('openinference.span.kind', 'TOOL'),
      ],
      610,
      880,
    ),
  ];
}

/** One ExportTraceServiceRequest line holding traces [from, to). */
export function requestLine(from, to, idPrefix = '') {
  const spans = [];
  for (let i = from; i < to; i++) spans.push(...trace(i, idPrefix));
  return (
    JSON.stringify({ resourceSpans: [{ resource: { attributes: [str('service.name', 'bench-agent')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }] }) +
    '\n'
  );
}

export const TRACES_PER_LINE = PER_LINE;

const MARK = 'eeeeeeee';

/**
 * Lines of `blockLines` requests, repeated with a different 8-hex-digit trace-id prefix per repeat, so
 * generating is a string join per line (cheap next to parsing it) and every trace id stays unique.
 */
export function* lines(targetBytes, blockLines = 20) {
  const template = [];
  for (let l = 0; l < blockLines; l++) template.push(requestLine(l * PER_LINE, (l + 1) * PER_LINE, MARK).split(MARK));
  let written = 0;
  for (let block = 0; written < targetBytes; block++) {
    const prefix = block.toString(16).padStart(8, '0');
    for (const parts of template) {
      const line = parts.join(prefix);
      written += line.length;
      yield line;
      if (written >= targetBytes) return;
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Prints `TRACES <n>` on stderr once everything is written.
  const out = process.stdout;
  const it = lines(Number(process.argv[2] ?? 50e6));
  let count = 0;
  out.on('error', () => process.exit(0));
  const pump = () => {
    for (;;) {
      const batch = [];
      let size = 0;
      for (let r = it.next(); !r.done; r = it.next()) {
        batch.push(r.value);
        size += r.value.length;
        if (size >= 1 << 20) break;
      }
      count += batch.length * PER_LINE;
      if (batch.length === 0) return out.end(() => process.stderr.write(`TRACES ${count}\n`));
      if (!out.write(batch.join(''))) return out.once('drain', pump);
    }
  };
  pump();
}
