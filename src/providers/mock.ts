import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, ProviderError, type ErrorCode } from '../errors.js';
import type { Message, ToolCall } from '../types/run.js';
import { parseToolArguments, usageOf } from './_wire.js';
import type { ChatRequest, ChatResponse, Provider } from './types.js';

// The scripted mock provider: canned answers keyed by case id, then turn. See examples/mock-script.json.

const MockToolCallSchema = z
  .object({
    id: z.string().optional(),
    name: z.string(),
    /** An object, or a string sent as the raw argument text (unparseable text becomes `{ _raw }`). */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  })
  .strict();

const MockTurnSchema = z
  .object({
    text: z.string().optional(),
    toolCalls: z.array(MockToolCallSchema).optional(),
    finishReason: z.string().optional(),
    usage: z.object({ promptTokens: z.number().optional(), completionTokens: z.number().optional(), totalTokens: z.number().optional() }).strict().optional(),
    /** Make this model call fail, as a provider outage would. */
    error: z.object({ code: z.string().optional(), message: z.string() }).strict().optional(),
  })
  .strict();

const MockTurnsSchema = z.union([z.array(MockTurnSchema), z.object({ samples: z.array(z.array(MockTurnSchema)).min(1) }).strict()]);

export const MockScriptSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().optional(),
    /** Reported as the response model. @default "mock-model" */
    model: z.string().optional(),
    /** Case id → the answers by turn (one list for every sample, or `{ samples: [[...], [...]] }`). */
    cases: z.record(z.string(), MockTurnsSchema).optional(),
    /** First user prompt → answers by turn, for requests of cases the `cases` map does not name. */
    prompts: z.record(z.string(), z.array(MockTurnSchema)).optional(),
    /** Answers by turn for everything else. @default [{ "text": "done" }] */
    default: z.array(MockTurnSchema).optional(),
  })
  .strict();

export type MockScript = z.infer<typeof MockScriptSchema>;
export type MockTurn = z.infer<typeof MockTurnSchema>;

/**
 * A provider that answers from a script, for demos and tests: no network, no key.
 * Answers are looked up by `req.key.caseId` (then sample and turn), then by the first user prompt,
 * then `default`; past the end of a list it answers "done" with no tool calls, which ends a run. A
 * request none of them covers is refused (ProviderError code CONFIG, exit 2) naming the case.
 * @example createMockProvider({ script: { cases: { 'read-file-lines': [{ toolCalls: [{ name: 'file_read', arguments: { path: 'src/app.py' } }] }, { text: '4 lines' }] } } })
 */
export function createMockProvider(opts: { script: MockScript; name?: string } | { file: string; name?: string }): Provider {
  const where = 'script' in opts ? '(inline mock script)' : opts.file;
  const script = 'script' in opts ? parseScript(opts.script, where) : loadMockScript(opts.file);
  const model = script.model ?? 'mock-model';
  return {
    name: opts.name ?? 'mock',
    system: 'mock',
    model,
    async chat(req: ChatRequest): Promise<ChatResponse> {
      if (req.signal?.aborted) throw new ProviderError('CANCELLED', 'mock provider: request cancelled');
      const turn = req.key?.turn ?? req.messages.filter((m) => m.role === 'assistant').length;
      const turns = turnsFor(script, req);
      if (!turns) {
        // A case the script does not mention would otherwise "pass" on a canned "done": bad input (exit 2).
        const what = req.key ? `case "${req.key.caseId}"` : 'this conversation';
        throw new ProviderError(
          'CONFIG',
          `mock provider: ${where} has no answers for ${what} (not under "cases", its prompt not under "prompts", and no "default")`,
        );
      }
      const answer: MockTurn = turns[turn] ?? { text: 'done' };
      if (answer.error) {
        const code = (answer.error.code ?? 'PROVIDER') as ErrorCode;
        throw new ProviderError(code, `mock provider: ${answer.error.message}`);
      }
      const toolCalls: ToolCall[] = (answer.toolCalls ?? []).map((c, i) => ({
        id: c.id ?? `call_${turn}_${i}`,
        name: c.name,
        arguments: typeof c.arguments === 'string' ? parseToolArguments(c.arguments) : (c.arguments ?? {}),
      }));
      // Deterministic token counts (about four characters a token) so token metrics are not all zero.
      const usage = usageOf(
        answer.usage?.promptTokens ?? Math.ceil(JSON.stringify(req.messages).length / 4),
        answer.usage?.completionTokens ?? Math.ceil(((answer.text ?? '').length + JSON.stringify(toolCalls).length) / 4),
        answer.usage?.totalTokens,
      );
      const res: ChatResponse = {
        toolCalls,
        usage,
        finishReason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        requestModel: req.model ?? model,
        responseModel: model,
        params: req.temperature !== undefined ? { temperature: req.temperature } : {},
        latencyMs: 0,
      };
      if (answer.text !== undefined) res.text = answer.text;
      return res;
    },
    async close() {},
  };
}

function turnsFor(script: MockScript, req: ChatRequest): MockTurn[] | undefined {
  const byCase = req.key ? script.cases?.[req.key.caseId] : undefined;
  if (byCase) {
    if (Array.isArray(byCase)) return byCase;
    return byCase.samples[(req.key?.sample ?? 0) % byCase.samples.length];
  }
  const prompt = firstUserPrompt(req.messages);
  if (prompt !== undefined && script.prompts?.[prompt]) return script.prompts[prompt];
  return script.default;
}

function firstUserPrompt(messages: Message[]): string | undefined {
  return messages.find((m) => m.role === 'user')?.content;
}

/** Read and validate a mock script file; errors name the file and the field path. */
export function loadMockScript(file: string): MockScript {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError('CONFIG', `${file}: mock script not found`, { hint: 'see examples/mock-script.json for the format' });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError('CONFIG', `${file}: mock script is not valid JSON: ${(err as Error).message}`, {
      hint: 'see examples/mock-script.json for the format',
    });
  }
  return parseScript(data, file);
}

function parseScript(data: unknown, where: string): MockScript {
  const parsed = MockScriptSchema.safeParse(data);
  if (!parsed.success) {
    const { path, message } = innermostIssue(parsed.error.issues[0]!);
    throw new ConfigError('CONFIG', `${where}: ${path.join('.') || '(root)'}: ${message}`, {
      hint: 'see examples/mock-script.json for the format',
    });
  }
  return parsed.data;
}

interface IssueLike {
  path: PropertyKey[];
  message: string;
  code?: string;
  errors?: IssueLike[][];
}

/** A union failure says only "Invalid input"; follow the branch that got furthest for a useful path. */
function innermostIssue(issue: IssueLike): { path: PropertyKey[]; message: string } {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return issue;
  let best: { path: PropertyKey[]; message: string } = issue;
  for (const branch of issue.errors) {
    if (!branch[0]) continue;
    const inner = innermostIssue(branch[0]);
    const candidate = { path: [...issue.path, ...inner.path], message: inner.message };
    if (candidate.path.length > best.path.length) best = candidate;
  }
  return best;
}
