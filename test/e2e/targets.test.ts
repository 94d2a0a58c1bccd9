import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { allText, cliEnv, tempProject } from './_helpers.js';
import { caseResultsFromDocument } from '../../src/report/results.js';
import { AGENTS, CASES_TOML, SCRIPT } from '../targets/_project.js';

// The built CLI as a process: the same case file against a model target, an AI SDK module target and a
// command target, each reporting the verdict its trace supports; `compare` across a model and an agent.

const TOOLS = JSON.stringify([
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Current weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
  {
    type: 'function',
    function: { name: 'get_time', description: 'Local time of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
]);

describe('targets through the built CLI', { timeout: 120_000 }, () => {
  const project = tempProject('runspec-targets-e2e-');
  let model: FakeModelServer;
  beforeAll(async () => {
    model = await startFakeOpenAI({ script: SCRIPT });
    project.write('cases.toml', CASES_TOML);
    project.write('tools.json', TOOLS);
    project.write(
      'runspec.toml',
      `[telemetry]
enabled = false

[providers.fake]
kind = "openai"
base_url = "${model.url}"
model = "fake-model"

[targets.bare]
kind = "model"
provider = "fake"
toolset = "tools.json"

[targets.aisdk]
kind = "module"
module = "${join(AGENTS, 'ai-sdk.mjs')}"
vars = { base_url = "${model.url}" }
quiet_ms = 50

[targets.cmd]
kind = "command"
command = ["${process.execPath}", "${join(AGENTS, 'command-agent.mjs')}"]
vars = { base_url = "${model.url}" }
quiet_ms = 50
`,
    );
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  it('config lists the targets and the one --target picks', async () => {
    const cli = await runCli(['--path', project.dir, 'config', '--target', 'aisdk', '--output', 'json'], {
      env: cliEnv(project.dir),
      cwd: project.dir,
      spawn: true,
    });
    expect(cli.exitCode).toBe(0);
    const rows = JSON.parse(cli.stdout) as Record<string, { value: string; source: string }>;
    expect(rows['target.bare']).toEqual({ value: 'model: provider fake', source: 'file' });
    expect(rows['target.aisdk']!.value).toMatch(/^module: .*ai-sdk\.mjs$/);
    expect(rows['target.cmd']!.value).toMatch(/^command: .*command-agent\.mjs$/);
    expect(rows.target).toEqual({ value: 'aisdk (module)', source: 'flag' });
  });

  it.each([
    { target: 'bare', kind: 'model' },
    { target: 'aisdk', kind: 'module' },
    { target: 'cmd', kind: 'command' },
  ])('runs the case file on the $kind target $target: one pass, one wrong_tool, exit 1', async ({ target, kind }) => {
    const out = join(project.dir, `out/${target}.json`);
    const cli = await runCli(['--path', project.dir, 'run', 'cases.toml', '--target', target, '--out', out, '--output', 'json'], {
      env: cliEnv(project.dir),
      cwd: project.dir,
      spawn: true,
    });
    expect(cli.stderr).not.toMatch(/^error/m);
    expect(cli.exitCode).toBe(1);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.meta.target).toEqual({ name: target, kind });
    const cats = Object.fromEntries(caseResultsFromDocument(doc).map((r) => [r.caseId, (r.samples[0] as { verdict: { category: string } }).verdict.category]));
    expect(cats).toEqual({ 'weather-paris': 'pass', 'time-tokyo': 'wrong_tool' });
    expect(allText(join(project.dir, 'out'))).not.toContain('sk-test');
  });

  it('compares a model target with the agent built on it', async () => {
    const cli = await runCli(['--path', project.dir, 'compare', 'bare,aisdk', 'cases.toml', '--out', join(project.dir, 'cmp/r.json')], {
      env: cliEnv(project.dir),
      cwd: project.dir,
      spawn: true,
    });
    expect(cli.stderr).not.toMatch(/^error/m);
    expect(cli.exitCode).toBe(1);
    expect(cli.stdout).toContain('bare');
    expect(cli.stdout).toContain('aisdk');
    expect(JSON.parse(readFileSync(join(project.dir, 'cmp/r.aisdk.json'), 'utf8')).meta.target).toEqual({ name: 'aisdk', kind: 'module' });
  });

  it('refuses an unknown --target with the names there are (exit 2)', async () => {
    const cli = await runCli(['--path', project.dir, 'run', 'cases.toml', '--target', 'aisdkk'], { env: cliEnv(project.dir), cwd: project.dir, spawn: true });
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/^error: --target aisdkk: no \[targets\.aisdkk\] in runspec\.toml \(targets: bare, aisdk, cmd\); did you mean "aisdk"\?$/m);
  });
});
