// `[targets.NAME]` of runspec.toml: what is under test. A `model` target is a provider (preset or
// profile) driven by our own agent loop; `module`, `http` and `command` targets are the team's own agent,
// scored from the OpenTelemetry spans it emits. Every kind is a strict table: an unknown key is an error.
import { z } from 'zod';

const VarsSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/** Keys every agent target may set: case defaults and the trace collection window. */
const agentCommon = {
  description: z.string().optional(),
  /** Default `system` of cases that set none. */
  system: z.string().optional(),
  /** Default `vars`; a case's own vars win key by key. */
  vars: VarsSchema.optional(),
  /** A trace is complete when our root ended and no span arrived for this long. @default 500 */
  quiet_ms: z.number().int().min(0).max(600_000).optional(),
  /** Longest wait for a case's trace; then the sample is `incomplete`. @default 30000 */
  trace_timeout_ms: z.number().int().positive().max(3_600_000).optional(),
  /** Longest run of one case (the call, request or process). @default 120000 */
  timeout_ms: z.number().int().positive().max(3_600_000).optional(),
  /** A toolset to validate the agent's calls against (optional: agents bring their own tools). */
  toolset: z.string().optional(),
  /**
   * Port of the run's OTLP/HTTP receiver on 127.0.0.1, for an agent already running with a fixed
   * OTEL_EXPORTER_OTLP_ENDPOINT. @default 0 (a free port, printed)
   */
  receiver_port: z.number().int().min(0).max(65535).optional(),
};

export const ModelTargetSchema = z
  .object({
    kind: z.literal('model'),
    description: z.string().optional(),
    /** A preset (`openai`, `ollama`, ...) or a `[providers.NAME]` profile. */
    provider: z.string(),
    model: z.string().optional(),
    toolset: z.string().optional(),
    system: z.string().optional(),
  })
  .strict();

export const ModuleTargetSchema = z
  .object({
    kind: z.literal('module'),
    /** A .js, .mjs or .cjs file (a .ts file needs the optional `tsx` package), relative to the project. */
    module: z.string(),
    /** The export to call. @default "default" */
    export: z.string().optional(),
    ...agentCommon,
  })
  .strict();

export const HttpTargetSchema = z
  .object({
    kind: z.literal('http'),
    url: z.string(),
    /**
     * A JSON file `{ "headers": {...}, "body": ... }` with `{{prompt}}`, `{{messages}}`, `{{system}}`,
     * `{{vars.NAME}}` and `{{env.NAME}}` placeholders, relative to the project.
     */
    template: z.string().optional(),
    /** Where the response holds the agent's tool calls when it emits no trace (dot path). */
    response_tool_calls: z.string().optional(),
    /** Largest response body read; a bigger one is the sample's error. @default 8388608 (8 MiB) */
    max_response_bytes: z.number().int().positive().optional(),
    /** PEM files for an https agent, relative to the project: a CA to trust, a client certificate and key. */
    ca_file: z.string().optional(),
    cert_file: z.string().optional(),
    key_file: z.string().optional(),
    ...agentCommon,
  })
  .strict();

export const CommandTargetSchema = z
  .object({
    kind: z.literal('command'),
    /** argv: the program and its arguments (no shell). */
    command: z.array(z.string()).min(1),
    /** How the prompt reaches the process: on stdin, or in the variable named by `prompt_env`. @default "stdin" */
    prompt: z.enum(['stdin', 'env']).optional(),
    /** @default "RUNSPEC_PROMPT" */
    prompt_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    /** Working directory, relative to the project. @default the project */
    cwd: z.string().optional(),
    ...agentCommon,
  })
  .strict();

export const TargetSchema = z.discriminatedUnion('kind', [ModelTargetSchema, ModuleTargetSchema, HttpTargetSchema, CommandTargetSchema]);

export type TargetConfig = z.infer<typeof TargetSchema>;
export type ModelTargetConfig = z.infer<typeof ModelTargetSchema>;
export type ModuleTargetConfig = z.infer<typeof ModuleTargetSchema>;
export type HttpTargetConfig = z.infer<typeof HttpTargetSchema>;
export type CommandTargetConfig = z.infer<typeof CommandTargetSchema>;
export type AgentTargetConfig = ModuleTargetConfig | HttpTargetConfig | CommandTargetConfig;
export type TargetKind = TargetConfig['kind'];
