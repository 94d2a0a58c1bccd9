import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';

// A case whose MCP call hit a dying server used to be an errored sample (exit 3) even when the server
// was restarted for the next call: now the sample runs again on the restarted server, and the run exits
// 0 when that attempt passes; a restart that fails still leaves an errored sample and exit 3.

const SERVER = join(REPO_ROOT, 'test/engine/fixtures/mcp-fragile-server.mjs');
const project = tempProject('runspec-mcp-restart-');
afterAll(() => project.cleanup());

describe('a restarted MCP server', { timeout: 120_000 }, () => {
  it.each([
    { name: 'the sample passes on the restarted server: exit 0', tool: 'crash_once', exitCode: 0 },
    { name: 'the restart fails: exit 3', tool: 'crash_for_good', exitCode: 3 },
  ])('$name', async ({ tool, exitCode }) => {
    project.write(`${tool}.json`, JSON.stringify({ defaults: { n_runs: 1 }, cases: [{ id: 'flaky', user_prompt: 'Call it.', expected_actions: [{ tool }] }] }));
    project.write('mock.json', JSON.stringify({ cases: { flaky: [{ toolCalls: [{ name: tool, arguments: {} }] }, { text: 'done' }] } }));
    const cli = await runCli(
      [
        '--path',
        project.dir,
        'run',
        `${tool}.json`,
        '--provider',
        'mock:mock.json',
        '--toolset',
        `mcp:${process.execPath} ${SERVER} ${join(project.dir, `${tool}.starts`)}`,
        '--no-telemetry',
      ],
      { env: cliEnv(project.dir), cwd: project.dir, spawn: true },
    );
    expect(cli.exitCode, cli.stderr).toBe(exitCode);
    expect(cli.stderr).toMatch(/the MCP server died during a call to/);
    expect(cli.stderr).toContain('flaky#0: running the sample again after the MCP server restart');
  });
});
