import { isRunspecError, UsageError } from '../errors.js';
import type { ChatResponse, Provider } from '../providers/types.js';
import { layoutFor, type Layout } from '../toolset/layout.js';
import { WORKSPACE_TOOLSET } from '../toolset/workspace.js';
import type { Case } from '../types/case.js';
import type { Message, ModelCallRecord, Run, RunError, ToolCall, ToolCallRecord, Usage } from '../types/run.js';
import type { ResolvedCall, ToolMode, Toolset } from '../types/toolset.js';
import { deniedReason, permissionsFor, type ToolPermissions } from './permissions.js';
import type { ToolHost } from './mcp-tools.js';
import { answerMock, mockRulesFor, newMockCounters, type MockCounters } from './tool-mocks.js';
import { commandEnvFor, defaultCommandSandbox, executeWorkspaceTool, isWorkspaceTool } from './workspace-tools.js';
import type { CommandSandbox } from './sandbox/command.js';
import { createWorktree, type Worktree } from './worktree.js';
import { withTotal } from '../core/tokens.js';
import { caseInputOf } from '../core/case-input.js';
import { OPERATIONS_SYSTEM_PROMPT, TRAJECTORY_SYSTEM_PROMPT } from '../core/system-prompts.js';

// The headless agent loop. Decision mode (runspec): lay the toolset out, let discovery tools resolve
// for real, capture the first call to a runnable as the terminal action, never execute it. Trajectory
// mode (replio, turnstone): a fresh worktree per run, real workspace tools under permissions, up to
// max_turns model calls. Provider trouble never throws: the Run ends with status error.

/** turnstone's default max_turns. */
export const DEFAULT_MAX_TURNS = 10;
/** Parallel tool calls run per turn; the rest get an error result (turnstone: degenerate repetition). */
export const MAX_PARALLEL_TOOL_CALLS = 10;

/** The system prompt of trajectory runs unless one is configured. */
export const DEFAULT_TRAJECTORY_SYSTEM_PROMPT = TRAJECTORY_SYSTEM_PROMPT;

/**
 * The operations prompt. No longer the default of every decision run: it is the system prompt of the
 * bundled fleet toolset (`builtin:fleet`); other toolsets send none unless one is configured.
 */
export const DEFAULT_DECISION_SYSTEM_PROMPT = OPERATIONS_SYSTEM_PROMPT;

/** One step of a run, for verbose per-turn logs. */
export type TurnEvent =
  | { kind: 'model'; caseId: string; sample: number; turn: number; record: ModelCallRecord }
  | { kind: 'tool'; caseId: string; sample: number; turn: number; record: ToolCallRecord };

export interface RunCaseOptions {
  case: Case;
  /** 0-based sample index. */
  sample: number;
  provider: Provider;
  /** Decision mode: required. Trajectory mode: default the built-in workspace toolset. */
  toolset?: Toolset;
  /** Decision-mode layout. @default 'dedup' */
  toolMode?: ToolMode;
  /** @default case max_turns, else 10 */
  maxTurns?: number;
  /**
   * The run's system prompt; '' sends none. @default the provider's recorded one (replay), else the
   * toolset's (builtin:fleet: the operations prompt), else none in decision mode and
   * DEFAULT_TRAJECTORY_SYSTEM_PROMPT in trajectory mode
   */
  systemPrompt?: string;
  /** Keep the trajectory worktree (its path is on `run.worktree`). */
  keepWorktrees?: boolean;
  /** Abort: the run ends with status cancelled (finished cases are kept by the caller). */
  signal?: AbortSignal;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  /** Default time limit of run_command / bash. @default 30000 */
  commandTimeoutMs?: number;
  /** Extra environment of run_command / bash (the base is minimal: PATH, HOME, LANG). */
  commandEnv?: Record<string, string>;
  /** Per-turn progress (turnstone `-v`): each model call and each tool call as it ends. */
  onTurn?: (event: TurnEvent) => void;
  /** Context window in tokens. @default the provider's `contextWindow` */
  contextWindow?: number;
  /** Runs the tools of MCP toolsets (trajectory mode); without it such calls are not_implemented errors. */
  toolHost?: ToolHost;
  /** Where run_command / bash run. @default bubblewrap, refused with a clear error when it does not work */
  sandbox?: CommandSandbox;
}

/**
 * Run one sample of one case through the model and return its Run. Throws only on bad input (a
 * decision case without a toolset, a case file path that escapes the worktree).
 * @example const run = await runCase({ case: c, sample: 0, provider, toolset, toolMode: 'search' });
 */
export async function runCase(opts: RunCaseOptions): Promise<Run> {
  const c = opts.case;
  if (!c || typeof c.id !== 'string' || typeof c.prompt !== 'string') throw new UsageError('USAGE', 'runCase: expected a Case with an id and a prompt');
  if (!Number.isInteger(opts.sample) || opts.sample < 0)
    throw new UsageError('USAGE', `runCase: case ${c.id}: sample must be a non-negative integer (got ${opts.sample})`);
  const mode = c.mode;
  if (mode === 'decision' && !opts.toolset) {
    throw new UsageError('USAGE', `runCase: case ${c.id} is a decision case and needs a toolset`, {
      hint: 'pass --toolset FILE or set [toolset] file in runspec.toml',
    });
  }
  const maxTurns = opts.maxTurns ?? c.settings.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1)
    throw new UsageError('USAGE', `runCase: case ${c.id}: max_turns must be a positive integer (got ${maxTurns})`);
  const toolset = opts.toolset ?? WORKSPACE_TOOLSET;
  const toolMode: ToolMode = mode === 'decision' ? (opts.toolMode ?? 'dedup') : 'dedup';
  const layout = layoutFor(toolset, toolMode);
  const tools = layout.tools();

  const run: Run = {
    caseId: c.id,
    sample: opts.sample,
    mode,
    provider: opts.provider.name,
    startTimeMs: Date.now(),
    endTimeMs: 0,
    modelCalls: [],
    toolCalls: [],
    status: 'ok',
    usage: {},
  };
  const model = opts.model ?? opts.provider.model;
  if (model) run.model = model;
  if (mode === 'decision') run.toolMode = toolMode;

  let worktree: Worktree | undefined;
  if (mode === 'trajectory') {
    const place = c.source?.line ? `${c.source.file}:${c.source.line}` : (c.source?.file ?? c.id);
    // As root, the worktree is a tmpfs of the disk budget; a kept worktree stays on disk (a mount point cannot be renamed).
    // A toolset without command tools gets none: only a command can write big files (file tools write what
    // the model sends), and the budget is checked only while a command runs anyway.
    const sandbox = opts.sandbox ?? defaultCommandSandbox();
    const runsCommands = toolset.runnables.some((r) => !r.hidden && (r.name === 'bash' || r.name === 'run_command'));
    const mount = runsCommands && !opts.keepWorktrees && sandbox.mountWorktree ? (root: string) => sandbox.mountWorktree!(root) : undefined;
    worktree = await createWorktree(c.files ?? {}, { place: `${place}: case ${c.id}`, ...(mount ? { mount } : {}) });
  }
  // Tool permissions and mock counters are for trajectory turns; a decision run never reads them.
  const perms = mode !== 'decision' ? permissionsFor(c) : undefined;
  const mocks = mode !== 'decision' ? newMockCounters() : undefined;
  // The case's own system prompt wins over the run's; vars fill the prompt, history and system prompt.
  const fallback =
    opts.systemPrompt ?? opts.provider.systemPrompt ?? opts.toolset?.systemPrompt ?? (mode === 'decision' ? undefined : DEFAULT_TRAJECTORY_SYSTEM_PROMPT);
  const input = caseInputOf(c, fallback === undefined ? {} : { system: fallback });
  const messages: Message[] = [];
  if (input.system) messages.push({ role: 'system', content: input.system });
  for (const m of input.messages) messages.push({ role: m.role, content: m.content });
  messages.push({ role: 'user', content: input.prompt });

  const cancel = (): void => {
    run.status = 'cancelled';
    run.error = { code: 'CANCELLED', message: 'the run was cancelled' };
  };

  try {
    for (let turn = 0; turn < maxTurns; turn++) {
      if (opts.signal?.aborted) {
        cancel();
        break;
      }
      const sent = messages.slice();
      const startTimeMs = Date.now();
      let res: ChatResponse;
      try {
        res = await opts.provider.chat({
          messages: sent,
          tools,
          model: opts.model,
          temperature: opts.temperature,
          maxTokens: opts.maxTokens,
          signal: opts.signal,
          key: { caseId: c.id, sample: opts.sample, turn },
        });
      } catch (err) {
        const error = toRunError(err);
        run.modelCalls.push({
          index: run.modelCalls.length,
          turn,
          startTimeMs,
          endTimeMs: Date.now(),
          provider: opts.provider.system,
          ...(model ? { requestModel: model } : {}),
          request: { messages: sent, tools, params: intendedParams(opts) },
          usage: {},
          error,
        });
        opts.onTurn?.({ kind: 'model', caseId: c.id, sample: opts.sample, turn, record: run.modelCalls.at(-1)! });
        if (opts.signal?.aborted || error.code === 'CANCELLED') cancel();
        else {
          run.status = 'error';
          run.error = error;
        }
        break;
      }
      const record = modelCallRecord(run.modelCalls.length, turn, startTimeMs, opts.provider, sent, tools, res);
      run.modelCalls.push(record);
      opts.onTurn?.({ kind: 'model', caseId: c.id, sample: opts.sample, turn, record });
      if (!run.model && res.requestModel) run.model = res.requestModel;
      if (res.text !== undefined) run.finalText = res.text;
      else delete run.finalText;
      messages.push({
        role: 'assistant',
        ...(res.reasoning ? { reasoning: res.reasoning } : {}),
        ...(res.text !== undefined ? { content: res.text } : {}),
        ...(res.toolCalls.length > 0 ? { toolCalls: res.toolCalls } : {}),
      });
      if (res.toolCalls.length === 0) break;
      // turnstone --context-window: a conversation that filled the window cannot take another turn.
      const window = opts.contextWindow ?? opts.provider.contextWindow;
      const used = record.usage.totalTokens ?? 0;
      if (mode === 'trajectory' && window !== undefined && used >= window) run.status = 'truncated';

      const ended =
        mode === 'decision'
          ? decisionTurn({ run, layout, calls: res.toolCalls, turn, index: record.index, messages })
          : await trajectoryTurn({
              run,
              layout,
              calls: res.toolCalls,
              turn,
              index: record.index,
              messages,
              worktree: worktree!,
              perms: perms!,
              opts,
              mocks: mocks!,
            });
      if (ended || run.status === 'truncated') break;
      if (opts.signal?.aborted) {
        cancel();
        break;
      }
      // The last allowed model call still asked for tools: trajectory runs are truncated; a decision
      // run that only explored has made no runnable call, which scoring calls no_run.
      if (turn === maxTurns - 1 && mode === 'trajectory') run.status = 'truncated';
    }
  } finally {
    if (worktree) {
      if (opts.keepWorktrees) run.worktree = await worktree.keep().catch(() => worktree!.root);
      else await worktree.remove().catch(() => undefined);
    }
  }
  run.endTimeMs = Date.now();
  run.usage = sumUsage(run.modelCalls);
  return run;
}

interface TurnContext {
  run: Run;
  layout: Layout;
  calls: ToolCall[];
  turn: number;
  /** Index of the model call that asked for these calls. */
  index: number;
  messages: Message[];
}

/** Decision mode: answer discovery calls, stop at the first other call. Returns true when the run ended. */
function decisionTurn(t: TurnContext): boolean {
  let terminal: ToolCallRecord | undefined;
  t.calls.forEach((call, i) => {
    const resolved = t.layout.resolve(call);
    const now = Date.now();
    const base = { turn: t.turn, modelCallIndex: t.index, call, startTimeMs: now, resolved };
    if (terminal || !t.layout.isDiscovery(call.name)) {
      // Captured, never executed; calls after the terminal one in the same turn are observed only.
      const rec: ToolCallRecord = { ...base, endTimeMs: now, executed: false };
      t.run.toolCalls.push(rec);
      terminal ??= rec;
      return;
    }
    const executed = i < MAX_PARALLEL_TOOL_CALLS;
    const result = executed ? t.layout.answerDiscovery(call) : overCapMessage();
    t.run.toolCalls.push({ ...base, endTimeMs: Date.now(), executed, result, isError: result.startsWith('Error') });
    t.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result });
  });
  if (terminal) t.run.terminal = terminal;
  return terminal !== undefined;
}

const overCapMessage = () => `Error: too many parallel tool calls (at most ${MAX_PARALLEL_TOOL_CALLS} per turn); this call was not run`;

/** Trajectory mode: run each call for real (under permissions and the parallel cap), feed results back. */
async function trajectoryTurn(t: TurnContext & { worktree: Worktree; perms: ToolPermissions; opts: RunCaseOptions; mocks: MockCounters }): Promise<boolean> {
  const toolset = t.layout.toolset;
  const byName = new Map(toolset.runnables.map((r) => [r.name, r]));
  for (const [i, call] of t.calls.entries()) {
    const startTimeMs = Date.now();
    const resolved: ResolvedCall = t.layout.resolve(call);
    const rec: ToolCallRecord = { turn: t.turn, modelCallIndex: t.index, call, startTimeMs, endTimeMs: startTimeMs, executed: false, resolved };
    const fail = (errorType: string, result: string): void => {
      rec.result = result;
      rec.isError = true;
      rec.errorType = errorType;
    };
    const name = resolved.known && resolved.runnable ? resolved.runnable : call.name;
    const runnable = byName.get(name);
    if (i >= MAX_PARALLEL_TOOL_CALLS) {
      // Dropped, not failed: the model is told, but the call counts neither as a call nor as an error.
      rec.dropped = true;
      rec.result = overCapMessage();
    } else if (!runnable || runnable.hidden) fail('unknown_tool', `Error: unknown tool "${call.name}"`);
    else {
      const denied = deniedReason(t.perms, runnable);
      const mockRules = mockRulesFor(t.opts.case, toolset, name);
      if (denied) fail('permission_denied', `Error: permission denied: ${denied}`);
      else if (mockRules) {
        const answer = answerMock(mockRules, name, call.arguments, t.mocks);
        rec.mocked = true;
        rec.executed = answer.matched;
        rec.result = answer.result;
        rec.isError = answer.isError === true;
        if (!answer.matched) rec.errorType = 'no_mock_match';
      } else if (t.opts.toolHost?.handles(toolset)) {
        rec.executed = true;
        const out = await t.opts.toolHost.call(toolset, name, call.arguments, { signal: t.opts.signal });
        rec.result = out.result;
        rec.isError = out.isError;
        if (out.errorType) {
          rec.errorType = out.errorType;
          rec.executed = false;
        }
        if (out.stop) {
          // The server died under this call: the harness failed, not the model.
          t.run.status = 'error';
          t.run.error = { ...out.stop };
        }
        if (out.structuredContent !== undefined) rec.structuredContent = out.structuredContent;
      } else if (isWorkspaceTool(name)) {
        rec.executed = true;
        const out = await executeWorkspaceTool(name, call.arguments, {
          worktree: t.worktree,
          commandTimeoutMs: t.opts.commandTimeoutMs,
          commandEnv: commandEnvFor(t.worktree.root, t.opts.commandEnv),
          ...(t.opts.sandbox ? { sandbox: t.opts.sandbox } : {}),
          signal: t.opts.signal,
        });
        rec.result = out.result;
        rec.isError = out.isError;
        if (out.stop) {
          // The workspace, not the model's answer, ends the case: the sample fails with this error.
          t.run.status = 'error';
          t.run.error = out.stop;
        }
      } else {
        fail(
          'not_implemented',
          `Error: tool "${call.name}" has no implementation in trajectory mode and no mock (add tool_mocks to the case or [mocks] to the toolset)`,
        );
      }
    }
    rec.endTimeMs = Date.now();
    t.run.toolCalls.push(rec);
    t.opts.onTurn?.({ kind: 'tool', caseId: t.opts.case.id, sample: t.opts.sample, turn: t.turn, record: rec });
    t.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: rec.result ?? '', ...(rec.isError ? { isError: true } : {}) });
    if (t.run.status === 'error') return true;
  }
  return false;
}

function modelCallRecord(
  index: number,
  turn: number,
  startTimeMs: number,
  provider: Provider,
  messages: Message[],
  tools: ModelCallRecord['request']['tools'],
  res: ChatResponse,
): ModelCallRecord {
  const rec: ModelCallRecord = {
    index,
    turn,
    startTimeMs,
    endTimeMs: Date.now(),
    provider: provider.system,
    request: { messages, tools, params: res.params },
    response: { toolCalls: res.toolCalls },
    usage: withTotal(res.usage),
    latencyMs: res.latencyMs,
  };
  const requestModel = res.requestModel ?? provider.model;
  if (requestModel) rec.requestModel = requestModel;
  if (res.responseModel) rec.responseModel = res.responseModel;
  if (res.responseId) rec.responseId = res.responseId;
  if (res.serverAddress) rec.serverAddress = res.serverAddress;
  if (res.serverPort !== undefined) rec.serverPort = res.serverPort;
  if (res.text !== undefined) rec.response!.text = res.text;
  if (res.finishReason !== undefined) rec.response!.finishReason = res.finishReason;
  return rec;
}

function intendedParams(opts: RunCaseOptions): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  if (opts.temperature !== undefined) p.temperature = opts.temperature;
  if (opts.maxTokens !== undefined) p.max_tokens = opts.maxTokens;
  return p;
}

// Reads the records, not a `.map` of their usages: once runCase is optimised its inlined `.map` makes a
// holey array where the interpreter's was packed, and the loop over it deoptimised runCase ("wrong map").
function sumUsage(calls: readonly ModelCallRecord[]): Usage {
  const out: Usage = {};
  for (const c of calls) {
    const w = withTotal(c.usage);
    if (w.promptTokens !== undefined) out.promptTokens = (out.promptTokens ?? 0) + w.promptTokens;
    if (w.completionTokens !== undefined) out.completionTokens = (out.completionTokens ?? 0) + w.completionTokens;
    if (w.totalTokens !== undefined) out.totalTokens = (out.totalTokens ?? 0) + w.totalTokens;
  }
  return out;
}

function toRunError(err: unknown): RunError {
  if (isRunspecError(err)) return { code: err.code, message: err.message };
  return { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}
