import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { tempProject } from '../e2e/_helpers.js';
import { caseResultsFromDocument } from '../../src/report/results.js';
import { CASES_TOML, SCRIPT } from '../targets/_project.js';
import { freePort, startAgentProcess, type AgentProcess } from '../targets/_agent-process.js';
import { itCacheDir } from './setup/cache.js';

// A Python agent as a command target, through the built CLI: the `openai` package instrumented by
// OpenInference, exporting to the run's receiver and continuing TRACEPARENT. Its venv is cached outside the clone.

const AGENT = join(REPO_ROOT, 'test/integration/agents/python_agent.py');
const HTTP_AGENT = join(REPO_ROOT, 'test/integration/agents/python_http_agent.py');
const REQUIREMENTS = join(REPO_ROOT, 'test/integration/agents/requirements-python-agent.txt');

function pythonVenv(): string {
  const dir = itCacheDir('python-agent-venv');
  const python = join(dir, 'bin/python');
  const stamp = join(dir, 'requirements.txt');
  const wanted = readFileSync(REQUIREMENTS, 'utf8');
  if (!existsSync(python) || !existsSync(stamp) || readFileSync(stamp, 'utf8') !== wanted) {
    execFileSync('python3', ['-m', 'venv', '--clear', dir], { stdio: 'inherit' });
    execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS], {
      stdio: 'inherit',
      env: { ...process.env, PIP_CACHE_DIR: itCacheDir('pip-cache') },
    });
    execFileSync('cp', [REQUIREMENTS, stamp]);
  }
  return python;
}

describe('Python agents as targets', () => {
  const project = tempProject('runspec-python-target-');
  let model: FakeModelServer;
  let python: string;
  let httpAgent: AgentProcess;
  beforeAll(async () => {
    python = pythonVenv();
    model = await startFakeOpenAI({ script: SCRIPT });
    const port = await freePort();
    httpAgent = await startAgentProcess(HTTP_AGENT, { MODEL_URL: model.url, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, python);
    project.write('cases.toml', CASES_TOML);
    project.write(
      'runspec.toml',
      `[telemetry]\nenabled = false\n\n[targets.py]\nkind = "command"\ncommand = ["${python}", "${AGENT}"]\nvars = { base_url = "${model.url}" }\nquiet_ms = 100\n\n` +
        `[targets.py-http]\nkind = "http"\nurl = "${httpAgent.url}"\nreceiver_port = ${port}\nquiet_ms = 100\n`,
    );
  });
  afterAll(async () => {
    await httpAgent?.stop();
    await model.close();
    project.cleanup();
  });

  it.each([
    { target: 'py', kind: 'command' },
    { target: 'py-http', kind: 'http' },
  ])('$kind target: reports the verdict its trace supports, one pass, one wrong_tool', async ({ target, kind }) => {
    const out = join(project.dir, `${target}.json`);
    const cli = await runCli(['--path', project.dir, 'run', 'cases.toml', '--target', target, '--out', out], {
      env: { HOME: project.dir },
      cwd: project.dir,
      spawn: true,
      timeoutMs: 120_000,
    });
    expect(cli.stderr).not.toMatch(/^error/m);
    expect(cli.exitCode).toBe(1);
    const doc = JSON.parse(readFileSync(out, 'utf8'));
    expect(doc.meta.target).toEqual({ name: target, kind });
    const v = Object.fromEntries(
      caseResultsFromDocument(doc).map((r) => [r.caseId, (r.samples[0] as { verdict: { category: string; reason: string } }).verdict]),
    );
    expect(v['weather-paris']).toMatchObject({ category: 'pass', reason: expect.stringContaining('calls read from the trace') });
    expect(v['time-tokyo']).toMatchObject({ category: 'wrong_tool' });
  });
});
