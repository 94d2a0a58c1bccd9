import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { casesOf, cliEnv, readJson, restartSuite, stable, tempProject } from './_helpers.js';

const IDS = ['r1', 'r2', 'r3', 'r4', 'r5'];
const SUITE = restartSuite(IDS);

function spawnCli(args: string[], cwd: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
}

/** Wait (bounded) until the results log holds at least one finished case. */
async function firstCaseLine(log: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (existsSync(log) && readFileSync(log, 'utf8').includes('"type":"case"')) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no case line in ${log} after 10 s`);
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout!.resume();
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

describe('--resume', { timeout: 120_000 }, () => {
  const project = tempProject();
  let model: FakeModelServer;
  const asked = new Map<string, number>();
  // Every case after the first waits at this gate, so a run is surely still busy when it gets killed
  // (a fixed delay is not enough on a loaded machine).
  let openGate: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const closeGate = (): void => {
    gate = new Promise<void>((r) => (openGate = r));
  };
  beforeAll(async () => {
    project.write('evals/slow.toml', SUITE);
    model = await startFakeOpenAI({
      respond: async (req) => {
        const prompt: string = req.json.messages.find((m: any) => m.role === 'user').content;
        asked.set(prompt, (asked.get(prompt) ?? 0) + 1);
        if (!prompt.includes('svc0')) await gate;
        const svc = /svc\d+/.exec(prompt)![0];
        return { toolCalls: [{ id: `call_${svc}`, name: 'restart-service', arguments: { host: 'web-01', service: svc } }] };
      },
    });
  });
  afterAll(async () => {
    openGate();
    await model.close();
    project.cleanup();
  });
  const args = (out: string) => [
    '--path',
    project.dir,
    'run',
    'evals/slow.toml',
    '--base-url',
    model.url,
    '--model',
    'fake-model',
    '--concurrency',
    '1',
    '--no-telemetry',
    '--out',
    out,
  ];

  it('finishes a run killed with kill -9 without redoing finished cases, equal to an uninterrupted run', async () => {
    closeGate();
    const child = spawnCli(args('crash.json'), project.dir, cliEnv(project.dir));
    const done = exited(child);
    await firstCaseLine(join(project.dir, 'crash.jsonl'));
    child.kill('SIGKILL');
    const killed = await done;
    openGate();
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(join(project.dir, 'crash.json'))).toBe(false);
    const finishedBefore = readFileSync(join(project.dir, 'crash.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"case"')).length;
    expect(finishedBefore).toBeGreaterThanOrEqual(1);
    const askedFirst = asked.get('restart service svc0 on web-01');

    // Resume with only the log: targets and flags come from its header.
    const resumed = await runCli(['--path', project.dir, 'run', '--resume', 'crash.jsonl'], { env: cliEnv(project.dir), cwd: project.dir });
    expect(resumed.stderr).toContain(`${finishedBefore} of 5 cases already finished`);
    expect(resumed.exitCode).toBe(0);
    expect(asked.get('restart service svc0 on web-01')).toBe(askedFirst);

    const full = await runCli(args('full.json'), { env: cliEnv(project.dir), cwd: project.dir });
    expect(full.exitCode).toBe(0);
    const resumedDoc = readJson(join(project.dir, 'crash.json'));
    expect(Object.keys(casesOf(resumedDoc))).toEqual(IDS);
    expect(stable(resumedDoc)).toEqual(stable(readJson(join(project.dir, 'full.json'))));
  });

  it('on Ctrl-C keeps finished cases, exits 3 with a resume hint, and resumes to completion', async () => {
    closeGate();
    const child = spawnCli(args('int.json'), project.dir, cliEnv(project.dir));
    const done = exited(child);
    await firstCaseLine(join(project.dir, 'int.jsonl'));
    child.kill('SIGINT');
    const r = await done;
    openGate();
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/interrupted: \d+ of 5 cases finished; resume with --resume .*int\.jsonl/);
    expect(existsSync(join(project.dir, 'int.json'))).toBe(false);
    const resumed = await runCli(['--path', project.dir, 'run', '--resume', join(project.dir, 'int.jsonl')], { env: cliEnv(project.dir), cwd: project.dir });
    expect(resumed.exitCode).toBe(0);
    expect(Object.keys(casesOf(readJson(join(project.dir, 'int.json'))))).toEqual(IDS);
  });
});
