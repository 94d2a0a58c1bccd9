import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import { createRecordingProvider, createReplayProvider } from '../../src/providers/recording.js';
import type { ChatRequest } from '../../src/providers/types.js';
import type { ToolDefinition } from '../../src/types/toolset.js';
import { startFakeOpenAI } from '../helpers/fake-openai.js';

const dir = mkdtempSync(join(tmpdir(), 'runspec-rec-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOOLS: ToolDefinition[] = [
  { name: 'service_status', description: 'Show status', parameters: { type: 'object', properties: { name: { type: 'string' } } } },
];
const SECRET = 'sk-record-secret-9876';

function req(caseId: string, turn: number, tools = TOOLS, prompt = 'is api up?'): ChatRequest {
  return { messages: [{ role: 'user', content: prompt }], tools, key: { caseId, sample: 0, turn } };
}

describe('record and replay', () => {
  it('replays what was recorded, keyless, and the file is sorted, stable and secret-free', async () => {
    const server = await startFakeOpenAI({ toolCall: { id: 'call_x', name: 'service_status', arguments: { z: 1, name: 'api' } } });
    const live = createOpenAIProvider({ baseUrl: server.url, model: 'gpt-test', apiKey: SECRET, apiKeyEnv: 'OPENAI_API_KEY' });
    const file = join(dir, 'rec.json');
    const rec = createRecordingProvider(live, { file });
    try {
      const liveB = await rec.chat(req('b-case', 0));
      const liveA = await rec.chat(req('a-case', 0));
      await rec.save();
      const text = readFileSync(file, 'utf8');
      expect(text).not.toContain(SECRET);
      expect(text).not.toMatch(/authorization|x-api-key/i);
      const doc = JSON.parse(text);
      expect(doc).toMatchObject({ format: 'runspec-eval/recording', version: 1, provider: 'openai', system: 'openai', model: 'gpt-test' });
      expect(doc.entries.map((e: { case: string }) => e.case)).toEqual(['a-case', 'b-case']);
      expect(Object.keys(doc.entries[0])).toEqual(['case', 'sample', 'turn', 'prompt', 'requestHash', 'toolsHash', 'response']);
      expect(doc.entries[0].response.toolCalls[0].arguments).toEqual({ name: 'api', z: 1 });
      // saving again gives byte-identical output
      await rec.save();
      expect(readFileSync(file, 'utf8')).toBe(text);

      const replay = createReplayProvider({ file });
      expect(replay.system).toBe('openai');
      const again = await replay.chat(req('a-case', 0));
      expect(again.toolCalls).toEqual(liveA.toolCalls);
      expect(again.usage).toEqual(liveA.usage);
      expect((await replay.chat(req('b-case', 0))).toolCalls).toEqual(liveB.toolCalls);
    } finally {
      await rec.close();
      await server.close();
    }
  });

  it('reports a changed tool description as REPLAY_STALE, and a changed prompt too', async () => {
    const server = await startFakeOpenAI({});
    const file = join(dir, 'stale.json');
    const rec = createRecordingProvider(createOpenAIProvider({ baseUrl: server.url, model: 'm' }), { file });
    try {
      await rec.chat(req('c1', 0));
      await rec.save();
    } finally {
      await rec.close();
      await server.close();
    }
    const replay = createReplayProvider({ file });
    const changed = [{ ...TOOLS[0]!, description: 'Show the status of a service' }];
    const err = (await replay.chat(req('c1', 0, changed)).catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.code).toBe('REPLAY_STALE');
    expect(err.message).toContain('recording for case c1 sample 0 turn 0 is stale: the request changed (tool schemas); re-record with `runspec-eval record`');
    const err2 = (await replay.chat(req('c1', 0, TOOLS, 'is db up?')).catch((e: unknown) => e)) as ProviderError;
    expect(err2.code).toBe('REPLAY_STALE');
    expect(err2.message).toContain('(messages)');
  });

  it('reports a missing entry as REPLAY_MISSING', async () => {
    const server = await startFakeOpenAI({});
    const file = join(dir, 'missing.json');
    const rec = createRecordingProvider(createOpenAIProvider({ baseUrl: server.url, model: 'm' }), { file });
    await rec.chat(req('c1', 0));
    await rec.save();
    await rec.close();
    await server.close();
    const err = (await createReplayProvider({ file })
      .chat(req('c1', 1))
      .catch((e: unknown) => e)) as ProviderError;
    expect(err.code).toBe('REPLAY_MISSING');
    expect(err.message).toContain('no recording for case c1 sample 0 turn 1');
  });

  it('keeps entries of other cases with merge', async () => {
    const server = await startFakeOpenAI({});
    const file = join(dir, 'merge.json');
    try {
      const first = createRecordingProvider(createOpenAIProvider({ baseUrl: server.url, model: 'm' }), { file });
      await first.chat(req('old', 0));
      await first.save();
      const second = createRecordingProvider(createOpenAIProvider({ baseUrl: server.url, model: 'm' }), { file, merge: true });
      await second.chat(req('new', 0));
      await second.save();
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      expect(doc.entries.map((e: { case: string }) => e.case)).toEqual(['new', 'old']);
    } finally {
      await server.close();
    }
  });
});
