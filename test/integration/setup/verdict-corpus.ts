// A small production-like trace corpus for the Collector and Prometheus tests: GenAI-convention agent
// traces (a root, one chat span with the model's tool calls, execute_tool spans), graded by two cases and
// two rules, with passing, failing, errored and unscorable outcomes; and the CLI as a process around it.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OtlpSpan, OtlpTraceRequest } from '../../../src/traces/otlp-types.js';
import { request, span, traceId } from '../../traces/_otlp.js';
import { CLI } from '../../helpers/run-cli.js';
import { startProc, type Proc } from './collector.js';
import type { RunEntry } from '../../../src/report/results.js';
import { verdictView } from '../../helpers/verdict-lines.js';

export interface AgentTraceSpec {
  /** Trace number (ids derive from it). */
  t: number;
  prompt: string;
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  /** Extra root attributes (e.g. runspec.eval.case_id). */
  root?: Record<string, unknown>;
  service?: string;
  /** The root ends in error: an errored run. */
  error?: boolean;
  /** Incompressible bytes on the chat span (to make files rotate). */
  padBytes?: number;
}

/** The spans of one agent trace. */
export function agentSpans(s: AgentTraceSpec): OtlpSpan[] {
  const parts = s.calls.map((c, i) => ({ type: 'tool_call', id: `c${s.t}_${i}`, name: c.name, arguments: c.args }));
  const chat: Record<string, unknown> = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: s.prompt }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', finish_reason: 'tool_call', parts }]),
  };
  if (s.padBytes) chat['app.padding'] = randomBytes(s.padBytes).toString('base64');
  return [
    span({
      trace: s.t,
      id: 1,
      name: 'invoke_agent',
      start: 0,
      end: 100,
      attrs: { 'gen_ai.operation.name': 'invoke_agent', ...s.root },
      ...(s.error ? { error: true } : {}),
    }),
    span({ trace: s.t, id: 2, parent: 1, name: 'chat m', start: 1, end: 10, attrs: chat }),
    ...s.calls.map((c, i) =>
      span({
        trace: s.t,
        id: 10 + i,
        parent: 1,
        name: `execute_tool ${c.name}`,
        start: 11 + i,
        end: 12 + i,
        attrs: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': c.name,
          'gen_ai.tool.call.id': `c${s.t}_${i}`,
        },
      }),
    ),
  ];
}

export function agentTrace(s: AgentTraceSpec): OtlpTraceRequest {
  return request(agentSpans(s), { 'service.name': s.service ?? 'agent' });
}

export const SUITE = {
  cases: [
    {
      id: 'read-readme',
      user_prompt: 'read the readme',
      match: { prompt: '(?i)\\breadme\\b' },
      expected_actions: [{ tool: 'file_read', args: { path: 'README.md' } }],
    },
    { id: 'find-todos', user_prompt: 'find TODOs', expected_actions: [{ tool: 'grep', args: { pattern: 'TODO' } }] },
    {
      id: 'list-files',
      user_prompt: 'list the files',
      match: { prompt: '(?i)\\blist the files\\b' },
      expected_actions: [{ tool: 'list_dir', args: { path: '.' } }],
    },
  ],
};

/** `no-shell` judges every trace; `valid-arguments` has no toolset here, so it is unscorable where it applies. */
export const RULES = `[[rule]]
name = "no-shell"
forbid_tools = ["bash", "run_command"]

[[rule]]
name = "valid-arguments"
validate_args = true

[rule.match]
attributes = { "service.name" = "unscorable-agent" }
`;

/** A temp project: suite.json, rules.toml, its own HOME, XDG_CONFIG_HOME and TMPDIR. */
export function makeProject(prefix: string): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'suite.json'), JSON.stringify(SUITE));
  writeFileSync(join(dir, 'rules.toml'), RULES);
  for (const d of ['home', 'xdg', 'tmp']) mkdirSync(join(dir, d));
  return { dir, env: { HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'xdg'), TMPDIR: join(dir, 'tmp'), NO_COLOR: '1', PATH: process.env.PATH ?? '' } };
}

/** A mixed corpus: passing and failing cases, a forbidden shell call, the given trace numbers. */
export function mixedCorpus(first: number, count: number, opts: { padEvery?: number; padBytes?: number } = {}): OtlpTraceRequest[] {
  const out: OtlpTraceRequest[] = [];
  for (let i = 0; i < count; i++) {
    const t = first + i;
    const pad = opts.padEvery && i % opts.padEvery === 0 ? { padBytes: opts.padBytes ?? 200_000 } : {};
    const kind = i % 4;
    if (kind === 0) out.push(agentTrace({ t, prompt: 'please read the README', calls: [{ name: 'file_read', args: { path: 'README.md' } }], ...pad }));
    else if (kind === 1) out.push(agentTrace({ t, prompt: 'read the readme now', calls: [{ name: 'bash', args: { command: 'cat README.md' } }], ...pad }));
    else if (kind === 2)
      out.push(
        agentTrace({
          t,
          prompt: 'look for todo markers',
          calls: [{ name: 'grep', args: { pattern: 'TODO' } }],
          root: { 'runspec.eval.case_id': 'find-todos' },
          ...pad,
        }),
      );
    else
      out.push(
        agentTrace({
          t,
          prompt: 'look for todo markers',
          calls: [{ name: 'glob', args: { pattern: '**/*' } }],
          root: { 'runspec.eval.case_id': 'find-todos' },
          ...pad,
        }),
      );
  }
  return out;
}

export { traceId };

/** POST an OTLP/JSON trace request; throws on a non-2xx answer. */
export async function postTraces(url: string, body: OtlpTraceRequest, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url}/v1/traces: HTTP ${res.status} ${text}`);
}

/**
 * Verdict lines as a comparable set: one sorted JSON string per line, without the fields that say when a
 * trace was judged rather than what the verdict is (supersedes, revision, final).
 */
export function verdictSet(jsonl: string): string[] {
  return jsonl
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      // Raw lines (run entries) and lines already laid out flat compare alike.
      const raw = JSON.parse(l) as Record<string, unknown>;
      const flat: Record<string, unknown> = typeof raw.trace_id === 'string' ? { ...verdictView(raw as unknown as RunEntry) } : raw;
      const { supersedes: _s, revision: _r, final: _f, ...verdict } = flat;
      return JSON.stringify(verdict);
    })
    .sort();
}

/** `runspec-eval score` as a process; resolves with its exit code and output. */
export async function scoreCli(dir: string, env: Record<string, string>, inputs: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  const proc = startProc(process.execPath, [CLI, 'score', ...inputs, '--cases', 'suite.json', '--rules', 'rules.toml', '--output', 'jsonl'], {
    env,
    cwd: dir,
    stdout: (c) => {
      stdout += c;
    },
  });
  const code = await proc.exited;
  return { code, stdout, stderr: proc.output() };
}

/** `runspec-eval serve` as a process, with its URLs once it listens. */
export interface ServeProc extends Proc {
  url: string;
  grpcUrl?: string;
  /** Verdict lines written so far (stdout). */
  lines(): Array<Record<string, unknown>>;
}

let helpText: Promise<string> | undefined;

/**
 * `--reopen-window MS` where serve has it (the revision model: lines become final when it closes), so the
 * tests wait seconds, not its 60 s default; without it a judged trace stays open for 10 × --quiet-ms.
 */
async function reopenWindowArgs(env: Record<string, string>, ms: number): Promise<string[]> {
  helpText ??= new Promise((resolve) => {
    const p = startProc(process.execPath, [CLI, 'serve', '--help'], { env });
    void p.exited.then(() => resolve(p.output()));
  });
  return (await helpText).includes('--reopen-window') ? ['--reopen-window', String(ms)] : [];
}

export async function startServe(dir: string, env: Record<string, string>, args: string[], opts: { reopenWindowMs?: number } = {}): Promise<ServeProc> {
  let stdout = '';
  const reopen = await reopenWindowArgs(env, opts.reopenWindowMs ?? 3000);
  const proc = startProc(process.execPath, [CLI, 'serve', '--cases', 'suite.json', '--rules', 'rules.toml', ...reopen, ...args], {
    env,
    cwd: dir,
    stdout: (c) => {
      stdout += c;
    },
  });
  const deadline = Date.now() + 30_000;
  const grpc = args.includes('--grpc');
  for (;;) {
    const out = proc.output();
    const http = /listening on (http:\/\/[^\s]+)/.exec(out)?.[1];
    const g = /OTLP\/gRPC on ([^\s]+)/.exec(out)?.[1];
    if (http && (!grpc || g)) {
      return {
        ...proc,
        url: http,
        ...(g ? { grpcUrl: g } : {}),
        // Verdict lines are run entries, laid out flat (verdict-lines.ts); a `late` line is its own kind.
        lines: () =>
          stdout
            .split('\n')
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l) as RunEntry & { kind?: string })
            .map((l): Record<string, unknown> => (l.kind ? l : { ...verdictView(l) })),
      };
    }
    if (proc.child.exitCode !== null || Date.now() > deadline) {
      await proc.stop('SIGKILL');
      throw new Error(`serve did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
