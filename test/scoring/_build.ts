// Builders for hand-made cases and runs (scoring tests are pure: no engine, no provider).
import type { Case, Run, RunStatus, ToolCall, ToolCallRecord } from '../../src/types/index.js';

export function makeCase(partial: Partial<Case> & { id?: string }): Case {
  return {
    id: partial.id ?? 'case',
    dialect: partial.dialect ?? 'runspec',
    tags: partial.tags ?? [],
    source: partial.source ?? { file: 'test.toml', source: 'file' },
    prompt: partial.prompt ?? 'do something',
    files: partial.files ?? {},
    mode: partial.mode ?? 'decision',
    settings: partial.settings ?? {},
    ...partial,
  } as Case;
}

export type CallSpec = {
  name: string;
  arguments?: Record<string, unknown>;
  result?: string;
  isError?: boolean;
  /** The trace carried no arguments for this call (content capture off). */
  absent?: boolean;
  argumentHashes?: Record<string, string>;
};

export function makeRun(
  opts: {
    calls?: CallSpec[];
    finalText?: string;
    status?: RunStatus;
    error?: { code: string; message: string };
    /** Mark the first call whose name is not a discovery tool as the decision-mode terminal call. */
    terminal?: boolean;
    sample?: number;
    usage?: Run['usage'];
    toolMode?: Run['toolMode'];
  } = {},
): Run {
  const records: ToolCallRecord[] = (opts.calls ?? []).map((c, i) => {
    const call: ToolCall = { id: `call_${i}`, name: c.name, arguments: c.arguments ?? {} };
    if (c.absent) call.argumentsAbsent = true;
    if (c.argumentHashes) call.argumentHashes = c.argumentHashes;
    const record: ToolCallRecord = { turn: 0, modelCallIndex: 0, call, startTimeMs: 0, endTimeMs: 0, executed: !opts.terminal };
    if (c.result !== undefined) record.result = c.result;
    if (c.isError !== undefined) record.isError = c.isError;
    return record;
  });
  const run: Run = {
    caseId: 'case',
    sample: opts.sample ?? 0,
    mode: opts.terminal ? 'decision' : 'trajectory',
    provider: 'mock',
    startTimeMs: 0,
    endTimeMs: 0,
    modelCalls: [],
    toolCalls: records,
    status: opts.status ?? 'ok',
    usage: opts.usage ?? {},
  };
  if (opts.toolMode) run.toolMode = opts.toolMode;
  if (opts.terminal) {
    const t = records.find((r) => !['search_runnables', 'describe_runnable', 'describe_tool'].includes(r.call.name));
    if (t) run.terminal = t;
  }
  if (opts.finalText !== undefined) run.finalText = opts.finalText;
  if (opts.error) run.error = opts.error;
  return run;
}
