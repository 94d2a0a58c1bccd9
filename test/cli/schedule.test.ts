import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dueSchedules, loadSchedules, nextFire } from '../../src/config/schedules.js';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';

const SEED = `[[schedule]]
id            = "nightly-evals"
action        = "eval"
eval_fixture  = "linux-fleet"
eval_samples  = 3
eval_validate = true

[schedule.when]
cron = "0 6 * * 1-5"
`;

function project(text?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-sched-'));
  if (text !== undefined) writeFileSync(join(dir, 'runspec_schedules.toml'), text);
  return dir;
}

describe('schedules', () => {
  it('loads the seed schedule exactly as written', () => {
    const [s] = loadSchedules(project(SEED));
    expect(s).toEqual({
      id: 'nightly-evals',
      action: 'eval',
      eval_fixture: 'linux-fleet',
      eval_samples: 3,
      eval_validate: true,
      when: { cron: '0 6 * * 1-5' },
    });
    // Sunday 29 Nov 2026 → next weekday 06:00 is Monday.
    expect(nextFire(s!, new Date('2026-11-29T12:00:00Z')).toISOString()).toBe('2026-11-30T06:00:00.000Z');
  });

  it('is due on a weekday sweep after 06:00 and not on Saturday', () => {
    const all = loadSchedules(project(SEED));
    expect(dueSchedules(all, new Date('2026-11-30T05:30:00Z'), new Date('2026-11-30T06:30:00Z')).map((s) => s.id)).toEqual(['nightly-evals']);
    expect(dueSchedules(all, new Date('2026-11-28T05:30:00Z'), new Date('2026-11-28T06:30:00Z'))).toEqual([]);
  });

  it('adds a schedule through the CLI and lists it', async () => {
    const dir = project();
    const add = await runCli(['--path', dir, 'schedule', 'add', '--id', 'n', '--fixture', 'fleet', '--cron', '0 6 * * 1-5', '--samples', '2']);
    expect(add.exitCode).toBe(0);
    expect(readFileSync(join(dir, 'runspec_schedules.toml'), 'utf8')).toContain('cron = "0 6 * * 1-5"');
    const list = await runCli(['--path', dir, 'schedule', 'list', '--output', 'json']);
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ id: 'n', eval_fixture: 'fleet', eval_samples: 2 });
  });

  it("keeps other tools' [[schedule]] entries and ignores them", async () => {
    const other =
      '# shared with the backup tool\n[[schedule]]\nid = "backup"\naction = "backup"\ntarget = "s3://bucket"  # nightly\n\n[schedule.when]\ncron = "0 3 * * *"\n\n';
    const dir = project(other + SEED);
    expect(loadSchedules(dir).map((s) => s.id)).toEqual(['nightly-evals']);
    const add = await runCli(['--path', dir, 'schedule', 'add', '--id', 'weekly', '--fixture', 'fleet', '--cron', '0 7 * * 1']);
    expect(add.exitCode, add.stderr).toBe(0);
    const text = readFileSync(join(dir, 'runspec_schedules.toml'), 'utf8');
    // Appended: every line that was there stays as written, comments included.
    expect(text.startsWith(other + SEED)).toBe(true);
    expect(loadSchedules(dir).map((s) => s.id)).toEqual(['nightly-evals', 'weekly']);
  });

  it.each([
    { provider: 'mock', want: 'provider "mock" needs a mock script' },
    { provider: 'replay', want: 'provider "replay" needs a recording' },
    { provider: 'nosuch', want: 'unknown provider "nosuch"' },
  ])('schedule add rejects --provider $provider it could not run (exit 2)', async ({ provider, want }) => {
    const dir = project();
    const add = await runCli(['--path', dir, 'schedule', 'add', '--id', 'n', '--fixture', 'fleet', '--cron', '0 6 * * *', '--provider', provider]);
    expect(add.exitCode).toBe(2);
    expect(add.stderr).toContain(want);
    expect(() => readFileSync(join(dir, 'runspec_schedules.toml'), 'utf8')).toThrow(/ENOENT/);
  });

  it.each([
    // The line of the cron value itself (it used to be the line of the [[schedule]] header).
    {
      name: 'a bad cron expression',
      text: SEED.replace('0 6 * * 1-5', 'every day'),
      message: `runspec_schedules.toml:${SEED.split('\n').findIndex((l) => l.includes('0 6 * * 1-5')) + 1}: schedule[0].when.cron: not a cron expression`,
    },
    {
      name: 'a cron that never fires',
      text: SEED.replace('0 6 * * 1-5', '0 0 31 2 *'),
      message: 'schedule[0].when.cron: not a cron expression ("0 0 31 2 *"): it never fires',
    },
    {
      name: 'an unknown time zone',
      text: SEED.replace('cron = "0 6 * * 1-5"', 'cron = "0 6 * * 1-5"\ntimezone = "Mars/Olympus"'),
      message: 'schedule[0].when.cron: not a cron expression',
    },
    {
      name: 'a missing fixture',
      text: '[[schedule]]\nid = "a"\naction = "eval"\n[schedule.when]\ncron = "* * * * *"\n',
      message: 'runspec_schedules.toml:1: schedule[0].eval_fixture',
    },
    { name: 'a TOML syntax error', text: '[[schedule]\n', message: 'runspec_schedules.toml:1:' },
  ])('rejects $name with exit 2 and a one-line message', async ({ text, message }) => {
    const r = await runCli(['--path', project(text), 'schedule', 'list']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('schedule run', () => {
  it('runs a due schedule through the replay provider, then nothing until the next fire time', async () => {
    const dir = project(`[[schedule]]
id = "nightly"
action = "eval"
eval_fixture = "fleet"
eval_provider = "rec"
eval_telemetry = false
[schedule.when]
cron = "0 6 * * *"
`);
    writeFileSync(
      join(dir, 'runspec.toml'),
      `[providers.rec]\nkind = "replay"\nscript = ${JSON.stringify(join(REPO_ROOT, 'fixtures/recordings/demo.json'))}\n`,
    );
    const first = await runCli(['--path', dir, 'schedule', 'run', '--due', '--at', '2026-11-30T06:30:00Z']);
    expect(first.stdout).toContain('# schedule nightly (fleet)');
    expect(first.stdout).toMatch(/restart-nginx-targeted\s+pass/);
    // The demo recording holds one deliberate wrong answer in the fleet suite: below threshold → exit 1.
    expect(first.exitCode, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/results: .*\.runspec\/results\/.*\.json/);
    const again = await runCli(['--path', dir, 'schedule', 'run', '--due', '--at', '2026-11-30T06:45:00Z']);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain('no schedule is due');
  });

  it('reads "now" from the injected clock: list shows the next fire time, run --due runs what fired in the last hour', async () => {
    const dir = project(SEED);
    const list = await runCli(['--path', dir, 'schedule', 'list', '--output', 'json'], { now: () => new Date('2026-11-27T12:00:00Z') });
    // Friday noon: the next weekday 06:00 is Monday.
    expect(JSON.parse(list.stdout)[0].next).toBe('2026-11-30T06:00:00.000Z');
    const due = await runCli(['--path', dir, 'schedule', 'due'], { now: () => new Date('2026-11-30T06:20:00Z') });
    expect(due.stdout.trim()).toBe('nightly-evals');
    const notDue = await runCli(['--path', dir, 'schedule', 'due'], { now: () => new Date('2026-11-30T08:20:00Z') });
    expect(notDue.stdout.trim()).toBe('');
  });

  it('refuses an unknown schedule id with exit 2', async () => {
    const r = await runCli(['--path', project(SEED), 'schedule', 'run', '--id', 'nope']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no schedule "nope"');
  });

  // schedule run used Math.max (3 here) while compare ranked bad input first (2): one rule now (errors.ts).
  it('exits with the code compare gives for the same failures: bad input (2) over a provider down (3)', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const dir = project(`[[schedule]]
id = "stale"
action = "eval"
eval_fixture = "fleet"
eval_provider = "empty"
eval_telemetry = false
[schedule.when]
cron = "0 6 * * *"

[[schedule]]
id = "down"
action = "eval"
eval_fixture = "fleet"
eval_provider = "down"
eval_telemetry = false
[schedule.when]
cron = "0 6 * * *"
`);
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, JSON.stringify({ format: 'runspec-eval/recording', version: 1, provider: 'mock', system: 'mock', model: 'm', entries: [] }));
    writeFileSync(
      join(dir, 'runspec.toml'),
      `[llm]\nretries = 1\n\n[providers.empty]\nkind = "replay"\nscript = ${JSON.stringify(empty)}\n\n[providers.down]\nkind = "openai"\nbase_url = "http://127.0.0.1:${port}/v1"\nmodel = "m"\n`,
    );
    const env = { OPENAI_API_KEY: 'sk-test-key' };
    const compare = await runCli(['--path', dir, 'run', 'fleet', '--compare', 'empty,down', '--no-telemetry'], { env });
    const sweep = await runCli(['--path', dir, 'schedule', 'run', '--id', 'stale', '--id', 'down'], { env });
    expect(compare.exitCode, compare.stderr).toBe(2);
    expect(sweep.exitCode, sweep.stderr).toBe(compare.exitCode);
  });
});
