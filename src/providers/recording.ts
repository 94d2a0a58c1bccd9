import { existsSync, readFileSync } from 'node:fs';
import { ConfigError, ProviderError } from '../errors.js';
import type { Message, ToolCall, Usage } from '../types/run.js';
import { OPERATIONS_SYSTEM_PROMPT } from '../core/system-prompts.js';
import { requestHash, toolsHash } from './_canonical.js';
import { sortKeys } from '../core/canonical-json.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import type { ChatKey, ChatRequest, ChatResponse, Provider } from './types.js';

// Record/replay at the provider boundary. A recording is keyed by case id, sample and turn and keeps a
// hash of what the model was shown (messages and tool schemas), so a replay after a tool description
// changed fails as REPLAY_STALE instead of silently passing. The file is the review artifact: JSON with
// a fixed key order, entries sorted by case, sample, turn, and no headers, keys or volatile ids.

export const RECORDING_FORMAT = 'runspec-eval/recording';

export interface RecordedResponse {
  /** Reasoning blocks (Anthropic thinking), kept so a replayed run sends the same next request. */
  reasoning?: Array<Record<string, unknown>>;
  text?: string;
  toolCalls: ToolCall[];
  finishReason?: string;
  usage: Usage;
  responseModel?: string;
}

export interface RecordingEntry {
  case: string;
  sample: number;
  turn: number;
  /** sha256 of canonical JSON of { messages, tools }. */
  requestHash: string;
  /** sha256 of canonical JSON of the tool schemas alone (tells a schema change from a prompt change). */
  toolsHash: string;
  /** Turn 0 only: the prompt, for reviewers. */
  prompt?: string;
  response: RecordedResponse;
}

export interface RecordingFile {
  format: typeof RECORDING_FORMAT;
  version: 1;
  /** Provider display name and gen_ai.provider.name of the recorded run. */
  provider: string;
  system: string;
  model?: string;
  /** `--context-window` of the recorded run: a replay truncates where the recording did. */
  contextWindow?: number;
  /** The system prompt the cases were recorded with (when they all shared one): a replay without its own uses it. */
  systemPrompt?: string;
  /** `--samples` and `--threshold` of the recorded run: a replay without its own uses them. */
  samples?: number;
  threshold?: number;
  entries: RecordingEntry[];
}

const keyOf = (k: { caseId?: string; case?: string; sample: number; turn: number }) => `${k.caseId ?? k.case}\u0000${k.sample}\u0000${k.turn}`;
const where = (k: ChatKey) => `case ${k.caseId} sample ${k.sample} turn ${k.turn}`;
const RECORD_HINT = 're-record with `runspec-eval record`';

/** A provider that answers from a recording; no network and no key. */
export function createReplayProvider(opts: { file: string; name?: string }): Provider {
  const recording = loadRecording(opts.file);
  const entries = new Map(recording.entries.map((e) => [keyOf(e), e]));
  return {
    name: opts.name ?? 'replay',
    system: recording.system || 'replay',
    model: recording.model,
    ...(typeof recording.contextWindow === 'number' ? { contextWindow: recording.contextWindow } : {}),
    ...(typeof recording.systemPrompt === 'string' ? { systemPrompt: recording.systemPrompt } : {}),
    async chat(req: ChatRequest): Promise<ChatResponse> {
      if (req.signal?.aborted) throw new ProviderError('CANCELLED', 'replay provider: request cancelled');
      if (!req.key) {
        throw new ProviderError('REPLAY_MISSING', `${opts.file}: replay needs a case key on every request`, {
          hint: 'replay runs through runCase / runspec-eval replay',
        });
      }
      const entry = entries.get(keyOf(req.key));
      if (!entry) {
        throw new ProviderError('REPLAY_MISSING', `${opts.file}: no recording for ${where(req.key)}`, { hint: RECORD_HINT });
      }
      if (entry.requestHash !== requestHash(req.messages, req.tools)) {
        if (recording.systemPrompt === undefined && entry.requestHash === requestHash(withOperationsPrompt(req.messages), req.tools)) {
          throw new ProviderError(
            'REPLAY_STALE',
            `${opts.file}: recording for ${where(req.key)} differs only by the default system prompt: it was made with the operations prompt, which is now the default of builtin:fleet only`,
            {
              hint: 're-record with `runspec-eval record`, or replay with --system-prompt FILE holding the operations prompt (OPERATIONS_SYSTEM_PROMPT)',
            },
          );
        }
        const what = entry.toolsHash !== toolsHash(req.tools) ? 'tool schemas' : 'messages';
        throw new ProviderError('REPLAY_STALE', `${opts.file}: recording for ${where(req.key)} is stale: the request changed (${what}); ${RECORD_HINT}`, {
          hint: RECORD_HINT,
        });
      }
      const r = entry.response;
      const res: ChatResponse = { toolCalls: r.toolCalls, usage: r.usage, params: {}, latencyMs: 0, requestModel: req.model ?? recording.model };
      if (r.text !== undefined) res.text = r.text;
      if (r.reasoning !== undefined) res.reasoning = r.reasoning;
      if (r.finishReason !== undefined) res.finishReason = r.finishReason;
      if (r.responseModel !== undefined) res.responseModel = r.responseModel;
      return res;
    },
    async close() {},
  };
}

export interface RecordingProvider extends Provider {
  /** Write the recording (entries sorted by case, sample, turn); atomic rename. */
  save(): Promise<void>;
  /** Entries recorded so far. */
  readonly entries: RecordingEntry[];
}

/**
 * Wrap a provider and record every answered call that carries a key. With `merge`, entries already in
 * the file survive unless re-recorded (to re-record some cases only).
 */
export function createRecordingProvider(
  inner: Provider,
  opts: { file: string; merge?: boolean; run?: { samples?: number | undefined; threshold?: number | undefined } },
): RecordingProvider {
  const recorded = new Map<string, RecordingEntry>();
  // The system message of each case's first request ('' for none): stored when all cases share one.
  const systems = new Set<string>();
  return {
    name: inner.name,
    system: inner.system,
    get model() {
      return inner.model;
    },
    baseUrl: inner.baseUrl,
    ...(inner.contextWindow !== undefined ? { contextWindow: inner.contextWindow } : {}),
    get entries() {
      return [...recorded.values()];
    },
    async chat(req) {
      const res = await inner.chat(req);
      if (req.key) {
        const response: RecordedResponse = {
          toolCalls: res.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: sortKeys(c.arguments) as Record<string, unknown> })),
          usage: res.usage,
        };
        if (res.text !== undefined) response.text = res.text;
        if (res.reasoning !== undefined) response.reasoning = res.reasoning;
        if (res.finishReason !== undefined) response.finishReason = res.finishReason;
        if (res.responseModel !== undefined) response.responseModel = res.responseModel;
        const entry: RecordingEntry = {
          case: req.key.caseId,
          sample: req.key.sample,
          turn: req.key.turn,
          requestHash: requestHash(req.messages, req.tools),
          toolsHash: toolsHash(req.tools),
          response,
        };
        if (req.key.turn === 0) systems.add(req.messages[0]?.role === 'system' ? (req.messages[0].content ?? '') : '');
        const prompt = req.key.turn === 0 ? req.messages.find((m) => m.role === 'user')?.content : undefined;
        if (prompt !== undefined) entry.prompt = prompt;
        recorded.set(keyOf(req.key), entry);
      }
      return res;
    },
    close: () => inner.close(),
    async save() {
      const all = new Map<string, RecordingEntry>();
      let systemPrompt = systems.size === 1 && !systems.has('') ? [...systems][0] : undefined;
      if (opts.merge && existsSync(opts.file)) {
        const old = loadRecording(opts.file);
        for (const e of old.entries) all.set(keyOf(e), e);
        // Merged entries made with another system prompt: none is common to the file.
        if (old.systemPrompt !== systemPrompt && old.entries.some((e) => !recorded.has(keyOf(e)))) systemPrompt = undefined;
      }
      for (const [k, e] of recorded) all.set(k, e);
      const file: RecordingFile = {
        format: RECORDING_FORMAT,
        version: 1,
        provider: inner.name,
        system: inner.system,
        ...(inner.model ? { model: inner.model } : {}),
        ...(inner.contextWindow !== undefined ? { contextWindow: inner.contextWindow } : {}),
        ...(systemPrompt !== undefined ? { systemPrompt } : {}),
        ...(opts.run?.samples !== undefined ? { samples: opts.run.samples } : {}),
        ...(opts.run?.threshold !== undefined ? { threshold: opts.run.threshold } : {}),
        entries: [...all.values()].sort(compareEntries).map(orderEntry),
      };
      writeFileAtomic(opts.file, `${JSON.stringify(file, null, 2)}\n`);
    },
  };
}

/** The messages as a run before the operations prompt moved into builtin:fleet sent them. */
function withOperationsPrompt(messages: Message[]): Message[] {
  const rest = messages[0]?.role === 'system' ? messages.slice(1) : messages;
  return [{ role: 'system', content: OPERATIONS_SYSTEM_PROMPT }, ...rest];
}

function compareEntries(a: RecordingEntry, b: RecordingEntry): number {
  return a.case < b.case ? -1 : a.case > b.case ? 1 : a.sample - b.sample || a.turn - b.turn;
}

/** Fixed key order, so the file diffs the same way every time. */
function orderEntry(e: RecordingEntry): RecordingEntry {
  const r = e.response;
  const ordered: RecordedResponse = {
    ...(r.reasoning !== undefined ? { reasoning: r.reasoning } : {}),
    ...(r.text !== undefined ? { text: r.text } : {}),
    toolCalls: r.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    ...(r.finishReason !== undefined ? { finishReason: r.finishReason } : {}),
    usage: sortKeys(r.usage) as Usage,
    ...(r.responseModel !== undefined ? { responseModel: r.responseModel } : {}),
  };
  return {
    case: e.case,
    sample: e.sample,
    turn: e.turn,
    ...(e.prompt !== undefined ? { prompt: e.prompt } : {}),
    requestHash: e.requestHash,
    toolsHash: e.toolsHash,
    response: ordered,
  };
}

/** Read a recording; a missing or malformed file is bad input (exit 2). */
export function loadRecording(file: string): RecordingFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError('CONFIG', `${file}: recording not found`, { hint: 'write one with `runspec-eval record --out FILE`' });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError('CONFIG', `${file}: recording is not valid JSON: ${(err as Error).message}`, { hint: RECORD_HINT });
  }
  const d = data as Partial<RecordingFile>;
  if (!d || d.format !== RECORDING_FORMAT || !Array.isArray(d.entries)) {
    throw new ConfigError('CONFIG', `${file}: not a runspec-eval recording (expected "format": "${RECORDING_FORMAT}" and an entries list)`, {
      hint: RECORD_HINT,
    });
  }
  d.entries.forEach((e, i) => {
    if (
      !e ||
      typeof e.case !== 'string' ||
      typeof e.sample !== 'number' ||
      typeof e.turn !== 'number' ||
      typeof e.requestHash !== 'string' ||
      !e.response ||
      !Array.isArray(e.response.toolCalls)
    ) {
      throw new ConfigError('CONFIG', `${file}: entries[${i}]: expected case, sample, turn, requestHash and response.toolCalls`, { hint: RECORD_HINT });
    }
  });
  return d as RecordingFile;
}
