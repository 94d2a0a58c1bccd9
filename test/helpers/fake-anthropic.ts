import { startFakeModel, type FakeModelOptions, type FakeModelServer, type FakeProtocol } from './fake-openai.js';

// A fake Anthropic Messages server on 127.0.0.1:0; same options and answers as startFakeOpenAI
// (see fake-openai.ts). `url` is the base URL without /v1, as the real API is configured.

export type { FakeAnswer, FakeFault, FakeModelOptions, FakeModelServer, FakeReply, FakeToolCall, RecordedRequest } from './fake-openai.js';

export const ANTHROPIC_PROTOCOL: FakeProtocol = {
  basePath: '',
  chatPath: '/v1/messages',
  modelsPath: '/v1/models',
  conversation(json) {
    const messages: Array<{ role: string; content?: unknown }> = (json as { messages?: [] })?.messages ?? [];
    const first = messages.find((m) => m.role === 'user');
    let prompt = '';
    if (typeof first?.content === 'string') prompt = first.content;
    else if (Array.isArray(first?.content)) {
      const block = (first.content as Array<{ type?: string; text?: string }>).find((b) => b.type === 'text');
      prompt = block?.text ?? '';
    }
    return { prompt, turn: messages.filter((m) => m.role === 'assistant').length };
  },
  render(reply, index) {
    const content: unknown[] = [];
    if (reply.text) content.push({ type: 'text', text: reply.text });
    (reply.toolCalls ?? []).forEach((c, i) => {
      let input: unknown = c.arguments ?? {};
      if (typeof input === 'string') input = JSON.parse(input) as unknown;
      content.push({ type: 'tool_use', id: c.id ?? `toolu_${index}_${i}`, name: c.name, input });
    });
    const hasTools = (reply.toolCalls ?? []).length > 0;
    return {
      id: `msg_${index}`,
      type: 'message',
      role: 'assistant',
      model: reply.model ?? 'fake-model',
      content,
      stop_reason: reply.finishReason ?? (hasTools ? 'tool_use' : 'end_turn'),
      stop_sequence: null,
      usage: { input_tokens: reply.usage?.prompt ?? 10, output_tokens: reply.usage?.completion ?? 5 },
    };
  },
};

/** Start a fake Anthropic Messages server on 127.0.0.1:0. */
export function startFakeAnthropic(opts: FakeModelOptions = {}): Promise<FakeModelServer> {
  return startFakeModel(ANTHROPIC_PROTOCOL, opts);
}
