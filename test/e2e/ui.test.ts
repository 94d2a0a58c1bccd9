import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, isolatedEnv } from '../helpers/run-cli.js';

// `runspec-eval ui` as a real process: it prints its URL (token in the fragment), serves the API on
// loopback with that token only, and stops cleanly on SIGTERM. The page itself is tested in
// test/console/console-browser.test.ts.
describe('runspec-eval ui', () => {
  it('prints a loopback URL with a session token, answers only with the token, opens it with --open, and exits 0 on SIGTERM', async () => {
    const project = mkdtempSync(join(tmpdir(), 'runspec-ui-cli-'));
    writeFileSync(join(project, 'runspec.toml'), '[telemetry]\ntrace_url = "http://localhost:6006/projects/default/traces/{trace_id}"\n');
    // A browser opener on PATH that only writes down the URL it was handed.
    const bin = join(project, 'bin');
    const opened = join(project, 'opened.txt');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'xdg-open'),
      `#!${process.execPath}\nconst fs = require('node:fs');\nfs.writeFileSync(${JSON.stringify(`${opened}.tmp`)}, process.argv[2]);\nfs.renameSync(${JSON.stringify(`${opened}.tmp`)}, ${JSON.stringify(opened)});\n`,
    );
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const PATH = `${bin}${delimiter}${process.env.PATH ?? ''}`;
    const child = spawn(process.execPath, [CLI, '--path', project, 'ui', '--port', '0', '--open'], {
      env: { PATH, ...isolatedEnv(), HOME: project },
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${stderr}`)), 20_000);
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        const m = /runspec-eval console: (http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.on('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
    const { origin, hash } = new URL(url);
    const token = hash.slice('#token='.length);
    expect((await fetch(`${origin}/api/info`)).status).toBe(401);
    const info = await fetch(`${origin}/api/info`, { headers: { 'x-runspec-token': token } });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ canRun: true, traceLinks: true });
    for (let i = 0; i < 200 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(opened, 'utf8')).toBe(url);
    const page = await fetch(`${origin}/`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
