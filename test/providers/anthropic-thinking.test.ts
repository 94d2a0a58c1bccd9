import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordingProvider, createReplayProvider } from '../../src/providers/recording.js';
import { runCase } from '../../src/engine/run-case.js';
import { anthropicParams, createAnthropicProvider, usesAdaptiveThinking } from '../../src/providers/anthropic.js';
import type { Case } from '../../src/types/case.js';
import { startFakeAnthropic } from '../helpers/fake-anthropic.js';
import type { FakeModelServer } from '../helpers/fake-openai.js';

// Anthropic parity in trajectory mode: reasoning effort → thinking (adaptive + output_config.effort on
// current models, budget_tokens on older ones, no temperature), thinking blocks sent back unchanged with
// the tool_use they preceded, and tool_result.is_error on a failed tool.

const THINKING = { type: 'thinking', thinking: 'read the file first', signature: 'sig-abc==' };
const REDACTED = { type: 'redacted_thinking', data: 'opaque==' };
let server: FakeModelServer;

beforeAll(async () => {
  server = await startFakeAnthropic({
    respond: (req) => {
      const turn = req.json.messages.filter((m: { role: string }) => m.role === 'assistant').length;
      if (turn > 0) return { text: 'done' };
      return {
        status: 200,
        body: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-opus-4-6',
          content: [THINKING, REDACTED, { type: 'tool_use', id: 'toolu_1', name: 'file_read', input: { path: 'missing.txt' } }],
          stop_reason: 'tool_use',
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      };
    },
  });
});
afterAll(async () => server.close());

const c: Case = {
  id: 'think',
  dialect: 'replio',
  tags: [],
  source: { file: 'inline', source: 'file' },
  prompt: 'read missing.txt',
  files: {},
  mode: 'trajectory',
  settings: {},
};

describe('Anthropic thinking and tool errors', () => {
  it('sends adaptive thinking with the effort, passes thinking blocks back unchanged, and marks the failed tool_result', async () => {
    const provider = createAnthropicProvider({ baseUrl: server.url, model: 'claude-opus-4-6', apiKey: 'k', reasoningEffort: 'low', retryBaseMs: 1 });
    try {
      const run = await runCase({ case: c, sample: 0, provider });
      expect(run.status).toBe('ok');
      const [first, second] = server
        .chatRequests()
        .slice(-2)
        .map((r) => r.json);
      expect(first).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
      expect(first).not.toHaveProperty('temperature');
      const assistant = second.messages.find((m: { role: string }) => m.role === 'assistant');
      expect(assistant.content).toEqual([THINKING, REDACTED, { type: 'tool_use', id: 'toolu_1', name: 'file_read', input: { path: 'missing.txt' } }]);
      const result = second.messages.at(-1).content.find((b: { type: string }) => b.type === 'tool_result');
      expect(result).toMatchObject({ tool_use_id: 'toolu_1', is_error: true });
      expect(result.content).toMatch(/^Error: /);
    } finally {
      await provider.close();
    }
  });

  it('records thinking blocks, so a replayed run sends the same next request (not stale)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-think-'));
    const file = join(dir, 'rec.json');
    const inner = createAnthropicProvider({ baseUrl: server.url, model: 'claude-opus-4-6', apiKey: 'k', reasoningEffort: 'low', retryBaseMs: 1 });
    try {
      const recorder = createRecordingProvider(inner, { file });
      expect((await runCase({ case: c, sample: 0, provider: recorder })).status).toBe('ok');
      await recorder.save();
      const replayed = await runCase({ case: c, sample: 0, provider: createReplayProvider({ file }) });
      expect(replayed.status, replayed.error?.message).toBe('ok');
      expect(replayed.modelCalls).toHaveLength(2);
    } finally {
      await inner.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    { model: 'claude-opus-4-6', adaptive: true },
    { model: 'claude-sonnet-5', adaptive: true },
    { model: 'claude-sonnet-4-5-20250929', adaptive: false },
    { model: 'claude-opus-4-20250514', adaptive: false },
    { model: 'claude-3-7-sonnet-20250219', adaptive: false },
  ])('$model takes adaptive thinking: $adaptive', ({ model, adaptive }) => {
    expect(usesAdaptiveThinking(model)).toBe(adaptive);
  });

  it('uses budget_tokens on older models, raising max_tokens above the budget, and sends nothing about thinking without an effort', () => {
    expect(anthropicParams('claude-sonnet-4-5', { reasoningEffort: 'medium' }, {})).toEqual({
      max_tokens: 8192,
      thinking: { type: 'enabled', budget_tokens: 4096 },
    });
    expect(anthropicParams('claude-sonnet-4-5', {}, {})).toEqual({ temperature: 0.7, max_tokens: 4096 });
  });
});
