import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { tempProject } from '../e2e/_helpers.js';
import { caseResultsFromDocument } from '../../src/report/results.js';
import { CASES_TOML, SCRIPT } from '../targets/_project.js';
import { itCacheDir } from './setup/cache.js';

// A Python agent as a command target, through the built CLI: the `openai` package instrumented by
// OpenInference, exporting to the run's receiver and continuing TRACEPARENT. Its venv is cached outside the clone.

const AGENT = join(REPO_ROOT, 'test/integration/agents/python_agent.py');
const REQUIREMENTS = join(REPO_ROOT, 'test/integration/agents/requirements-python-agent.txt');

function pythonVenv(): string {
  const dir = itCacheDir('python-agent-venv');
  const python = join(dir, 'bin/python');
  const stamp = join(dir, 'requirements.txt');
  const wanted = readFileSync(REQUIREMENTS, 'utf8');
  if (!existsSync(python) || !existsSync(stamp) || readFileSync(stamp, 'utf8') !== wanted) {
    execFileSync('python3', ['-m', 'venv', '--clear', dir], { stdio: 'inherit' });
    execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS], { stdio: 'inherit', env: { ...process.env, PIP_CACHE_DIR: itCacheDir('pip-cache') } });
    execFileSync('cp', [REQUIREMENTS, stamp]);
  }
  return python;
}

describe('a Python command target', () => {
  const project = tempProject('runspec-python-target-');
  let model: FakeModelServer;
  let python: string;
  beforeAll(async () => {
    python = pythonVenv();
    model = await startFakeOpenAI({ script: SCRIPT });
    project.write('cases.toml', CASES_TOML);
    project.write('runspec.toml', `[telemetry]\nenabled = false\n\n[targets.py]\nkind = "command"\ncommand = ["${python}", "${AGENT}"]\nvars = { base_url = "${model.url}" }\nquiet_ms = 100\n`);
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });

  it('reports the verdict its trace supports: one pass, one wrong_tool', async () => {
    const out = join(project.dir, 'results.json');
    const cli = await runCli(['--path', project.dir, 'run', 'cases.toml', '--target', 'py', '--out', out], { env: { HOME: project.dir }, cwd: project.dir, spawn: true, timeoutMs: 120_000 });
    expect(cli.stderr).not.toMatch(/^error/m);
    expect(cli.exitCode).toBe(1);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.meta.target).toEqual({ name: 'py', kind: 'command' });
    const v = Object.fromEntries(caseResultsFromDocument(doc).map((r) => [r.caseId, (r.samples[0] as { verdict: { category: string; reason: string } }).verdict]));
    expect(v['weather-paris']).toMatchObject({ category: 'pass', reason: expect.stringContaining('calls read from the trace') });
    expect(v['time-tokyo']).toMatchObject({ category: 'wrong_tool' });
  });
});
