import { createServer, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { callsIn, openHttpTarget } from '../../src/engine/targets/http.js';
import type { Case } from '../../src/types/index.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

async function captureServer(): Promise<{ url: string; seen: Array<{ headers: IncomingMessage['headers']; body: unknown }> }> {
  const seen: Array<{ headers: IncomingMessage['headers']; body: unknown }> = [];
  const srv = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    seen.push({ headers: req.headers, body: JSON.parse(body) });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { calls: [{ name: 'lookup', arguments: '{"q":"x"}' }] } }));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  cleanup.push(() => srv.close());
  return { url: `http://127.0.0.1:${(srv.address() as { port: number }).port}/chat`, seen };
}

const kase: Case = {
  id: 'c1',
  dialect: 'runspec',
  mode: 'decision',
  tags: [],
  source: { file: 'cases.toml', line: 1, source: 'file' },
  prompt: 'hi',
  files: {},
  settings: {},
  headers: { 'X-Tenant': '{{vars.tenant}}' },
};

describe('http target requests', () => {
  it('fills the template: whole-value JSON, escaped text, case headers, env values, traceparent; maps calls from a path', async () => {
    const server = await captureServer();
    const dir = mkdtempSync(join(tmpdir(), 'runspec-http-tpl-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'req.json'),
      JSON.stringify({
        headers: { authorization: 'Bearer {{env.TOKEN}}' },
        body: { history: '{{history}}', n: '{{vars.n}}', text: 'n={{vars.n}} p={{prompt}}', sys: '{{system}}' },
      }),
    );
    const target = openHttpTarget({
      name: 'svc',
      url: server.url,
      template: 'req.json',
      responseToolCalls: 'result.calls',
      projectDir: dir,
      env: { TOKEN: 'tok-secret-9' },
      defaults: {},
      quietMs: 0,
      traceTimeoutMs: 1000,
    });
    const input = { prompt: 'say "hi"\n}}', messages: [{ role: 'user' as const, content: 'before' }], vars: { n: 3, tenant: 'acme' }, files: {} };
    const reply = await target.invoke({
      case: kase,
      sample: 0,
      input,
      parent: ROOT_CONTEXT,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      signal: AbortSignal.timeout(5000),
    });
    const got = server.seen[0]!;
    expect(got.body).toEqual({ history: [{ role: 'user', content: 'before' }], n: 3, text: 'n=3 p=say "hi"\n}}', sys: null });
    expect(got.headers).toMatchObject({
      authorization: 'Bearer tok-secret-9',
      'x-tenant': 'acme',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(reply).toMatchObject({ replyCalls: [{ id: 'call_0', name: 'lookup', arguments: { q: 'x' } }], replyCallsPath: 'result.calls' });
  });

  it('refuses an {{env.NAME}} that is not set, with the template file and line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-http-tpl-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'req.json'), '{\n  "headers": {\n    "authorization": "{{env.NOPE}}"\n  },\n  "body": {}\n}\n');
    expect(() =>
      openHttpTarget({ name: 'svc', url: 'http://127.0.0.1:9/', template: 'req.json', projectDir: dir, env: {}, defaults: {}, quietMs: 0, traceTimeoutMs: 1 }),
    ).toThrow(`${join(dir, 'req.json')}:3: {{env.NOPE}}: the environment variable NOPE is not set`);
  });

  it.each([
    { name: 'a top-level tool_calls list', body: { tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"x":1}' } }] }, path: 'tool_calls' },
    {
      name: 'an OpenAI chat completion',
      body: { choices: [{ message: { tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] } }] },
      path: 'choices.0.message.tool_calls',
    },
  ])('reads calls from $name', ({ body, path }) => {
    expect(callsIn(body)).toEqual({ calls: [{ id: 'a', name: 'f', arguments: { x: 1 } }], path });
  });
});
