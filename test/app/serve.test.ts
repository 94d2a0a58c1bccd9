// `serve` as an app function: a handle with the address, the pipeline and close(); no printing, no signals.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeContext } from '../../src/app/serve.js';
import { request, span } from '../traces/_otlp.js';

const dir = mkdtempSync(join(tmpdir(), 'runspec-serve-app-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function context(out: string[], warnings: string[], env: Record<string, string> = {}): ServeContext {
  return { projectDir: dir, cwd: dir, env: { HOME: dir, ...env }, out: (t) => out.push(t), err: () => {}, warn: (w) => warnings.push(w) };
}

const BASE = { host: '127.0.0.1', port: 0, quietMs: 50, maxTraces: 100, maxBodyBytes: 1 << 20 };

describe('startServe', () => {
  it('listens, requires the token, scores what arrives, and on close writes the lines and the results document', async () => {
    writeFileSync(join(dir, 'rules.toml'), '[[rule]]\nname = "no-shell"\nforbid_tools = ["bash"]\n');
    const out: string[] = [];
    const warnings: string[] = [];
    const handle = await startServe(context(out, warnings, { SERVE_TOKEN: 'tok' }), {
      ...BASE,
      tokenEnv: 'SERVE_TOKEN',
      rules: 'rules.toml',
      results: 'served.json',
    });
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const body = JSON.stringify(
      request([
        span({ trace: 1, id: 1, name: 'invoke_agent a', start: 0, end: 10, attrs: { 'gen_ai.operation.name': 'invoke_agent' } }),
        span({
          trace: 1,
          id: 2,
          parent: 1,
          name: 'execute_tool bash',
          start: 1,
          end: 2,
          attrs: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.arguments': '{"command":"ls"}' },
        }),
      ]),
    );
    const anonymous = await fetch(`${handle.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(anonymous.status).toBe(401);
    const posted = await fetch(`${handle.url}/v1/traces`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: 'Bearer tok' },
    });
    expect(posted.status).toBe(200);
    const closed = await handle.close();
    expect(closed.summary.traces).toBe(1);
    expect(closed.resultsPath).toBe(join(dir, 'served.json'));
    expect(JSON.parse(readFileSync(closed.resultsPath!, 'utf8')).inputs).toMatchObject({ traces: 1 });
    expect(out.join('\n')).toMatch(/"rule":"no-shell".*"verdict":\{"category":"forbidden_tool"/);
    expect(warnings).toEqual([]);
  });

  // A failed listen used to leave the --out file, the metrics and the verdict sinks (and a gRPC server) open.
  describe('a failed listen closes what serve opened', () => {
    // Linux (every machine of the project) lists this process's open files in /proc/self/fd: none may still point at the --out file.
    const openOn = (file: string): number =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      }).length;
    it.each([
      { name: 'the HTTP port is taken', taken: 'port' as const, want: /serve: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/ },
      { name: 'the gRPC port is taken', taken: 'grpc' as const, want: /serve: cannot listen for gRPC on 127\.0\.0\.1:\d+/ },
    ])('$name', async ({ taken, want }) => {
      const busy = createServer();
      await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
      const port = (busy.address() as { port: number }).port;
      const out = `busy-${taken}.jsonl`;
      try {
        await expect(startServe(context([], []), { ...BASE, [taken]: port, out })).rejects.toThrow(want);
        expect(openOn(join(dir, out))).toBe(0);
      } finally {
        await new Promise((r) => busy.close(r));
      }
    });
  });

  it('refuses a token variable that is not set, before listening', async () => {
    await expect(startServe(context([], []), { ...BASE, tokenEnv: 'NOPE' })).rejects.toThrow(/--token-env NOPE: the variable is not set or empty/);
  });
});
