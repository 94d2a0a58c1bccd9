import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { runCli } from '../helpers/run-cli.js';
import { casesOf, cliEnv, readJson, restartSuite, stable, tempProject } from './_helpers.js';

const IDS = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'];
const SUITE = restartSuite(IDS);

// Mock answers by case id: odd cases pick the wrong service, so the merged result holds failures too.
const SCRIPT = {
  cases: Object.fromEntries(
    IDS.map((id, i) => [id, [{ toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: i % 2 ? 'other' : `svc${i}` } }] }]]),
  ),
};

describe('--shard and merge', { timeout: 120_000 }, () => {
  const project = tempProject();
  beforeAll(() => {
    project.write('evals/many.toml', SUITE);
    project.write('mock.json', JSON.stringify(SCRIPT));
  });
  afterAll(() => project.cleanup());
  const run = (args: string[]) => runCli(['--path', project.dir, ...args], { env: cliEnv(project.dir), cwd: project.dir });
  const base = ['evals/many.toml', '--provider', 'mock', '--script', 'mock.json', '--no-telemetry'];

  it('merges shard results into exactly the unsharded result', async () => {
    const [all, s0, s1] = await Promise.all([
      run(['run', ...base, '--out', 'all.json']),
      run(['run', ...base, '--shard', '1/2', '--out', 's0.json']),
      run(['run', ...base, '--shard', '2/2', '--out', 's1.json']),
    ]);
    expect([all.exitCode, s0.exitCode, s1.exitCode]).toEqual([1, expect.any(Number), expect.any(Number)]);
    const ids0 = Object.keys(casesOf(readJson(join(project.dir, 's0.json'))));
    const ids1 = Object.keys(casesOf(readJson(join(project.dir, 's1.json'))));
    // The shards partition the cases: disjoint, and together all of them.
    expect(ids0.filter((id) => ids1.includes(id))).toEqual([]);
    expect([...ids0, ...ids1].sort()).toEqual([...IDS].sort());
    const merged = await run(['merge', 's1.json', 's0.json', '--out', 'merged.json']);
    expect(merged.exitCode).toBe(1);
    const mergedDoc = readJson(join(project.dir, 'merged.json'));
    const allDoc = readJson(join(project.dir, 'all.json'));
    expect(stable(mergedDoc)).toEqual(stable(allDoc));
    // Same order of cases as the unsharded run, not the order of the files given to merge.
    expect(Object.keys(casesOf(mergedDoc))).toEqual(IDS);
  });

  it('refuses to merge two results that hold the same case', async () => {
    const cli = await run(['merge', 's0.json', 's0.json', '--out', 'bad.json']);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/is also in/);
  });

  it('re-renders saved results with report', async () => {
    const junit = await run(['report', 'all.json', '--output', 'junit']);
    expect(junit.exitCode).toBe(0);
    expect(junit.stdout).toContain('<testsuite');
    expect(junit.stdout).toContain('c2');
  });
});

describe('compare', { timeout: 120_000 }, () => {
  const project = tempProject();
  let good: FakeModelServer;
  let bad: FakeModelServer;
  beforeAll(async () => {
    project.write('evals/ops.toml', SUITE.split('[[eval]]').slice(0, 4).join('[[eval]]'));
    good = await startFakeOpenAI({
      respond: (req) => {
        const prompt: string = req.json.messages.find((m: any) => m.role === 'user').content;
        const svc = /svc\d+/.exec(prompt)![0];
        return { toolCalls: [{ name: 'restart-service', arguments: { host: 'web-01', service: svc } }] };
      },
    });
    bad = await startFakeOpenAI({ toolCall: { name: 'service-status', arguments: { host: 'web-01', service: 'x' } } });
    project.write(
      'runspec.toml',
      `[providers.good]\nkind = "openai"\nbase_url = "${good.url}"\nmodel = "good-model"\napi_key_env = "OPENAI_API_KEY"\n\n` +
        `[providers.bad]\nkind = "openai"\nbase_url = "${bad.url}"\nmodel = "bad-model"\napi_key_env = "OPENAI_API_KEY"\n`,
    );
  });
  afterAll(async () => {
    await good.close();
    await bad.close();
    project.cleanup();
  });

  it.each([
    { name: 'compare P1,P2', args: ['compare', 'good,bad', 'evals/ops.toml'] },
    { name: 'run --compare P1,P2', args: ['run', 'evals/ops.toml', '--compare', 'good,bad'] },
  ])('$name runs the suite once per provider and flags non-overlapping intervals', async ({ args }) => {
    const cli = await runCli(['--path', project.dir, ...args, '--samples', '10', '--no-telemetry', '--out', 'cmp.json'], {
      env: cliEnv(project.dir),
      cwd: project.dir,
    });
    expect(cli.exitCode).toBe(1);
    expect(cli.stdout).toMatch(/good/);
    expect(cli.stdout).toMatch(/bad \(Δ\)/);
    // 10/10 against 0/10: the 95% intervals are apart, so every case is flagged.
    expect(cli.stdout).toMatch(/−100 \*/);
    expect(cli.stdout).toContain('(3 cases)');
    expect(good.chatRequests()).toHaveLength(30);
    expect(bad.chatRequests()).toHaveLength(30);
    expect(Object.keys(casesOf(readJson(join(project.dir, 'cmp.good.json'))))).toEqual(['c1', 'c2', 'c3']);
    expect(casesOf(readJson(join(project.dir, 'cmp.bad.json'))).c1.pass_rate).toBe(0);
    good.requests.length = 0;
    bad.requests.length = 0;
  });

  it.each([
    { format: 'table', want: /^expected-sequence accuracy\s+—\s+—$/m },
    { format: 'md', want: /^\| \*\*calls\*\* \| 3 \| 3 \(±0\) \|$/m },
  ])('prints the full side-by-side summary as $format', async ({ format, want }) => {
    const cli = await runCli(
      ['--path', project.dir, 'compare', 'good,bad', 'evals/ops.toml', '--output', format, '--no-telemetry', '--out', `cmp-${format}.json`],
      {
        env: cliEnv(project.dir),
        cwd: project.dir,
      },
    );
    expect(cli.exitCode).toBe(1);
    for (const metric of ['pass rate', 'accuracy', 'cases meeting threshold', 'calls', 'redundant', 'errors', 'tokens']) expect(cli.stdout).toContain(metric);
    expect(cli.stdout).toMatch(want);
    expect(cli.stdout).toMatch(/pass rate.*100\.0%.*0\.0% \(−100 pts\)/);
    good.requests.length = 0;
    bad.requests.length = 0;
  });

  it('gives the summary rows with deltas in JSON', async () => {
    const cli = await runCli(['--path', project.dir, 'compare', 'good,bad', 'evals/ops.toml', '--output', 'json', '--no-telemetry', '--out', 'cmp-json.json'], {
      env: cliEnv(project.dir),
      cwd: project.dir,
    });
    const rows = JSON.parse(cli.stdout).summary_rows;
    expect(rows.find((r: any) => r.metric === 'pass rate (judged samples)')).toMatchObject({ values: [1, 0], deltas: [null, -1] });
    expect(rows.find((r: any) => r.metric === 'calls')).toMatchObject({ values: [3, 3], deltas: [null, 0] });
    good.requests.length = 0;
    bad.requests.length = 0;
  });

  it.each(['junit', 'html'])('refuses --output %s with a usage error before running anything', async (format) => {
    // The built CLI as a process: it used to make every model call and only then exit 2.
    const cli = await runCli(['--path', project.dir, 'compare', 'good,bad', 'evals/ops.toml', '--output', format, '--no-telemetry'], {
      env: cliEnv(project.dir),
      cwd: project.dir,
      spawn: true,
    });
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(new RegExp(`^error: --output ${format}: compare prints the side-by-side summary as table, json, md`, 'm'));
    expect(good.chatRequests()).toHaveLength(0);
    expect(bad.chatRequests()).toHaveLength(0);
  });
});
