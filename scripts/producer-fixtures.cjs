#!/usr/bin/env node
// Re-make the npm producers' fixtures in test/traces/fixtures/producers/ (the python-* ones there are copies of the
// integration tier's output, test/integration/producers.test.ts): OTLP JSON lines written by real npm instrumentations
// (devDependencies, pinned for Node 20) driven against a local fake OpenAI server, content on and off.
//
//   node scripts/producer-fixtures.cjs            (all producers, both content settings)
//
// Each producer and setting runs in its own process (an instrumentation patches `openai` once per
// process). Every scenario is one trace whose resource names the agent (`service.name`), which is what the
// cases in test/traces/producer-families.test.ts match on: with content off nothing else tells them apart.
// CommonJS on purpose: the instrumentations hook `require`.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const OUT_DIR = path.join(__dirname, '..', 'test', 'traces', 'fixtures', 'producers');
const PRODUCERS = ['contrib-openai', 'openllmetry', 'openinference', 'openinference-agent', 'ai-sdk-6'];

/** What the fake model answers, by agent: a tool call or a text answer. */
const SCENARIOS = [
  { agent: 'weather-agent', prompt: 'What is the weather in Paris?', call: { name: 'get_weather', arguments: { city: 'Paris' } } },
  { agent: 'news-agent', prompt: 'Any news about the weather?', call: { name: 'search', arguments: { q: 'weather news' } } },
  { agent: 'ops-agent', prompt: 'Is nginx running?', call: { name: 'restart_service', arguments: { name: 'nginx' } } },
  { agent: 'chat-agent', prompt: 'Say hello.', text: 'Hello!' },
];
const TOOLS = ['get_weather', 'search', 'restart_service', 'service_status'].map((name) => ({
  type: 'function',
  function: {
    name,
    description: `${name} tool`,
    parameters: { type: 'object', properties: { city: { type: 'string' }, q: { type: 'string' }, name: { type: 'string' } } },
  },
}));

function startFakeOpenAI() {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = JSON.parse(body || '{}');
      const user = (json.messages ?? [])
        .filter((m) => m.role === 'user')
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
        .join(' ');
      const hadTool = (json.messages ?? []).some((m) => m.role === 'tool');
      const s = SCENARIOS.find((x) => user.includes(x.prompt)) ?? SCENARIOS[3];
      const message =
        s.call && !hadTool
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: `call_${s.call.name}`, type: 'function', function: { name: s.call.name, arguments: JSON.stringify(s.call.arguments) } }],
            }
          : { role: 'assistant', content: s.text ?? 'Done.' };
      const reply = {
        id: 'chatcmpl-fixture',
        object: 'chat.completion',
        created: 1767225600,
        model: 'gpt-4o-mini-2024-07-18',
        choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** One tracer (and logger) provider per scenario, so each trace carries its agent's resource. */
function providers(agent) {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { LoggerProvider, InMemoryLogRecordExporter, SimpleLogRecordProcessor } = require('@opentelemetry/sdk-logs');
  const { resourceFromAttributes } = require('@opentelemetry/resources');
  const resource = resourceFromAttributes({ 'service.name': agent });
  const spans = new InMemorySpanExporter();
  const logs = new InMemoryLogRecordExporter();
  const tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(spans)] });
  const loggerProvider = new LoggerProvider({ resource, processors: [new SimpleLogRecordProcessor({ exporter: logs })] });
  return { tracerProvider, loggerProvider, spans, logs };
}

function otlpLines(p) {
  const { JsonTraceSerializer, JsonLogsSerializer } = require('@opentelemetry/otlp-transformer');
  const lines = [];
  const finished = p.spans.getFinishedSpans();
  if (finished.length) lines.push(Buffer.from(JsonTraceSerializer.serializeRequest(finished)).toString('utf8'));
  const records = p.logs.getFinishedLogRecords();
  if (records.length) lines.push(Buffer.from(JsonLogsSerializer.serializeRequest(records)).toString('utf8'));
  return lines;
}

/** Instrument `openai` for one producer; returns a function that points the instrumentation at a scenario's providers. */
function instrument(producer, content) {
  if (producer === 'contrib-openai') {
    const { OpenAIInstrumentation } = require('@opentelemetry/instrumentation-openai');
    const inst = new OpenAIInstrumentation({ captureMessageContent: content });
    return (p) => {
      inst.setTracerProvider(p.tracerProvider);
      inst.setLoggerProvider(p.loggerProvider);
    };
  }
  if (producer === 'openllmetry') {
    const { OpenAIInstrumentation } = require('@traceloop/instrumentation-openai');
    const inst = new OpenAIInstrumentation({ traceContent: content, enrichTokens: false });
    // Its manual entry point takes the class (Chat, Completions as statics), not the module.
    inst.manuallyInstrument(require('openai').OpenAI);
    return (p) => inst.setTracerProvider(p.tracerProvider);
  }
  if (producer === 'openinference' || producer === 'openinference-agent') {
    const { OpenAIInstrumentation } = require('@arizeai/openinference-instrumentation-openai');
    const inst = new OpenAIInstrumentation({ traceConfig: { hideInputs: !content, hideOutputs: !content } });
    inst.manuallyInstrument(require('openai'));
    return (p) => inst.setTracerProvider(p.tracerProvider);
  }
  throw new Error(`unknown producer ${producer}`);
}

/**
 * `openinference-agent`: the agent loop an OpenInference user writes with @arizeai/openinference-core (the
 * instrumentation's own helper library): an AGENT span around the model call, each tool call run through
 * `traceTool` (a TOOL span named by `tool.name`), its result sent back. The helpers' tracer is an OITracer with
 * the same hide switches as the instrumentation.
 */
async function agentLoop(client, p, s, content) {
  const { OITracer, traceAgent, traceTool } = require('@arizeai/openinference-core');
  const tracer = new OITracer({ tracer: p.tracerProvider.getTracer('agent'), traceConfig: { hideInputs: !content, hideOutputs: !content } });
  const tools = Object.fromEntries(
    TOOLS.map((t) => {
      const name = t.function.name;
      return [name, traceTool(async (args) => `${name}: ok (${args})`, { name, tracer, attributes: { 'tool.name': name } })];
    }),
  );
  const run = traceAgent(
    async (prompt) => {
      const messages = [{ role: 'user', content: prompt }];
      const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS });
      const calls = reply.choices[0].message.tool_calls ?? [];
      if (!calls.length) return reply.choices[0].message.content;
      messages.push(reply.choices[0].message);
      for (const c of calls) messages.push({ role: 'tool', tool_call_id: c.id, content: await tools[c.function.name](c.function.arguments) });
      const final = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS });
      return final.choices[0].message.content;
    },
    { name: s.agent, tracer },
  );
  await run(s.prompt);
}

async function driveOpenAI(producer, content, baseURL) {
  const point = instrument(producer, content);
  const OpenAI = require('openai');
  const client = new (OpenAI.OpenAI ?? OpenAI)({ apiKey: 'sk-fixture', baseURL });
  const lines = [];
  for (const s of SCENARIOS) {
    const p = providers(s.agent);
    point(p);
    if (producer === 'openinference-agent') await agentLoop(client, p, s, content);
    else await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: s.prompt }], tools: TOOLS });
    await p.tracerProvider.forceFlush();
    await p.loggerProvider.forceFlush();
    lines.push(...otlpLines(p));
  }
  return lines;
}

async function driveAiSdk(content, baseURL) {
  const { generateText, tool, jsonSchema } = require('ai');
  const { createOpenAI } = require('@ai-sdk/openai');
  const openai = createOpenAI({ apiKey: 'sk-fixture', baseURL });
  const tools = Object.fromEntries(
    TOOLS.map((t) => [
      t.function.name,
      tool({ description: t.function.description, inputSchema: jsonSchema(t.function.parameters), execute: async () => 'ok' }),
    ]),
  );
  const lines = [];
  for (const s of SCENARIOS) {
    const p = providers(s.agent);
    await generateText({
      model: openai.chat('gpt-4o-mini'),
      prompt: s.prompt,
      tools,
      experimental_telemetry: { isEnabled: true, recordInputs: content, recordOutputs: content, tracer: p.tracerProvider.getTracer('ai') },
    });
    await p.tracerProvider.forceFlush();
    lines.push(...otlpLines(p));
  }
  return lines;
}

async function child(producer, content, out) {
  // Parent spans reach their children through the active context (the AI SDK's generateText → doGenerate).
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  require('@opentelemetry/api').context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const server = await startFakeOpenAI();
  const baseURL = `http://127.0.0.1:${server.address().port}/v1`;
  try {
    const lines = producer === 'ai-sdk-6' ? await driveAiSdk(content, baseURL) : await driveOpenAI(producer, content, baseURL);
    fs.writeFileSync(out, lines.join('\n') + '\n');
  } finally {
    server.close();
  }
}

function main() {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  for (const producer of PRODUCERS) {
    for (const content of ['on', 'off']) {
      const out = path.join(OUT_DIR, `${producer}-content-${content}.jsonl`);
      const r = spawnSync(process.execPath, [__filename, '--child', producer, content, out], { stdio: 'inherit', timeout: 60_000 });
      if (r.status !== 0) {
        process.stderr.write(`${producer} content ${content}: failed (exit ${r.status})\n`);
        process.exitCode = 1;
        continue;
      }
      process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
    }
  }
}

if (process.argv[2] === '--child') {
  child(process.argv[3], process.argv[4] === 'on', process.argv[5]).catch((err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
} else main();
