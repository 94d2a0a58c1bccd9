import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startConsole } from '../../src/console/server.js';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { CLI, runCli } from '../helpers/run-cli.js';
import { casesOf, cliEnv, tempProject } from './_helpers.js';

// Outputs on a real, nearly full disk: a 3 MiB tmpfs the test mounts (root only). The writer used to
// ignore short writes and rename a truncated file over the previous one with exit 0 (53,248 bytes of
// results JSON, a cut BFCL import, 8,192 of 54,011 bytes of a suites file), and a results log hitting
// ENOSPC exited 2. Now: the previous file intact, exit 3, the file named.

const isRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;

it('runs the disk-full tests in CI (root): a skip there is a failure', () => {
  if (process.env.CI === 'true') expect(isRoot, 'CI=true: the disk-full tests mount a tmpfs and need root').toBe(true);
  else expect(typeof isRoot).toBe('boolean');
});

const CASES = 40;
const SUITE = Array.from(
  { length: CASES },
  (_, i) => `[[eval]]\nid = "status-${i}"\nprompt = "is nginx running on web-${i}? ${'please check carefully. '.repeat(20)}"\nexpect_tool = "service-status"\n`,
).join('\n');

function bfclFiles(dir: string, n: number): { q: string; a: string } {
  const q: string[] = [];
  const a: string[] = [];
  for (let i = 0; i < n; i++) {
    q.push(
      JSON.stringify({
        id: `simple_python_${i}`,
        question: [[{ role: 'user', content: `Find the area of triangle ${i} with base 10 and height 5. ${'Be precise. '.repeat(10)}` }]],
        function: [
          {
            name: 'calculate_triangle_area',
            description: 'Calculate the area of a triangle given its base and height.',
            parameters: {
              type: 'dict',
              properties: { base: { type: 'integer', description: 'The base.' }, height: { type: 'integer', description: 'The height.' } },
              required: ['base', 'height'],
            },
          },
        ],
      }),
    );
    a.push(JSON.stringify({ id: `simple_python_${i}`, ground_truth: [{ calculate_triangle_area: { base: [10], height: [5] } }] }));
  }
  const qf = join(dir, 'BFCL_v4_simple_python.json');
  const af = join(dir, 'possible_answer.json');
  writeFileSync(qf, q.join('\n') + '\n');
  writeFileSync(af, a.join('\n') + '\n');
  return { q: qf, a: af };
}

const freeBytes = (dir: string): number => {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
};

/** Fill the file system of `dir` until at most `room` bytes (rounded down to its pages) are free. */
function leaveFree(dir: string, room: number): void {
  const fill = freeBytes(dir) - room;
  if (fill > 0) writeFileSync(join(dir, 'filler'), Buffer.alloc(fill));
  expect(freeBytes(dir)).toBeLessThanOrEqual(room + 4096);
}

describe.runIf(isRoot)('outputs on a nearly full 3 MiB tmpfs', { timeout: 120_000 }, () => {
  let mnt: string;
  let model: FakeModelServer;
  const project = tempProject('runspec-diskfull-');

  beforeAll(async () => {
    project.write('evals/ops.toml', SUITE);
    model = await startFakeOpenAI({ toolCall: { name: 'service-status', arguments: { host: 'web-01' } } });
  });
  afterAll(async () => {
    await model.close();
    project.cleanup();
  });
  beforeEach(() => {
    mnt = mkdtempSync(join(tmpdir(), 'runspec-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mnt]);
  });
  afterEach(() => {
    execFileSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });

  const run = (args: string[]) => runCli(['--path', project.dir, ...args], { env: cliEnv(project.dir), cwd: project.dir, spawn: true });

  it('run: a results document that does not fit leaves the previous one, exits 3 and names it', async () => {
    // How large the log and the document are, on a normal disk.
    const probe = await run(['run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry', '--out', 'probe/r.json']);
    expect(probe.exitCode, probe.stderr).toBe(0);
    const logBytes = statSync(join(project.dir, 'probe/r.jsonl')).size;
    const docBytes = statSync(join(project.dir, 'probe/r.json')).size;
    expect(docBytes).toBeGreaterThan(16_384);

    mkdirSync(join(mnt, 'out'));
    const out = join(mnt, 'out', 'results.json');
    writeFileSync(out, '{"previous":true}\n');
    // Room for the log and half the document: the document is cut by the disk, mid-write.
    leaveFree(mnt, logBytes + Math.floor(docBytes / 2));
    const cli = await run(['run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry', '--output', 'json', '--out', out]);
    expect(cli.exitCode, cli.stderr).toBe(3);
    expect(cli.stderr).toContain(`cannot write ${out}: no space left on device (ENOSPC)`);
    expect(cli.stderr).not.toMatch(/Unterminated|at .*\.js:\d+/);
    expect(readFileSync(out, 'utf8')).toBe('{"previous":true}\n');
    // What was computed is not lost: the log is whole, one line per case after the header.
    expect(
      readFileSync(join(mnt, 'out', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(CASES + 1);
    expect(readdirSync(join(mnt, 'out')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('run --output json > a file on the full disk: exit 3 naming stdout, not a cut document with success', async () => {
    const out = join(mnt, 'stdout.json');
    leaveFree(mnt, 8192);
    const { spawn } = await import('node:child_process');
    const { openSync, closeSync } = await import('node:fs');
    const fd = openSync(out, 'w');
    // Spawned (not spawnSync): the fake model answers from this process.
    const child = spawn(
      process.execPath,
      [
        CLI,
        '--path',
        project.dir,
        'run',
        'evals/ops.toml',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--no-telemetry',
        '--output',
        'json',
        '--out',
        'probe/stdout-run.json',
      ],
      {
        cwd: project.dir,
        env: { ...cliEnv(project.dir), PATH: process.env.PATH ?? '' },
        stdio: ['ignore', fd, 'pipe'],
      },
    );
    closeSync(fd);
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    const r = { status: await new Promise<number | null>((res) => child.on('close', (c) => res(c))) };
    expect(r.status, stderr).toBe(3);
    expect(stderr).toContain('error: cannot write stdout: no space left on device (ENOSPC); the output is incomplete\n');
    expect(stderr).not.toContain('previous file');
  });

  it('run: a results log that hits ENOSPC exits 3 and names the log', async () => {
    const out = join(mnt, 'results.json');
    leaveFree(mnt, 0);
    const cli = await run(['run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry', '--out', out]);
    expect(cli.exitCode, cli.stderr).toBe(3);
    // Not "the previous file, if any, is unchanged": the log is a new file, left with part of its header.
    expect(cli.stderr).toContain(`error: cannot write ${join(mnt, 'results.jsonl')}: no space left on device (ENOSPC); no case has run\n`);
    expect(existsSync(out)).toBe(false);
  });

  it('run: a results log that opens but fails when closed (its cases do not fit) exits 3, names the log and says what --resume does with it', async () => {
    // The header is written and fsync'd when the log opens; the case lines go out in batches whose
    // failure is kept and thrown by the log's close, the run's last wait.
    const probe = await run(['run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry', '--out', 'probe/close.json']);
    expect(probe.exitCode, probe.stderr).toBe(0);
    const headerBytes = readFileSync(join(project.dir, 'probe/close.jsonl'), 'utf8').indexOf('\n') + 1;
    expect(statSync(join(project.dir, 'probe/close.jsonl')).size - headerBytes).toBeGreaterThan(16_384);

    const out = join(mnt, 'results.json');
    const log = join(mnt, 'results.jsonl');
    // Room for the header only (its final-file path is longer here than in the probe): its pages.
    leaveFree(mnt, Math.ceil((headerBytes + out.length) / 4096) * 4096);
    const cli = await run(['run', 'evals/ops.toml', '--base-url', model.url, '--model', 'fake-model', '--no-telemetry', '--out', out]);
    expect(cli.exitCode, cli.stderr).toBe(3);
    const named = cli.stderr.split('\n').filter((l) => l.includes(log));
    // It used to end "; the previous file, if any, is unchanged", the wording of a whole-file write: the log
    // is written in place, and what it says of the log is checked below.
    expect(named, cli.stderr).toEqual([
      `error: cannot write ${log}: no space left on device (ENOSPC); the log may be incomplete: it holds the cases written before the failure`,
      `hint: make room on that disk (or fix it), then \`run --resume ${log}\` runs the cases the log does not hold`,
    ]);
    expect(cli.stderr).not.toContain('previous file');
    expect(cli.stderr).not.toMatch(/at .*\.js:\d+/);
    // The log did open: its header is whole.
    expect(JSON.parse(readFileSync(log, 'utf8').split('\n')[0]!)).toMatchObject({ type: 'run' });
    expect(existsSync(out)).toBe(false);

    // As the hint says: once there is room, --resume keeps the whole case lines the log holds (a line the
    // disk cut short is dropped) and runs the rest.
    const onDisk = readFileSync(log, 'utf8').split('\n');
    const whole = onDisk.length - 2; // the header, and the cut line or the empty string after the last newline
    rmSync(join(mnt, 'filler'));
    const resumed = await run(['run', '--resume', log, '--base-url', model.url, '--no-telemetry']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`^resuming \\S+: ${whole} of ${CASES} cases already finished$`, 'm'));
    expect(Object.keys(casesOf(JSON.parse(readFileSync(out, 'utf8'))))).toHaveLength(CASES);
  });

  it('import bfcl: an import that does not fit leaves the previous suite, exits 3 and names it', async () => {
    const src = mkdtempSync(join(tmpdir(), 'runspec-bfcl-'));
    try {
      const { q, a } = bfclFiles(src, 200);
      const out = join(mnt, 'bfcl.json');
      writeFileSync(out, '{"previous":true}\n');
      leaveFree(mnt, 16_384);
      const cli = await runCli(['import', 'bfcl', q, a, '--out', out], { env: { HOME: src }, cwd: src, spawn: true });
      expect(cli.exitCode, cli.stderr).toBe(3);
      expect(cli.stderr).toContain(`cannot write ${out}: no space left on device (ENOSPC)`);
      expect(readFileSync(out, 'utf8')).toBe('{"previous":true}\n');
      expect(readdirSync(mnt).sort()).toEqual(['bfcl.json', 'filler']);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });

  it('import bfcl onto a read-only file system: exit 3 naming the file, the previous one intact', async () => {
    const src = mkdtempSync(join(tmpdir(), 'runspec-bfcl-ro-'));
    try {
      const { q, a } = bfclFiles(src, 3);
      const out = join(mnt, 'bfcl.json');
      writeFileSync(out, '{"previous":true}\n');
      execFileSync('mount', ['-o', 'remount,ro', mnt]);
      const cli = await runCli(['import', 'bfcl', q, a, '--out', out], { env: { HOME: src }, cwd: src, spawn: true });
      expect(cli.exitCode, cli.stderr).toBe(3);
      expect(cli.stderr).toContain(`cannot write ${out}: read-only file system (EROFS)`);
      expect(readFileSync(out, 'utf8')).toBe('{"previous":true}\n');
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mnt]);
      rmSync(src, { recursive: true, force: true });
    }
  });

  it('console save: a suites file that does not fit stays as it was, and the answer names it', async () => {
    const previous = `[[eval]]\nid = "hand-written"\nprompt = "check web-01"\nexpect_tool = "service-status"\n`;
    const file = join(mnt, 'runspec_evals.toml');
    writeFileSync(file, previous);
    const ui = await startConsole({ projectDir: mnt, env: { HOME: mnt } });
    try {
      leaveFree(mnt, 8192);
      const text = Array.from(
        { length: 200 },
        (_, i) => `[[eval]]\nid = "saved-${i}"\nprompt = "${'check web-01 and report. '.repeat(10)}"\nexpect_tool = "service-status"\n`,
      ).join('\n');
      const res = await fetch(`${ui.origin}/api/suites/big`, {
        method: 'PUT',
        headers: { 'x-runspec-token': ui.token, 'content-type': 'application/json', origin: ui.origin },
        body: JSON.stringify({ text }),
      });
      const body = (await res.json()) as { error: string };
      expect(res.status, JSON.stringify(body)).toBe(507);
      expect(body.error).toContain(`cannot write ${file}: no space left on device (ENOSPC)`);
      expect(readFileSync(file, 'utf8')).toBe(previous);
    } finally {
      await ui.close();
    }
  });
});
