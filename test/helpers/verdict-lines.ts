// Reading `score --output jsonl` / `serve` verdict lines in tests. A line is a run entry of the results
// document (src/report/verdict-line.ts); `verdictView` lays one out flat (trace ids, the verdict's category
// and reason, calls with their arguments) so assertions read like the judgement they check.
import { runEntryCalls, type RunEntry } from '../../src/report/results.js';
import { traceRunEntry } from '../../src/report/verdict-line.js';
import type { TraceVerdictLine } from '../../src/types/trace-verdict.js';

export interface VerdictView {
  traceId: string;
  rootSpanId: string;
  case?: string;
  rule?: string;
  suite?: string;
  sample: number;
  status: RunEntry['status'];
  category: string | null;
  pass: boolean | null;
  reason: string;
  checks?: Array<Record<string, unknown>>;
  traceUrl?: string;
  revision?: number;
  final?: boolean;
  supersedes?: boolean;
  incomplete?: boolean;
  evicted?: boolean;
  mode?: string;
  producers?: string[];
  family?: string;
  calls: Array<{ id?: string; name: string; arguments: Record<string, unknown>; executed?: boolean; isError?: boolean; reconstructed?: boolean }>;
}

/** One verdict line, flat. */
export function verdictView(line: RunEntry): VerdictView {
  const args = runEntryCalls(line);
  const view: VerdictView = {
    traceId: line.trace_id!,
    rootSpanId: line.root_span_id!,
    sample: line.sample,
    status: line.status,
    category: line.verdict?.category ?? null,
    pass: line.pass,
    reason: line.verdict?.reason ?? line.detail,
    calls: line.calls.map((c, i) => {
      const call: VerdictView['calls'][number] = { name: c.name, arguments: args[i]!.arguments };
      if (c.id !== undefined) call.id = c.id;
      if (c.executed !== undefined) call.executed = c.executed;
      if (c.is_error) call.isError = true;
      if (c.reconstructed) call.reconstructed = true;
      return call;
    }),
  };
  const optional = {
    case: line.case,
    rule: line.rule,
    suite: line.suite,
    checks: line.verdict?.checks,
    traceUrl: line.trace_url,
    revision: line.revision,
    final: line.final,
    supersedes: line.supersedes,
    incomplete: line.incomplete,
    evicted: line.evicted,
    mode: line.mode,
    producers: line.producers,
    family: line.family,
  };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) (view as unknown as Record<string, unknown>)[k] = v;
  return view;
}

/** The verdict lines of a JSON-lines text (other kinds of line, such as `{"kind":"late"}`, are left out), flat. */
export function verdictLines(text: string): VerdictView[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RunEntry & { kind?: string })
    .filter((l) => l.kind === undefined)
    .map(verdictView);
}

/** A verdict line as `serve --out` writes it (a run entry), from a judgement with its verdict. */
export type Judgement = Omit<TraceVerdictLine, 'verdict' | 'revision' | 'final'> & { revision?: number; final?: boolean };
export function writtenLine(l: Judgement): RunEntry {
  const verdict: TraceVerdictLine['verdict'] =
    l.category === null
      ? null
      : {
          caseId: l.case ?? `rule:${l.rule}`,
          sample: l.sample,
          dialect: l.rule !== undefined ? 'rule' : 'runspec',
          pass: l.pass === true,
          category: l.category,
          reason: l.reason,
          expected: {},
          observed: {},
          jsonDump: false,
          status: 'ok',
          calls: [],
          trace: { traceId: l.traceId, rootSpanId: l.rootSpanId },
        };
  return traceRunEntry({ revision: 0, final: true, ...l, verdict });
}
