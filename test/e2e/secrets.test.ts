import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { tempProject } from './_helpers.js';

// No secret in any artifact: recognisable fake secrets in every place one can come from (API key
// variables, a password and a key in the base URL, a password in the OTLP endpoint, a profile base_url,
// a provider error body that echoes the key, a model that tries to read the environment), then every
// command's stdout, stderr and every file it wrote is searched for them.

const SECRETS = {
  OPENAI_API_KEY: 'sk-fakeopenai-SECRET1111',
  ANTHROPIC_API_KEY: 'sk-ant-fake-SECRET2222',
  PHOENIX_API_KEY: 'px-fake-SECRET3333',
  urlPassword: 'urlpw-SECRET4444',
  queryKey: 'querykey-SECRET5555',
  otlpPassword: 'otlppw-SECRET6666',
  profilePassword: 'profilepw-SECRET7777',
};
const MARK = /SECRET\d{4}/;

const project = tempProject('runspec-secrets-');
let model: FakeModelServer;
const outputs: Array<{ what: string; r: CliResult }> = [];

function allFiles(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (d: string, depth: number): void => {
    if (depth > 12) return;
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p, depth + 1);
      else if (st.size < 20 * 1024 * 1024) out.push({ file: p, text: readFileSync(p, 'latin1') });
    }
  };
  walk(dir, 0);
  return out;
}

beforeAll(async () => {
  model = await startFakeOpenAI({
    respond: (req) => {
      const prompt: string = req.json.messages.find((m: { role: string }) => m.role === 'user').content;
      const turn = req.json.messages.filter((m: { role: string }) => m.role === 'assistant').length;
      if (prompt.includes('echo'))
        return { status: 400, body: { error: { message: `bad request with header Authorization: Bearer ${SECRETS.OPENAI_API_KEY}` } } };
      if (prompt.includes('environ') && turn === 0) {
        return { toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'env; cat /proc/1/environ /proc/$PPID/environ; ls -la $HOME' } }] };
      }
      return { text: 'done' };
    },
  });
  mkdirSync(join(project.dir, 'evals'), { recursive: true });
  project.write(
    'evals/s.json',
    JSON.stringify({
      cases: [
        { id: 'env', user_prompt: 'read environ', expected_actions: [{ tool: 'bash' }], n_runs: 1 },
        { id: 'echo', user_prompt: 'echo the key', expected_actions: [{ tool: 'bash' }], n_runs: 1 },
      ],
    }),
  );
  project.write(
    'runspec.toml',
    `[providers.corp]\nkind = "openai"\nbase_url = "https://bob:${SECRETS.profilePassword}@llm.example.test/v1?api-key=${SECRETS.queryKey}"\napi_key_env = "OPENAI_API_KEY"\n`,
  );
  // The fake model server answers the OTLP export 404 at once (a closed port would be retried for seconds).
  const env = { HOME: project.dir, ...SECRETS, OTEL_EXPORTER_OTLP_ENDPOINT: `http://otel:${SECRETS.otlpPassword}@127.0.0.1:${new URL(model.url).port}/` };
  const baseUrl = `http://alice:${SECRETS.urlPassword}@127.0.0.1:${new URL(model.url).port}/v1`;
  const cmds: Array<[string, string[]]> = [
    [
      'run (password in base URL, capture content, OTLP endpoint with password)',
      ['run', 'evals/s.json', '--base-url', baseUrl, '--model', 'm', '--retries', '1', '--telemetry', '--capture-content', '--out', 'out/a.json'],
    ],
    [
      'run (key in the query of the base URL)',
      ['run', 'evals/s.json', '--base-url', `${model.url}?api-key=${SECRETS.queryKey}`, '--model', 'm', '--retries', '1', '--out', 'out/b.json'],
    ],
    [
      'run (direct base URL, file traces)',
      ['run', 'evals/s.json', '--base-url', model.url, '--model', 'm', '--retries', '1', '--telemetry', '--capture-content', '--out', 'out/c.json'],
    ],
    ['config', ['config', '--provider', 'corp']],
    ['validate', ['validate', join(project.dir, 'evals/s.json')]],
    ['report', ['report', 'out/c.json', '--output', 'md']],
    ['score', ['score', '.runspec/traces', '--cases', 'evals/s.json', '--output', 'table']],
  ];
  for (const [what, args] of cmds) {
    outputs.push({
      what,
      r: await runCli(args, {
        cwd: project.dir,
        env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: what.includes('OTLP') ? env.OTEL_EXPORTER_OTLP_ENDPOINT : undefined },
      }),
    });
  }
}, 120_000);

afterAll(async () => {
  await model.close();
  project.cleanup();
});

describe('no secret in any artifact', () => {
  it('the commands ran (the search below covers real output)', () => {
    // score reads traces of runs that failed for infrastructure reasons: errored, not failed verdicts (exit 0).
    expect(outputs.map((o) => [o.what, o.r.exitCode])).toEqual(outputs.map((o) => [o.what, o.what.startsWith('run') ? 3 : 0]));
    expect(allFiles(project.dir).some((f) => f.file.includes(join('out', 'c.json')))).toBe(true);
    // The echoing provider and the bad base URLs produced error text that went through redaction.
    expect(outputs.map((o) => o.r.stderr + o.r.stdout).join('\n')).toMatch(/\*\*\*/);
  });

  it('stdout and stderr of every command hold none of them', () => {
    for (const { what, r } of outputs) {
      expect({ what, text: (r.stdout + r.stderr).match(MARK)?.[0] }).toEqual({ what, text: undefined });
    }
  });

  it('no file written (results, logs, traces, reports) holds any of them', () => {
    const hits = allFiles(project.dir)
      .filter((f) => !f.file.endsWith('runspec.toml'))
      .flatMap((f) => (MARK.test(f.text) ? [`${f.file}: ${f.text.match(MARK)![0]}`] : []));
    expect(hits).toEqual([]);
  });
});
