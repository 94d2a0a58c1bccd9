import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.js';
import { createAnthropicProvider } from '../../src/providers/anthropic.js';
import { createOpenAIProvider } from '../../src/providers/openai.js';
import { startFakeAnthropic } from '../helpers/fake-anthropic.js';
import type { HttpProviderOptions } from '../../src/providers/types.js';
import { redactEchoedSecrets } from '../../src/core/redact.js';
import { startFakeOpenAI, type FakeAnswer, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// Answers that are not a chat completion are infrastructure errors (PROVIDER_RESPONSE), never the
// model's "no call"; oversized bodies fail once without retry; redirects name where they point; a body
// echoing a key never reaches an error message.

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function ask(
  answer: FakeAnswer | ((i: number) => FakeAnswer),
  popts: Partial<HttpProviderOptions> = {},
): Promise<{ err?: ProviderError; calls: number; res?: unknown }> {
  server = await startFakeOpenAI({ respond: (_req, i) => (typeof answer === 'function' ? answer(i) : answer) });
  const provider = createOpenAIProvider({ baseUrl: server.url, model: 'm', retries: 3, retryBaseMs: 1, ...popts });
  try {
    const res = await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    return { res, calls: server.requests.length };
  } catch (err) {
    return { err: err as ProviderError, calls: server.requests.length };
  } finally {
    await provider.close();
  }
}

const completion = (message: unknown) => ({ status: 200, body: { id: 'x', choices: [{ index: 0, message, finish_reason: 'stop' }] } });

describe('malformed chat completions', () => {
  // Used to quote the reply as it came: a gateway echoing the key put it in stderr, the results and the log.
  it('a 2xx in the wrong shape is quoted with the key (and credential-looking values) blanked', async () => {
    const key = 'gw-plain-key-0123456789';
    const { err } = await ask({ status: 200, body: { echo: { key_used: key, authorization: `Bearer ${key}` }, note: 'no choices' } } as FakeAnswer, {
      apiKey: key,
    });
    expect(err!.code).toBe('PROVIDER_RESPONSE');
    expect(err!.message).toContain('no choices[0].message');
    expect(err!.message).toContain('key_used');
    expect(err!.message).not.toContain(key);
  });

  it.each([
    { name: 'content: 42', message: { role: 'assistant', content: 42 }, msg: 'choices[0].message.content is a number, expected a string' },
    {
      name: 'tool_calls: "nope"',
      message: { role: 'assistant', content: null, tool_calls: 'nope' },
      msg: 'choices[0].message.tool_calls is a string, expected a list',
    },
    { name: 'a tool call that is not an object', message: { role: 'assistant', tool_calls: [7] }, msg: 'tool_calls[0] is not a function call with a name' },
    {
      name: 'a tool call without a name',
      message: { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { arguments: '{}' } }] },
      msg: 'tool_calls[0] is not a function call with a name',
    },
    {
      name: 'arguments that are a number',
      message: { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 5 } }] },
      msg: 'tool_calls[0].function.arguments is a number',
    },
  ])('$name is an infrastructure error, not a model answer', async ({ message, msg }) => {
    const { err } = await ask(completion(message) as FakeAnswer);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err!.code).toBe('PROVIDER_RESPONSE');
    expect(err!.message).toContain(msg);
  });

  it('keeps arguments that are not valid JSON as the model wrote them (scored as a malformed call)', async () => {
    const { res } = await ask(
      completion({ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a": ' } }] }) as FakeAnswer,
    );
    expect((res as { toolCalls: unknown[] }).toolCalls).toEqual([{ id: 'c', name: 'f', arguments: { _raw: '{"a": ' } }]);
  });
});

describe('malformed Anthropic messages', () => {
  it.each([
    { name: 'a block that is a number', content: [42], msg: 'content[0] is not a content block' },
    { name: 'text that is not a string', content: [{ type: 'text', text: 42 }], msg: 'content[0].text is not a string' },
    { name: 'tool_use input that is a string', content: [{ type: 'tool_use', id: 't', name: 'f', input: 'nope' }], msg: 'content[0] is a tool_use block' },
  ])('$name is an infrastructure error', async ({ content, msg }) => {
    server = await startFakeAnthropic({
      respond: () => ({ status: 200, body: { id: 'm', type: 'message', role: 'assistant', content, stop_reason: 'end_turn' } }),
    });
    const provider = createAnthropicProvider({ baseUrl: server.url, model: 'c', apiKey: 'k', retries: 1 });
    try {
      const err = await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] }).then(
        () => undefined,
        (e: ProviderError) => e,
      );
      expect(err?.code).toBe('PROVIDER_RESPONSE');
      expect(err?.message).toContain(msg);
    } finally {
      await provider.close();
    }
  });
});

describe('bounded and honest HTTP', () => {
  it('fails once, without retrying, on a body over the size limit', async () => {
    const { err, calls } = await ask({ status: 200, body: { pad: 'x'.repeat(5000) } }, { maxResponseBytes: 1000 });
    expect(err!.code).toBe('PROVIDER_RESPONSE');
    expect(err!.message).toMatch(/the response body is larger than 1000 bytes \(not retried\)/);
    expect(err!.hint).toContain('max_response_bytes');
    expect(calls).toBe(1);
  });

  it('names where a redirect points (password redacted) and does not follow it', async () => {
    const { err, calls } = await ask({
      status: 307,
      headers: { location: 'https://user:hunter2secret@api.example.test/v1/chat/completions?api-key=abcd1234' },
    });
    expect(err!.message).toContain('answered 307: redirect to https://***:***@api.example.test/v1/chat/completions?api-key=***; redirects are not followed');
    expect(err!.message).not.toContain('hunter2secret');
    expect(calls).toBe(1);
  });

  it.each([400, 401, 500])('redacts a key the error body echoes (status %i)', async (status) => {
    const { err } = await ask(
      { status, body: { error: { message: 'invalid header Authorization: Bearer sk-proj-ECHOEDKEY123456 for key=sk-ECHOEDKEY123456' } } },
      { retries: 1 },
    );
    expect(err!.message).not.toContain('ECHOEDKEY');
    expect(err!.message).toContain('Bearer ***');
  });

  it('names the request with its URL redacted (user-info of the base URL)', async () => {
    server = await startFakeOpenAI({ respond: () => ({ status: 400, body: { error: { message: 'no' } } }) });
    const baseUrl = server.url.replace('http://', 'http://user:BASEURLPW99@');
    const provider = createOpenAIProvider({ baseUrl, model: 'm', retries: 1 });
    const err = await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] }).catch((e: unknown) => e as ProviderError);
    await provider.close();
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toMatch(/POST http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\//);
    expect((err as ProviderError).message).not.toContain('BASEURLPW99');
  });

  it('says what each retry wait is for', async () => {
    const lines: string[] = [];
    const { res } = await ask((i) => (i < 2 ? { status: 503 } : { text: 'ok' }), { onRetry: (r) => lines.push(`${r.attempt} ${r.reason}`) });
    expect(res).toBeDefined();
    expect(lines).toEqual(['1 HTTP 503', '2 HTTP 503']);
  });

  it.each([
    { name: 'with a content-length', chunked: false },
    { name: 'chunked, a character cut between chunks', chunked: true },
  ])('reads a whole answer $name, and refuses one over the limit', async ({ chunked }) => {
    const text = JSON.stringify(completion({ role: 'assistant', content: 'héllo wörld ✓' }).body);
    const bytes = Buffer.from(text, 'utf8');
    const raw = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (!chunked) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
          res.end(bytes);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        const cut = bytes.indexOf(Buffer.from('✓', 'utf8')) + 1;
        res.write(bytes.subarray(0, cut));
        setTimeout(() => res.end(bytes.subarray(cut)), 5);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`;
    try {
      for (const [limit, ok] of [
        [undefined, true],
        [bytes.length, true],
        [bytes.length - 1, false],
      ] as const) {
        const provider = createOpenAIProvider({ baseUrl: url, model: 'm', retries: 1, ...(limit !== undefined ? { maxResponseBytes: limit } : {}) });
        try {
          const got = await provider.chat({ messages: [{ role: 'user', content: 'hi' }], tools: [] }).then(
            (r) => r.text,
            (e: ProviderError) => e,
          );
          if (ok) expect(got).toBe('héllo wörld ✓');
          else expect((got as ProviderError).message).toContain(`the response body is larger than ${bytes.length - 1} bytes (not retried)`);
        } finally {
          await provider.close();
        }
      }
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });
});

describe('run says what its retries are doing', () => {
  it('prints one "retrying:" line per cause (not per wait)', async () => {
    server = await startFakeOpenAI({ respond: (_req, i) => (i === 0 ? { status: 503 } : { text: 'done' }) });
    const dir = mkdtempSync(join(tmpdir(), 'runspec-retry-'));
    try {
      writeFileSync(join(dir, 'c.json'), JSON.stringify({ cases: [{ id: 'a', user_prompt: 'x', expected_actions: [{ tool: 'read_file' }], n_runs: 1 }] }));
      const r = await runCli(
        ['run', join(dir, 'c.json'), '--base-url', server.url, '--model', 'm', '--retries', '2', '--no-telemetry', '--out', join(dir, 'r.json')],
        { cwd: dir, env: { HOME: dir, OPENAI_API_KEY: 'sk-x' } },
      );
      expect(
        r.stderr.match(/^retrying: openai: HTTP 503; attempt 2 in \d+\.\d s \(further retries for this cause are not shown; -v shows each\)$/gm),
      ).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('redactEchoedSecrets', () => {
  it.each([
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer ***'],
    ['{"api_key": "k-123"}', '{"api_key": "***"}'],
    ['https://u:p4ss@h/x?key=zz&b=1', 'https://u:***@h/x?key=***&b=1'],
    ['sk-ant-api03-abcdefghij', 'sk-***'],
  ])('%s', (input, want) => {
    expect(redactEchoedSecrets(input)).toBe(want);
  });
});
