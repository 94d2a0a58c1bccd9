// The ceilings' shared half: the least work that turns a request's spans into the verdict lines `score` and
// `serve` write for the bench's traces and rules (no-restart: forbid_tools = ["restart-service"]; budget:
// max_calls = 3). Spans are grouped by trace id; a trace's root is its span without a parent, its calls are
// its execute_tool spans (name, call id, JSON.parse of the arguments) in span order; each rule's line is a
// run entry with the keys, in the order, of src/report/verdict-line.ts (and its values for these traces).
//
// Hand-written on purpose: it imports nothing from dist/ or src/, so a ceiling measures what any
// implementation would have to do to write these lines, not ours. It knows only what the bench's traces
// need (no cases, no other rule checks, no state across requests); bench/run.mjs checks on every run that
// its lines are ours byte for byte, so it cannot drift from the real output.

const RULES = [
  { name: 'no-restart', forbid: 'restart-service' },
  { name: 'budget', maxCalls: 3 },
];

/** Same-shape objects for the whole run, so V8 keeps them fast (as a real scorer would). */
function traceOf() {
  return { root: '', calls: [], llm: false, family: false };
}

/** File one span under its trace: the root's id, an execute_tool span's call, what the attributes tell of the producer. */
function addSpan(traces, s, hex) {
  const traceId = hex(s.traceId);
  let t = traces.get(traceId);
  if (t === undefined) traces.set(traceId, (t = traceOf()));
  if (hex(s.parentSpanId) === '') t.root = hex(s.spanId);
  let isTool = false;
  let name;
  let id;
  let args;
  for (const a of s.attributes) {
    const k = a.key;
    if (k === 'gen_ai.operation.name') isTool = a.value.stringValue === 'execute_tool';
    else if (k === 'gen_ai.tool.name') name = a.value.stringValue;
    else if (k === 'gen_ai.tool.call.id') id = a.value.stringValue;
    else if (k === 'gen_ai.tool.call.arguments') args = a.value.stringValue;
    else if (k === 'openinference.span.kind') t.family = true;
    else if (k.startsWith('llm.')) t.llm = true;
  }
  if (isTool) t.calls.push({ name, id, args: args === undefined ? {} : JSON.parse(args) });
}

/** The run entry of one rule over one trace (keys in src/report/verdict-line.ts's order). */
function entryOf(traceId, t, rule) {
  const calls = t.calls;
  let check;
  let category = 'pass';
  let reason;
  if (rule.forbid !== undefined) {
    const hit = calls.some((c) => c.name === rule.forbid);
    check = hit
      ? { check: 'forbid_tools', judged: true, pass: false, expected: [rule.forbid], observed: [rule.forbid] }
      : { check: 'forbid_tools', judged: true, pass: true, expected: [rule.forbid] };
    if (hit) {
      category = 'forbidden_tool';
      reason = `called forbidden tool ${rule.forbid}`;
    }
  } else {
    const pass = calls.length <= rule.maxCalls;
    check = { check: 'max_calls', judged: true, pass, expected: rule.maxCalls, observed: calls.length };
    if (!pass) {
      category = 'too_many_calls';
      reason = `${calls.length} tool calls, at most ${rule.maxCalls} allowed`;
    }
  }
  const pass = category === 'pass';
  reason ??= `rule ${rule.name} holds (${calls.length} calls)`;
  // Every bench trace has gen_ai spans; the `score` traces also carry OpenInference's llm.* attributes.
  const producers = t.llm ? ['gen_ai', 'openinference'] : ['gen_ai'];
  const entry = {
    trace_id: traceId,
    root_span_id: t.root,
    rule: rule.name,
    sample: 0,
    status: 'scored',
    pass,
    score: pass ? 1 : 0,
    matched: [],
    unmatched: [],
    extra_tools: [],
    detail: reason,
    tool_sequence: calls.map((c) => c.name),
    tool_args: calls.map((c) => ({ [c.name]: c.args })),
    elapsed: 0,
    elapsed_ms: 0,
    tokens: 0,
    json_dump: false,
    run_status: 'ok',
    verdict: {
      category,
      reason,
      dialect: 'rule',
      expected: {},
      // The first call's arguments are the first call's: `args_call` 0, as results-encode.ts writes them.
      observed: calls.length ? { tool: calls[0].name, args_call: 0 } : {},
      tool_mode: null,
      checks: [check],
      trace_id: traceId,
      root_span_id: t.root,
    },
    replio: null,
    match: null,
    calls: calls.map((c) => ({ id: c.id, name: c.name, executed: true })),
    error: null,
    revision: 0,
    final: true,
    mode: 'trajectory',
    producers,
  };
  if (t.family) entry.family = 'openinference';
  return entry;
}

/**
 * Push two verdict lines (one per rule) for every trace in an ExportTraceServiceRequest onto `out`; returns
 * the traces seen.
 * `hex` turns a span's id field into lowercase hex ('' when absent): ids are hex strings in OTLP/JSON and
 * bytes in OTLP/protobuf.
 */
export function verdictLines(request, hex, out) {
  const traces = new Map();
  for (const rs of request.resourceSpans) {
    for (const ss of rs.scopeSpans) for (const s of ss.spans) addSpan(traces, s, hex);
  }
  for (const [traceId, t] of traces) for (const rule of RULES) out.push(JSON.stringify(entryOf(traceId, t, rule)) + '\n');
  return traces.size;
}
