// Options of `run` and the commands built on it, plus small path/label helpers. Kept free of the heavy
// modules (engine, providers, telemetry) so that registering the commands costs nothing at start-up.

import { InvalidArgumentError, Option, type Command } from 'commander';
import { OUTPUT_FORMATS } from '../../report/formats.js';
import { TOOL_MODES } from '../../core/vocabulary.js';
import { DISK_BUDGET_MODES } from '../../config/settings.js';
import { GATE_SYNTAX, parseGate } from '../../fixtures/gate.js';
import { SHARD_HELP } from '../../core/shard.js';

export { OUTPUT_FORMATS } from '../../report/formats.js';
export type { OutputFormat } from '../../report/formats.js';
export type { RunFlags } from '../../app/run-options.js';
export { normaliseForLog, suiteLabelOf } from '../../app/run-options.js';
export { cwdPath } from '../../app/context.js';

const positiveInt = (v: string): number => {
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError(`expected a positive integer (got ${JSON.stringify(v)})`);
  return Number(v);
};
/** Sane maxima of run sizes: a typo of a few zeros is an error, not a run that never ends. */
export const MAX_SAMPLES_FLAG = 1000;
export const MAX_TURNS_FLAG = 1000;
export const MAX_CONCURRENCY_FLAG = 256;
const boundedInt =
  (max: number) =>
  (v: string): number => {
    const n = positiveInt(v);
    if (n > max) throw new InvalidArgumentError(`expected at most ${max} (got ${n})`);
    return n;
  };
const nonNegativeInt = (v: string): number => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError(`expected an integer ≥ 0 (got ${JSON.stringify(v)})`);
  return Number(v);
};
const ratio = (v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`expected a number from 0 to 1 (got ${JSON.stringify(v)})`);
  return n;
};
const number = (v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`expected a number (got ${JSON.stringify(v)})`);
  return n;
};
const oneOf =
  <T extends string>(values: readonly T[]) =>
  (v: string): T => {
    if (!(values as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${values.join(', ')} (got ${JSON.stringify(v)})`);
    return v as T;
  };
const kList = (v: string): number[] => {
  const parts = v.split(',').map((x) => x.trim());
  if (parts.some((x) => !/^\d+$/.test(x) || Number(x) < 1))
    throw new InvalidArgumentError(`expected a comma-separated list of positive integers such as 1,3,5 (got ${JSON.stringify(v)})`);
  return [...new Set(parts.map(Number))].sort((a, b) => a - b);
};
const gateText = (v: string): string => {
  if (!parseGate(v)) throw new InvalidArgumentError(`${GATE_SYNTAX} (got ${JSON.stringify(v)})`);
  return v;
};
const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];

/** Case selection flags. */
export function addSelectionOptions(cmd: Command): Command {
  return cmd
    .option('--fixture <id>', 'run only this case id (repeatable)', collect)
    .option('--bundled', 'without targets, run the bundled demo cases too (they run alone only when the project has no cases of its own)')
    .option('--tag <tag>', 'run only cases with this tag (repeatable)', collect)
    .option('--shard <i/n>', SHARD_HELP);
}

/** Model and provider flags. */
export function addModelOptions(cmd: Command, opts: { provider?: boolean } = {}): Command {
  if (opts.provider !== false) cmd.option('--provider <name>', 'provider preset or [providers.NAME] profile (openai, anthropic, ollama, vllm, mock, replay)');
  return (
    cmd
      .option('--model <name>', "model name (default: the provider's, or the first of GET /models)")
      .option('--base-url <url>', 'API base URL of the provider')
      .option('--temperature <t>', 'sampling temperature', number)
      .option('--max-tokens <n>', 'max completion tokens (sent only when set)', positiveInt)
      .option('--reasoning-effort <level>', 'low, medium or high, sent on every model request (only when set)', oneOf(['low', 'medium', 'high'] as const))
      .option('--context-window <n>', "the model's context window in tokens: a trajectory whose request fills it stops as truncated", positiveInt)
      .option(
        '--timeout-ms <ms>',
        'per-attempt time limit in milliseconds (default 120000); a hung sample holds its slot at most timeout × attempts + (attempts − 1) × 30 s of waits: 7 min by default',
        positiveInt,
      )
      .option(
        '--attempts <n>',
        'attempts per model request, the first included, on transient errors (default 3; 1 = no retry); each wait prints one "retrying:" line',
        positiveInt,
      )
      // The old name: it always counted attempts, not retries. Kept working, out of --help.
      .addOption(new Option('--retries <n>', 'old name of --attempts').argParser(nonNegativeInt).hideHelp())
      .option('--max-requests <n>', 'model requests in flight at once per provider (default 8)', positiveInt)
  );
}

/** Flags of the suite run itself. */
export function addExecutionOptions(cmd: Command, opts: { out?: string | false; script?: boolean } = {}): Command {
  cmd
    .option('--target <name>', 'the [targets.NAME] of runspec.toml to test: a model, or your agent as a module, http endpoint or command')
    .option('--quiet-ms <ms>', "agent targets: a case's trace is complete once its root ended and no span arrived for this long (default 500)", nonNegativeInt)
    .option('--trace-timeout <ms>', "agent targets: the longest wait for a case's trace, then the sample is incomplete (default 30000)", positiveInt)
    .option('--toolset <spec>', 'toolset for every case: a file, builtin:fleet, builtin:workspace or mcp:...')
    .option('--tool-mode <mode>', 'tool layout: dedup, per_host or search', oneOf(TOOL_MODES))
    .option('--samples <n>', `samples per case (a case's own count wins; at most ${MAX_SAMPLES_FLAG})`, boundedInt(MAX_SAMPLES_FLAG))
    .option('--threshold <t>', 'pass rate every case must reach (0..1)', ratio)
    .option('--pass-k <list>', 'report pass@k and pass^k for these k (comma-separated, e.g. 1,3,5)', kList)
    .option('--gate <expr>', 'gate for cases without their own, replacing --threshold (e.g. "pass@3 >= 0.9")', gateText)
    .option('--validate-args', 'check arguments against the toolset (bounce buckets)')
    .option('--fail-on-unscorable', 'exit 1 when any sample is unscorable (a check the case needs could not be judged)')
    .option('--concurrency <n>', `case samples in flight at once (at most ${MAX_CONCURRENCY_FLAG})`, boundedInt(MAX_CONCURRENCY_FLAG))
    .option(
      '--stop-after-errors <n>',
      'stop the run after this many samples in a row errored (the provider looks down; default 5, 0 = never); --resume finishes it',
      nonNegativeInt,
    )
    .option('--max-turns <n>', `model turns per case run (at most ${MAX_TURNS_FLAG})`, boundedInt(MAX_TURNS_FLAG))
    .option('--system-prompt <file>', 'system prompt text file')
    .option('-v, --verbose', 'per-turn log on stderr: each model call and each tool call with its arguments and result')
    .option('--output <format>', 'report format: table, json, junit, md or html', oneOf(OUTPUT_FORMATS));
  if (opts.out !== false) cmd.option('--out <path>', opts.out ?? 'results JSON file (the JSON-lines log is written next to it as .jsonl)');
  cmd
    .option('--telemetry', 'emit one trace per case sample')
    .option('--no-telemetry', 'emit no traces')
    .option('--capture-content', 'attach prompts, messages and arguments to spans')
    .option('--annotations', 'post verdicts as Phoenix span annotations')
    .option('--phoenix-experiment', 'record the run in Phoenix as an experiment: the suite as a dataset, each sample a run, each verdict an evaluation')
    .option('--langsmith-feedback', "post verdicts as LangSmith feedback on each trace's run (LANGSMITH_ENDPOINT, LANGSMITH_API_KEY)")
    .option('--endpoint <url>', 'OTLP/HTTP traces endpoint (default: OTEL_* variables, runspec.toml, else .runspec/traces/)')
    .option('--keep-worktrees', 'keep trajectory worktrees for inspection')
    .option('--unsafe-host-commands', 'run model-driven commands (bash, run_command) on this machine without the bubblewrap sandbox (warned on every run)')
    .option(
      '--disk-budget-mib <n>',
      "disk a case's worktree may take, in MiB, before its command is stopped and the case fails (default 1024, or [trajectory] disk_budget_mib)",
      boundedInt(1024 * 1024),
    )
    .addOption(
      new Option(
        '--disk-budget-mode <mode>',
        'how the disk budget is enforced: auto (as root, each worktree is a tmpfs of the budget; else the size check) or watchdog (the size check alone) (default auto, or RUNSPEC_DISK_BUDGET_MODE, [trajectory] disk_budget_mode)',
      ).choices(DISK_BUDGET_MODES),
    );
  if (opts.script !== false) cmd.option('--script <file>', 'script of the mock provider, or recording of the replay provider');
  return cmd;
}

export function ensureNewline(s: string): string {
  return s.endsWith('\n') ? s : s + '\n';
}
