import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, ProviderError } from '../../src/errors.js';
import { createMockProvider } from '../../src/providers/mock.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'runspec-mock-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const user = (content: string) => [{ role: 'user' as const, content }];

describe('mock provider', () => {
  it('answers by case id and turn, and ends with "done" past the script', async () => {
    const p = createMockProvider({ file: join(REPO_ROOT, 'examples/mock-script.json') });
    const t0 = await p.chat({ messages: user('x'), tools: [], key: { caseId: 'read-file-lines', sample: 0, turn: 0 } });
    expect(t0.toolCalls).toEqual([{ id: 'call_0_0', name: 'file_read', arguments: { path: 'src/app.py' } }]);
    expect(t0.finishReason).toBe('tool_calls');
    expect(t0.usage.totalTokens).toBe((t0.usage.promptTokens ?? 0) + (t0.usage.completionTokens ?? 0));
    const t1 = await p.chat({ messages: user('x'), tools: [], key: { caseId: 'read-file-lines', sample: 0, turn: 1 } });
    expect(t1.text).toBe('src/app.py has 4 lines.');
    const t2 = await p.chat({ messages: user('x'), tools: [], key: { caseId: 'read-file-lines', sample: 0, turn: 2 } });
    expect(t2).toMatchObject({ text: 'done', toolCalls: [] });
  });

  it('picks per-sample answers, prompt answers, raw arguments and scripted errors', async () => {
    const p = createMockProvider({ file: join(REPO_ROOT, 'examples/mock-script.json') });
    const s1 = await p.chat({ messages: user('x'), tools: [], key: { caseId: 'flaky-case', sample: 1, turn: 0 } });
    expect(s1.text).toContain('"tool"');
    const s2 = await p.chat({ messages: user('x'), tools: [], key: { caseId: 'flaky-case', sample: 2, turn: 0 } });
    expect(s2.toolCalls[0]!.name).toBe('service_status');
    const byPrompt = await p.chat({ messages: user('delete everything'), tools: [], key: { caseId: 'other', sample: 0, turn: 0 } });
    expect(byPrompt.text).toContain('Which host');
    const raw = await p.chat({ messages: user('x'), tools: [], key: { caseId: 'bad-arguments', sample: 0, turn: 0 } });
    expect(raw.toolCalls[0]!.arguments).toEqual({ _raw: '{"path": ' });
    const err = await p.chat({ messages: user('x'), tools: [], key: { caseId: 'provider-outage', sample: 0, turn: 0 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).code).toBe('PROVIDER');
  });

  it('rejects a malformed script naming the file and field', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ cases: { a: [{ toolCalls: [{ arguments: {} }] }] } }));
    expect(() => createMockProvider({ file })).toThrow(ConfigError);
    expect(() => createMockProvider({ file })).toThrow(/bad\.json: cases\.a\.0\.toolCalls\.0\.name/);
  });
});
