import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { REASONING_EFFORTS, TOOL_MODES } from '../core/vocabulary.js';
import { loadStructuredFile } from '../core/structured-file.js';
import { TargetSchema } from './targets.js';

/** OTLP protocols we export with (OTEL_EXPORTER_OTLP_PROTOCOL, `[telemetry] protocol`). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;

/** `runspec.toml`: [llm], [toolset], [telemetry], [sync], [fixtures], [providers.NAME], [targets.NAME]. */
export const ProviderProfileSchema = z
  .object({
    kind: z.enum(['openai', 'anthropic', 'mock', 'replay']),
    base_url: z.string().optional(),
    model: z.string().optional(),
    api_key_env: z.string().optional(),
    script: z.string().optional(),
    temperature: z.number().optional(),
    max_tokens: z.number().int().positive().optional(),
    reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
    context_window: z.number().int().positive().optional(),
    timeout_ms: z.number().int().positive().optional(),
  })
  .strict();

export const ConfigFileSchema = z
  .object({
    llm: z
      .object({
        provider: z.string().optional(),
        model: z.string().optional(),
        base_url: z.string().optional(),
        tool_mode: z.enum(TOOL_MODES).optional(),
        temperature: z.number().optional(),
        max_tokens: z.number().int().positive().optional(),
        reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
        context_window: z.number().int().positive().optional(),
        timeout_ms: z.number().int().positive().optional(),
        retries: z.number().int().min(0).optional(),
        concurrency: z.number().int().positive().max(256).optional(),
        max_requests: z.number().int().positive().max(1024).optional(),
        /** Stop a run after this many samples in a row errored (0 = never). @default 5 */
        stop_after_errors: z.number().int().min(0).optional(),
        /** Stop a run once every request in flight failed to connect for this long (0 = never). @default 10000 */
        unreachable_after_ms: z.number().int().min(0).optional(),
        /** Largest provider response body in bytes (default 32 MiB). */
        max_response_bytes: z.number().int().positive().optional(),
        system_prompt: z.string().optional(),
      })
      .strict()
      .optional(),
    toolset: z
      .object({
        file: z.string().optional(),
        mcp: z.string().optional(),
      })
      .strict()
      .optional(),
    telemetry: z
      .object({
        enabled: z.boolean().optional(),
        endpoint: z.string().optional(),
        protocol: z.enum(OTLP_PROTOCOLS).optional(),
        capture_content: z.union([z.boolean(), z.literal('hashed')]).optional(),
        trace_url: z.string().optional(),
        eval_annotations: z.boolean().optional(),
        /** Record each run in Phoenix as an experiment on a dataset of the suite's cases. */
        phoenix_experiment: z.boolean().optional(),
        annotations_url: z.string().optional(),
        project: z.string().optional(),
        ca_file: z.string().optional(),
        api_key_env: z.string().optional(),
        timeout_ms: z.number().int().positive().optional(),
        service_name: z.string().optional(),
        dir: z.string().optional(),
        langsmith: z
          .object({
            /** Post each verdict as LangSmith feedback on the root span's run. */
            feedback: z.boolean().optional(),
            /** API base (LANGSMITH_ENDPOINT wins); a self-hosted one ends in /api/v1. */
            endpoint: z.string().optional(),
            /** Name of the variable holding the key (LANGSMITH_API_KEY by default). */
            api_key_env: z.string().optional(),
            /** Longest wait for runs to be ingested. @default 60000 */
            max_wait_ms: z.number().int().positive().optional(),
            /** First wait between retries of not-yet-ingested runs; doubles up to 8 s. @default 1000 */
            backoff_ms: z.number().int().positive().optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    sync: z.object({ dir: z.string().optional() }).strict().optional(),
    /**
     * Trajectory mode: `sandbox = "none"` runs model-driven commands unconfined on the host (warned on every run);
     * `disk_budget_mib`: disk a case's worktree may take (MiB) before its command is stopped. @default 1024
     * `disk_budget_mode`: `auto` (a tmpfs per worktree as root, plus the size watchdog) or `watchdog` (never mount). @default auto
     */
    trajectory: z
      .object({
        sandbox: z.enum(['bwrap', 'none']).optional(),
        disk_budget_mib: z
          .number()
          .int()
          .positive()
          .max(1024 * 1024)
          .optional(),
        disk_budget_mode: z.enum(['auto', 'watchdog']).optional(),
      })
      .strict()
      .optional(),
    /**
     * Fixture sources: `plugins` (modules exporting registerFixtures) and `dirs`, directories of the project
     * (relative to it) read recursively as local cases, e.g. `dirs = ["evals"]`.
     */
    fixtures: z
      .object({ plugins: z.array(z.string()).optional(), dirs: z.array(z.string().min(1)).optional() })
      .strict()
      .optional(),
    providers: z.record(z.string(), ProviderProfileSchema).optional(),
    /** What is under test, by name (`--target NAME`): config/targets.ts. */
    targets: z.record(z.string(), TargetSchema).optional(),
  })
  .strict();

export type ConfigFile = z.infer<typeof ConfigFileSchema>;
export type ProviderProfile = z.infer<typeof ProviderProfileSchema>;

/** Read `runspec.toml` from the project directory; a missing file is an empty config. */
export function loadConfigFile(projectDir: string, fileName = 'runspec.toml'): ConfigFile {
  const file = join(projectDir, fileName);
  if (!existsSync(file)) return {};
  return loadStructuredFile(file, ConfigFileSchema, {
    format: 'toml',
    error: (message, opts) => new ConfigError('CONFIG', message, opts),
    hint: 'see examples/runspec.toml for every key',
  });
}
