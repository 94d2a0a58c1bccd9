// Hand-built scored Runs for the telemetry tests (no engine): a decision case in the three tool modes and
// a trajectory case. Every piece of content carries a SECRET- marker so the no-capture test can grep.
import { expect } from 'vitest';
import type { OtlpProtocol, TelemetryConfig } from '../../src/config/telemetry.js';
import type { Case } from '../../src/types/case.js';
import type { ModelCallRecord, Run, ToolCallRecord } from '../../src/types/run.js';
import type { ToolDefinition, ToolMode, Toolset } from '../../src/types/toolset.js';
import type { CaseResult, Verdict } from '../../src/types/verdict.js';

export const T0 = 1_780_000_000_000; // epoch ms, 2026

export const STATUS_TOOL: ToolDefinition = {
  name: 'service_status',
  description: 'Show whether a service is running.',
  parameters: { type: 'object', properties: { name: { type: 'string' }, host: { type: 'string' } }, required: ['name'] },
};
export const RESTART_TOOL: ToolDefinition = {
  name: 'service_restart',
  description: 'Restart a service.',
  parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};
export const SEARCH_TOOL: ToolDefinition = {
  name: 'search_runnables',
  description: 'Search the runnables by keyword.',
  parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

export const TOOLSET: Toolset = {
  name: 'ops',
  runnables: [
    { name: 'service_status', description: 'Show whether a service is running.', category: 'read', args: [], autonomy: 'autonomous', ownHostArg: false },
  ],
  hosts: ['web-1'],
  groups: {},
  source: 'test',
};

export const DECISION_CASE: Case = {
  id: 'check-api',
  suite: 'ops',
  dialect: 'runspec',
  tags: ['smoke'],
  source: { file: 'evals.toml', line: 3, source: 'local' },
  prompt: 'SECRET-PROMPT is the api service up on web-1?',
  files: {},
  mode: 'decision',
  runspec: { tool: ['service_status'], host: 'web-1' },
  settings: {},
};

export const TRAJECTORY_CASE: Case = {
  id: 'fix-typo',
  dialect: 'replio',
  tags: [],
  source: { file: 'fix-typo.json', source: 'local' },
  prompt: 'SECRET-PROMPT fix the typo in README.md',
  files: { 'README.md': 'helo' },
  mode: 'trajectory',
  replio: { expected: ['file_read', 'file_edit'] },
  settings: {},
};

function modelCall(p: Partial<ModelCallRecord> & Pick<ModelCallRecord, 'index' | 'startTimeMs' | 'endTimeMs'>): ModelCallRecord {
  return {
    turn: p.index,
    provider: 'openai',
    requestModel: 'gpt-test',
    responseModel: 'gpt-test-0001',
    request: { messages: [], tools: [], params: {} },
    usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 },
    ...p,
  };
}

/** The decision-mode terminal call per tool mode (name and args as the model spelled them). */
export const TERMINAL_BY_MODE: Record<ToolMode, { name: string; args: Record<string, unknown> }> = {
  dedup: { name: 'service_status', args: { name: 'SECRET-ARG-api', host: 'web-1' } },
  per_host: { name: 'web-1__service_status', args: { name: 'SECRET-ARG-api' } },
  search: { name: 'service_status', args: { name: 'SECRET-ARG-api', host: 'web-1' } },
};

/** Decision run: search mode first calls the discovery tool (executed), then the terminal call. */
export function decisionRun(mode: ToolMode): Run {
  const t = TERMINAL_BY_MODE[mode];
  const tools = mode === 'search' ? [SEARCH_TOOL] : [{ ...STATUS_TOOL, name: t.name }, RESTART_TOOL];
  const system = { role: 'system' as const, content: 'SECRET-SYSTEM you are an ops agent' };
  const user = { role: 'user' as const, content: DECISION_CASE.prompt };
  const calls: ModelCallRecord[] = [];
  const toolCalls: ToolCallRecord[] = [];
  if (mode === 'search') {
    const search = { id: 'call_s1', name: 'search_runnables', arguments: { query: 'SECRET-ARG-status' } };
    calls.push(
      modelCall({
        index: 0,
        startTimeMs: T0 + 10,
        endTimeMs: T0 + 200,
        request: { messages: [system, user], tools, params: { temperature: 0, max_tokens: 512 } },
        response: { toolCalls: [search], finishReason: 'tool_calls' },
        responseId: 'chatcmpl-1',
      }),
    );
    toolCalls.push({
      turn: 0,
      modelCallIndex: 0,
      call: search,
      startTimeMs: T0 + 205,
      endTimeMs: T0 + 210,
      executed: true,
      result: 'SECRET-RESULT service_status: Show whether a service is running.',
    });
    const terminal = { id: 'call_t1', name: t.name, arguments: t.args };
    calls.push(
      modelCall({
        index: 1,
        startTimeMs: T0 + 215,
        endTimeMs: T0 + 400,
        request: {
          messages: [
            system,
            user,
            { role: 'assistant', toolCalls: [search] },
            { role: 'tool', toolCallId: 'call_s1', name: 'search_runnables', content: 'SECRET-RESULT service_status: Show whether a service is running.' },
          ],
          tools: [SEARCH_TOOL, STATUS_TOOL],
          params: { temperature: 0, max_tokens: 512 },
        },
        response: { toolCalls: [terminal], finishReason: 'tool_calls' },
        responseId: 'chatcmpl-2',
      }),
    );
    toolCalls.push({ turn: 1, modelCallIndex: 1, call: terminal, startTimeMs: T0 + 400, endTimeMs: T0 + 400, executed: false });
  } else {
    const terminal = { id: 'call_t1', name: t.name, arguments: t.args };
    calls.push(
      modelCall({
        index: 0,
        startTimeMs: T0 + 10,
        endTimeMs: T0 + 300,
        request: { messages: [system, user], tools, params: { temperature: 0, max_tokens: 512 } },
        response: { text: 'SECRET-TEXT checking', toolCalls: [terminal], finishReason: 'tool_calls' },
        responseId: 'chatcmpl-1',
        serverAddress: 'api.openai.test',
        serverPort: 443,
      }),
    );
    toolCalls.push({ turn: 0, modelCallIndex: 0, call: terminal, startTimeMs: T0 + 300, endTimeMs: T0 + 300, executed: false });
  }
  return {
    caseId: DECISION_CASE.id,
    sample: 1,
    mode: 'decision',
    provider: 'openai',
    model: 'gpt-test',
    toolMode: mode,
    startTimeMs: T0,
    endTimeMs: T0 + 500,
    modelCalls: calls,
    toolCalls,
    terminal: toolCalls[toolCalls.length - 1]!,
    status: 'ok',
    usage: { promptTokens: 100 * calls.length, completionTokens: 20 * calls.length, totalTokens: 120 * calls.length },
  };
}

export function decisionVerdict(mode: ToolMode): Verdict {
  const t = TERMINAL_BY_MODE[mode];
  return {
    caseId: DECISION_CASE.id,
    sample: 1,
    dialect: 'runspec',
    pass: true,
    category: 'pass',
    reason: 'called the expected tool',
    expected: { tool: ['service_status'], host: 'web-1' },
    observed: { tool: 'service_status', host: 'web-1', autonomy: 'autonomous', args: { name: 'SECRET-ARG-api' } },
    toolMode: mode,
    jsonDump: false,
    status: 'ok',
    calls: [{ id: 'call_t1', name: t.name, arguments: t.args }],
  };
}

export const DECISION_RESULT: CaseResult = {
  caseId: DECISION_CASE.id,
  suite: 'ops',
  dialect: 'runspec',
  tags: ['smoke'],
  samples: [],
  passRate: 0.5,
  passRateLow: 0.1,
  passRateHigh: 0.9,
  passAtK: 0.75,
  passHatK: 0.25,
  passK: [],
  threshold: 0.8,
  meetsThreshold: false,
  errored: false,
};

export function trajectoryRun(): Run {
  const user = { role: 'user' as const, content: TRAJECTORY_CASE.prompt };
  const read = { id: 'call_r', name: 'file_read', arguments: { path: 'SECRET-ARG-README.md' } };
  const edit = { id: 'call_e', name: 'file_edit', arguments: { path: 'README.md', old: 'SECRET-ARG-helo', new: 'hello' } };
  const tools: ToolDefinition[] = [
    { name: 'file_read', description: 'Read a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    { name: 'file_edit', description: 'Edit a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  ];
  const params = { temperature: 0.2 };
  const readResult = 'SECRET-RESULT helo';
  const editResult = 'Error: SECRET-RESULT old text not found';
  const calls: ModelCallRecord[] = [
    modelCall({
      index: 0,
      startTimeMs: T0 + 1,
      endTimeMs: T0 + 100,
      provider: 'anthropic',
      requestModel: 'claude-test',
      responseModel: 'claude-test',
      request: { messages: [user], tools, params },
      response: { toolCalls: [read], finishReason: 'tool_use' },
      usage: { promptTokens: 50, completionTokens: 10 },
    }),
    modelCall({
      index: 1,
      startTimeMs: T0 + 120,
      endTimeMs: T0 + 200,
      provider: 'anthropic',
      requestModel: 'claude-test',
      responseModel: 'claude-test',
      request: { messages: [user, { role: 'assistant', toolCalls: [read] }, { role: 'tool', toolCallId: 'call_r', content: readResult }], tools, params },
      response: { toolCalls: [edit], finishReason: 'tool_use' },
      usage: { promptTokens: 80, completionTokens: 15 },
    }),
    modelCall({
      index: 2,
      startTimeMs: T0 + 220,
      endTimeMs: T0 + 300,
      provider: 'anthropic',
      requestModel: 'claude-test',
      responseModel: 'claude-test',
      request: {
        messages: [
          user,
          { role: 'assistant', toolCalls: [read] },
          { role: 'tool', toolCallId: 'call_r', content: readResult },
          { role: 'assistant', toolCalls: [edit] },
          { role: 'tool', toolCallId: 'call_e', content: editResult },
        ],
        tools,
        params,
      },
      response: { text: 'SECRET-FINAL could not fix it', toolCalls: [], finishReason: 'end_turn' },
      usage: { promptTokens: 120, completionTokens: 12 },
    }),
  ];
  return {
    caseId: TRAJECTORY_CASE.id,
    sample: 0,
    mode: 'trajectory',
    provider: 'anthropic',
    model: 'claude-test',
    startTimeMs: T0,
    endTimeMs: T0 + 310,
    modelCalls: calls,
    toolCalls: [
      { turn: 0, modelCallIndex: 0, call: read, startTimeMs: T0 + 101, endTimeMs: T0 + 110, executed: true, result: readResult },
      { turn: 1, modelCallIndex: 1, call: edit, startTimeMs: T0 + 201, endTimeMs: T0 + 210, executed: true, result: editResult, isError: true },
    ],
    finalText: 'SECRET-FINAL could not fix it',
    status: 'ok',
    usage: { promptTokens: 250, completionTokens: 37, totalTokens: 287 },
  };
}

export function trajectoryVerdict(): Verdict {
  return {
    caseId: TRAJECTORY_CASE.id,
    sample: 0,
    dialect: 'replio',
    pass: false,
    category: 'tool_error',
    reason: 'a tool call failed',
    expected: {},
    observed: { tool: 'file_edit' },
    replio: { trace: [], names: ['file_read', 'file_edit'], accuracy: 1, pass: null, calls: 2, redundant: 0, errors: 1, tokens: 287, status: 'ok' },
    match: { matchMode: 'ordered_subset', pass: false, score: 0.5, matched: [0], unmatched: [1], extraTools: [], detail: '' },
    jsonDump: false,
    status: 'ok',
    calls: [],
  };
}

/** Marks an expected attribute whose value is a JSON string: compared after parsing. */
export class JsonValue {
  constructor(readonly value: unknown) {}
}
export const asJson = (value: unknown): JsonValue => new JsonValue(value);

/** Copies `attrs`, checks and deletes every promised key, and returns what is left (expect it to be {}). */
export function takePromised(attrs: Record<string, unknown>, promised: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...attrs };
  for (const [k, v] of Object.entries(promised)) {
    expect(rest, `missing attribute ${k}`).toHaveProperty([k]);
    if (v instanceof JsonValue) {
      expect(typeof rest[k], `${k} is a JSON string`).toBe('string');
      expect(JSON.parse(rest[k] as string), k).toEqual(v.value);
    } else {
      expect(rest[k], k).toEqual(v);
    }
    delete rest[k];
  }
  return rest;
}

/** An enabled telemetry config exporting OTLP to `${url}/v1/traces`, content off, nothing else set. */
export function otlpConfig(url: string, opts: { protocol?: OtlpProtocol; timeoutMs?: number; project?: string } = {}): TelemetryConfig {
  return {
    enabled: true,
    captureContent: false,
    captureHashed: false,
    annotations: false,
    phoenixExperiment: false,
    exporter: { kind: 'otlp', url: `${url}/v1/traces`, protocol: opts.protocol ?? 'http/protobuf', headers: {}, compression: 'none' },
    timeoutMs: opts.timeoutMs ?? 10_000,
    serviceName: 'runspec-test',
    resourceAttributes: {},
    ...(opts.project !== undefined ? { project: opts.project } : {}),
    apiKeyEnv: 'PHOENIX_API_KEY',
    sources: {
      enabled: 'default',
      captureContent: 'default',
      annotations: 'default',
      endpoint: 'env',
      protocol: 'default',
      timeoutMs: 'default',
      annotationsUrl: 'default',
      project: 'default',
      serviceName: 'default',
    },
  };
}
