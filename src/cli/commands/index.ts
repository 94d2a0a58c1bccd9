import type { CommandModule } from '../command.js';

export interface CommandLoader {
  name: string;
  /** How the top-level help lists it (commander's term: name, [options], arguments). */
  term: string;
  /** Its description: the top-level help prints these without importing any command module. */
  summary: string;
  load: () => Promise<CommandModule>;
}

/**
 * Every subcommand, in the order --help lists them. Each module is imported only when its command runs:
 * the OpenTelemetry SDK, the MCP client and undici stay out of the start-up of commands that do not use them.
 * `test/cli/help.test.ts` checks `term` and `summary` against what each module registers.
 */
export const COMMAND_LOADERS: readonly CommandLoader[] = [
  {
    name: 'list',
    term: 'list [options] [paths...]',
    summary: 'List discovered fixtures (bundled < plugins < global < local, merged by id)',
    load: async () => (await import('./list.js')).listCommand,
  },
  {
    name: 'schema',
    term: 'schema <dialect>',
    summary: 'Print the JSON Schema of a fixture dialect (runspec|replio|turnstone) or of the results file, generated from the zod schema that reads it',
    load: async () => (await import('./schema.js')).schemaCommand,
  },
  {
    name: 'validate',
    term: 'validate [options] [paths...]',
    summary: 'Ground tier: check that fixtures only name tools, verbs and args the toolset has (no model, no key)',
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    name: 'run',
    term: 'run [options] [targets...]',
    summary: 'Run eval cases against a model and score them',
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    name: 'compare',
    term: 'compare [options] <providers> [targets...]',
    summary: 'Run the same suite once per provider or [targets.NAME] and compare pass rates',
    load: async () => (await import('./compare.js')).compareCommand,
  },
  {
    name: 'record',
    term: 'record [options] [targets...]',
    summary: 'Live tier: run against a real model, gate on --threshold, and write a replay recording',
    load: async () => (await import('./record.js')).recordCommand,
  },
  {
    name: 'replay',
    term: 'replay [options] [targets...]',
    summary: 'Replay tier: rerun cases from a recording, deterministic and keyless',
    load: async () => (await import('./replay.js')).replayCommand,
  },
  {
    name: 'merge',
    term: 'merge [options] <files...>',
    summary: 'Combine shard results (--shard i/n, 1-based: 1/n … n/n, split by SHA-256 of the case id) into one results file, in the unsharded case order',
    load: async () => (await import('./merge.js')).mergeCommand,
  },
  {
    name: 'report',
    term: 'report [options] <file>',
    summary: 'Re-render saved results (table, JSON, JUnit XML, Markdown, HTML)',
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    name: 'diff',
    term: 'diff [options] <base> <head>',
    summary: 'Compare a run against a baseline: flipped cases, new and removed cases, verdict and pass-rate changes',
    load: async () => (await import('./diff.js')).diffCommand,
  },
  {
    name: 'demo',
    term: 'demo [options]',
    summary: 'Run the bundled suites on the embedded replay provider (no key, no network)',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  {
    name: 'score',
    term: 'score [options] <inputs...>',
    summary: 'Score OTLP traces offline (files, directories or - for stdin)',
    load: async () => (await import('./score.js')).scoreCommand,
  },
  {
    name: 'serve',
    term: 'serve [options]',
    summary: 'OTLP/HTTP receiver that scores traces as they arrive',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    name: 'optimize',
    term: 'optimize [options] [targets...]',
    summary: 'Evaluate cases and let the model rewrite the developer prompt until they pass (optimiser + observer)',
    load: async () => (await import('./optimize.js')).optimizeCommand,
  },
  {
    name: 'config',
    term: 'config [options]',
    summary: 'Print the resolved configuration and where each value came from (flag, env, file, default); secrets are never shown',
    load: async () => (await import('./config.js')).configCommand,
  },
  {
    name: 'doctor',
    term: 'doctor [options]',
    summary: 'Check the configured telemetry end to end: canary trace and annotation/feedback, read back',
    load: async () => (await import('./doctor.js')).doctorCommand,
  },
  {
    name: 'import',
    term: 'import',
    summary: 'Import cases from another format (bfcl)',
    load: async () => (await import('./import.js')).importCommand,
  },
  {
    name: 'schedule',
    term: 'schedule',
    summary: 'Manage scheduled eval sweeps in runspec_schedules.toml (a nightly drift check, the twin of the CI live tier)',
    load: async () => (await import('./schedule.js')).scheduleCommand,
  },
  {
    name: 'ci',
    term: 'ci',
    summary: 'GitHub Action steps: run with CI artifacts, find the baseline, diff against it, comment the diff on the pull request',
    load: async () => (await import('./ci.js')).ciCommand,
  },
  {
    name: 'ui',
    term: 'ui [options]',
    summary: 'Open the Evals console: suites, runs, saved reports and production verdicts in the browser',
    load: async () => (await import('./ui.js')).uiCommand,
  },
];
