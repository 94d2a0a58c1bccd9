import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { allText, cliEnv, tempProject } from './_helpers.js';

// The http target's POST goes through the one HTTP client: a reply over the size limit is refused without
// being read whole, a redirect is not followed, and credentials in the target's URL are sent as Basic auth
// and never printed. The built CLI against a local agent that answers with OpenAI-style tool calls.

const PASSWORD = 'pa55-agent-secret';
const CASE = `[[eval]]
id = "weather"
prompt = "What is the weather in Paris?"
expect_tool = "get_weather"
`;
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
const CALLS = JSON.stringify({ tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });

describe('http target on the one HTTP client (built CLI)', { timeout: 60_000 }, () => {
  const project = tempProject('runspec-http-client-');
  let server: Server;
  let tlsServer: Server;
  let base = '';
  /** Bytes of the big reply the agent managed to write before the client stopped reading. */
  const seen: { bigWritten: number; authorization: string[]; redirectedTo: number; hangClosed: boolean; rawHeaders: string[][] } = {
    bigWritten: 0,
    authorization: [],
    redirectedTo: 0,
    hangClosed: false,
    rawHeaders: [],
  };

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      for await (const _ of req) void _;
      seen.authorization.push(req.headers.authorization ?? '');
      seen.rawHeaders.push(req.rawHeaders);
      if (req.url === '/big') {
        // 64 MiB, written in chunks with no content-length: the client must stop at its limit.
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        for (let i = 0; i < 1024; i++) {
          if (!res.write(chunk)) await drainedOrClosed(res);
          if (res.destroyed) return;
          seen.bigWritten += chunk.length;
        }
        res.end();
        return;
      }
      if (req.url === '/hang') {
        res.on('close', () => (seen.hangClosed = true));
        return;
      }
      if (req.url === '/moved') {
        res.writeHead(302, { location: `${base}/landing?token=redirect-token-secret` }).end();
        return;
      }
      if (req.url === '/landing') seen.redirectedTo++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(CALLS);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    // The committed test CA and its 127.0.0.1 certificate (test/telemetry/tls/README.md).
    const tls = (f: string) => readFileSync(join(REPO_ROOT, 'test/telemetry/tls', f));
    tlsServer = createHttpsServer({ key: tls('server.key'), cert: tls('server.pem') }, async (req, res) => {
      for await (const _ of req) void _;
      res.writeHead(200, { 'content-type': 'application/json' }).end(CALLS);
    });
    tlsServer.listen(0, '127.0.0.1');
    await once(tlsServer, 'listening');
    const tlsUrl = `https://127.0.0.1:${(tlsServer.address() as { port: number }).port}/chat`;
    project.write('cases.toml', CASE);
    // A template whose header names are not lower-case: they still replace the URL's Basic auth and the default content type.
    project.write(
      'request.json',
      JSON.stringify({ headers: { Authorization: 'Bearer template-token', 'Content-Type': 'application/json; charset=utf-8' }, body: { input: '{{prompt}}' } }),
    );
    const target = (name: string, url: string, extra = '') =>
      `[targets.${name}]\nkind = "http"\nurl = "${url}"\nquiet_ms = 20\ntrace_timeout_ms = 200\n${extra}\n`;
    project.write(
      'runspec.toml',
      `[telemetry]\nenabled = false\n\n` +
        target('big', `${base}/big`, 'max_response_bytes = 65536') +
        target('moved', `${base}/moved`) +
        target('hang', `${base}/hang`, 'timeout_ms = 300') +
        target('creds', `http://agent:${PASSWORD}@127.0.0.1:${(server.address() as { port: number }).port}/chat`) +
        target('credstpl', `http://agent:${PASSWORD}@127.0.0.1:${(server.address() as { port: number }).port}/chat`, 'template = "request.json"') +
        target('badpct', `http://agent:50%@127.0.0.1:${(server.address() as { port: number }).port}/chat`) +
        target('tls', tlsUrl, `ca_file = "${join(REPO_ROOT, 'test/telemetry/tls/ca.pem')}"`) +
        target('untrusted', tlsUrl) +
        target('nocafile', tlsUrl, 'ca_file = "certs/missing.pem"'),
    );
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    tlsServer.closeAllConnections();
    tlsServer.close();
    project.cleanup();
  });

  const run = (target: string) =>
    runCli(['--path', project.dir, 'run', 'cases.toml', '--target', target, '--out', join(project.dir, `out/${target}.json`), '--output', 'json'], {
      env: cliEnv(project.dir),
      cwd: project.dir,
      spawn: true,
    });
  const sampleOf = (target: string) => {
    const doc = JSON.parse(readFileSync(join(project.dir, `out/${target}.json`), 'utf8'));
    return JSON.stringify(doc);
  };

  it('refuses a reply over max_response_bytes with one clear error, without reading it whole', async () => {
    const cli = await run('big');
    expect(cli.exitCode).toBe(3);
    const text = cli.stdout + cli.stderr + sampleOf('big');
    expect(text).toContain(
      `target big: POST ${base}/big: the response body is larger than 65536 bytes (not retried); raise targets.big.max_response_bytes or have the agent answer less`,
    );
    // The agent was cut off long before its 64 MiB were written.
    expect(seen.bigWritten).toBeLessThan(16 * 1024 * 1024);
  });

  it('does not follow a redirect and names where it pointed, redacted', async () => {
    const cli = await run('moved');
    expect(cli.exitCode).toBe(3);
    const text = cli.stdout + cli.stderr + sampleOf('moved');
    expect(text).toContain(
      `target moved: POST ${base}/moved answered 302: redirect to ${base}/landing?token=***; redirects are not followed; set targets.moved.url to the address it redirects to`,
    );
    expect(text).not.toContain('redirect-token-secret');
    expect(seen.redirectedTo).toBe(0);
  });

  it('sends the credentials of the URL as Basic auth and never prints them', async () => {
    seen.authorization.length = 0;
    const cli = await run('creds');
    expect(cli.stderr).not.toMatch(/^error/m);
    expect(cli.exitCode).toBe(0);
    expect(seen.authorization).toEqual([`Basic ${Buffer.from(`agent:${PASSWORD}`).toString('base64')}`]);
    const config = await runCli(['--path', project.dir, 'config', '--target', 'creds'], { env: cliEnv(project.dir), cwd: project.dir, spawn: true });
    expect(config.stdout).toContain('target.creds');
    const everything = cli.stdout + cli.stderr + config.stdout + config.stderr + allText(join(project.dir, 'out'));
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(Buffer.from(`agent:${PASSWORD}`).toString('base64'));
  });

  it("lets a template's own Authorization and Content-Type headers win, whatever their case: each is sent once", async () => {
    seen.rawHeaders.length = 0;
    const cli = await run('credstpl');
    expect(cli.stderr).not.toMatch(/^error/m);
    expect(cli.exitCode).toBe(0);
    expect(seen.rawHeaders).toHaveLength(1);
    const sent = seen.rawHeaders[0]!;
    const values = (name: string) => sent.filter((_, i) => i % 2 === 1 && sent[i - 1]!.toLowerCase() === name);
    expect(values('authorization')).toEqual(['Bearer template-token']);
    expect(values('content-type')).toEqual(['application/json; charset=utf-8']);
  });

  it('refuses a URL password that is not valid percent-encoding (exit 2, one line, the password not printed)', async () => {
    const cli = await run('badpct');
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/^error: runspec\.toml: targets\.badpct\.url: the user or password is not valid percent-encoding \(write % as %25\)$/m);
    expect(cli.stderr).not.toMatch(/\n\s+at /);
    expect(cli.stdout + cli.stderr).not.toContain('50%');
  });

  it("trusts an https agent through the target's ca_file, and refuses it without", async () => {
    const trusted = await run('tls');
    expect(trusted.stderr).not.toMatch(/^error/m);
    expect(trusted.exitCode).toBe(0);
    const untrusted = await run('untrusted');
    expect(untrusted.exitCode).toBe(3);
    expect(untrusted.stdout + untrusted.stderr + sampleOf('untrusted')).toMatch(
      /target untrusted: POST https:\/\/127\.0\.0\.1:\d+\/chat: connection failed \([A-Z_]+\); trust its certificate's CA with targets\.untrusted\.ca_file/,
    );
  });

  it('refuses a TLS file it cannot read before anything runs (exit 2, one line)', async () => {
    const cli = await run('nocafile');
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/^error: runspec\.toml: targets\.nocafile\.ca_file: cannot read the TLS CA file \S+certs\/missing\.pem: ENOENT$/m);
    expect(cli.stderr).not.toMatch(/\n\s+at /);
  });

  it("cancels the request at the target's timeout_ms, closing the connection", async () => {
    const cli = await run('hang');
    expect(cli.exitCode).toBe(3);
    expect(cli.stdout + cli.stderr + sampleOf('hang')).toContain('TARGET_TIMEOUT: no answer within 300 ms');
    expect(seen.hangClosed).toBe(true);
  });
});
