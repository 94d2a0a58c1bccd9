import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runCase } from '../../src/engine/run-case.js';
import { executeWorkspaceTool } from '../../src/engine/workspace-tools.js';
import { createWorktree } from '../../src/engine/worktree.js';
import { createCommandSandbox, findExecutable, type CommandSandbox, type SandboxReadiness } from '../../src/engine/sandbox/command.js';
import { createMockProvider, type MockTurn } from '../../src/providers/mock.js';
import type { Case } from '../../src/types/case.js';
import type { Run } from '../../src/types/run.js';

// A hostile scripted model against the real sandbox. Where bubblewrap works (CI installs it) every
// attempt must be contained; where it does not, every command tool must be refused with the one clear
// line. Both branches assert; file-tool guards hold either way.

const FAKE_SECRET = 'sk-hostile-fake-0123456789abcdef';
const MARKER = 31.4159; // a sleep length no other process uses: finds leftovers in the host's /proc
const outside = mkdtempSync(join(tmpdir(), 'runspec-hostile-outside-'));
writeFileSync(join(outside, 'secret.txt'), `outside ${FAKE_SECRET}`);
const homeProbe = `runspec-hostile-${process.pid}`;

let sandbox: CommandSandbox;
let ready: SandboxReadiness;
let listener: Server;
let connections = 0;
let port = 0;
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  // Secrets the harness holds: the model must not be able to read them back.
  for (const k of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'PHOENIX_API_KEY']) {
    savedEnv[k] = process.env[k];
    process.env[k] = FAKE_SECRET;
  }
  listener = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await new Promise<void>((r) => listener.close(() => r()));
  rmSync(outside, { recursive: true, force: true });
  rmSync(join(homedir(), homeProbe), { force: true });
});

let seq = 0;
function hostileCase(files: Record<string, string> = {}): Case {
  seq++;
  return {
    id: `hostile-${seq}`,
    dialect: 'turnstone',
    mode: 'trajectory',
    prompt: `hostile attempt ${seq}`,
    files,
    settings: {},
    expect: { kind: 'turnstone', actions: [], matchMode: 'subset' },
  } as unknown as Case;
}

const call = (name: string, args: Record<string, unknown>): MockTurn => ({ toolCalls: [{ name, arguments: args }] });

async function attack(turns: MockTurn[], opts: { files?: Record<string, string>; commandTimeoutMs?: number; sandbox?: CommandSandbox } = {}): Promise<Run> {
  const c = hostileCase(opts.files);
  const provider = createMockProvider({ script: { cases: { [c.id]: [...turns, { text: 'done' }] } } });
  return runCase({
    case: c,
    sample: 0,
    provider,
    sandbox: opts.sandbox ?? sandbox,
    commandTimeoutMs: opts.commandTimeoutMs ?? 20_000,
    maxTurns: turns.length + 1,
  });
}

const results = (run: Run): string[] => run.toolCalls.map((t) => t.result ?? '');

/** Host processes whose command line carries the marker sleep. */
function leftovers(): number {
  let n = 0;
  // No /proc (not Linux): nothing to find, and nothing was sandboxed either.
  const pids = existsSync('/proc') ? readdirSync('/proc').filter((p) => /^\d+$/.test(p)) : [];
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(String(MARKER))) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

/** Command results: contained (bubblewrap works) or refused with the clear line (it does not). */
function expectCommand(result: string, contained: (r: string) => void): void {
  if (ready.ok) contained(result);
  else {
    expect(result).toMatch(/^Error: command tools are refused: bubblewrap/);
    expect(result).toContain('--unsafe-host-commands');
  }
}

// The same attempts against the sandbox this machine has, and against a bwrap that is not there (what a
// machine without bubblewrap sees), so both branches run and assert everywhere.
/**
 * A precondition of a test that this machine lacks: a visible skip here, a failure in CI (CI=true), where the
 * machine is set up to have it and a skip would hide a broken sandbox.
 */
function unavailable(ctx: { skip: (note?: string) => void }, reason: string): void {
  if (process.env.CI === 'true') throw new Error(`CI=true, so this must run: ${reason}`);
  ctx.skip(reason);
}

describe.each([
  { branch: 'the sandbox on PATH', missing: false, make: () => createCommandSandbox() },
  { branch: 'bubblewrap missing', missing: true, make: () => createCommandSandbox({ bwrap: join(outside, 'no-such-bwrap') }) },
])('hostile model, $branch', ({ make, missing }) => {
  beforeAll(async () => {
    sandbox = make();
    ready = await sandbox.ready();
  });

  // CI installs bubblewrap, so CI must check containment: a bwrap that is installed but does not work there
  // (seccomp, an AppArmor user-namespace restriction) fails here instead of silently testing the refusal.
  // Elsewhere a bwrap that does not work is a visible skip, never a pass.
  it('refuses without bubblewrap, and checks containment wherever bwrap is installed', (ctx) => {
    const installed = findExecutable('bwrap', process.env.PATH ?? '') ?? findExecutable('bwrap');
    if (missing || !installed) {
      expect(ready).toMatchObject({ ok: false, message: expect.stringMatching(/^command tools are refused: bubblewrap \(.*\) was not found/) });
      return;
    }
    if (!ready.ok) return unavailable(ctx, `${installed} is installed, but the sandbox probe failed: ${ready.message}`);
    expect(ready.ok).toBe(true);
  });

  describe('file tools', () => {
    it('refuses escape by .., absolute path and NUL', async () => {
      const run = await attack([
        call('read_file', { path: '../../../../etc/passwd' }),
        call('read_file', { path: '/etc/passwd' }),
        call('read_file', { path: 'a\0b' }),
        call('write_file', { path: `../../../../${outside}/w.txt`, content: 'x' }),
      ]);
      const [dots, abs, nul, write] = results(run);
      expect(dots).toMatch(/^Error: path escapes the workspace/);
      expect(abs).toMatch(/^Error: absolute paths are not allowed/);
      expect(nul).toMatch(/^Error: paths may not contain NUL/);
      expect(write).toMatch(/^Error: /);
      expect(existsSync(join(outside, 'w.txt'))).toBe(false);
    });

    it('refuses a symlink, a chained symlink and a dangling symlink made by a command', async () => {
      const run = await attack([
        call('bash', { command: `ln -s ${outside}/secret.txt out && ln -s out chain && ln -s ${outside}/created.txt dangling && ln -s ${outside} dir` }),
        call('read_file', { path: 'out' }),
        call('read_file', { path: 'chain' }),
        call('write_file', { path: 'dangling', content: 'pwned' }),
        call('write_file', { path: 'dir/new.txt', content: 'pwned' }),
        call('grep', { pattern: 'outside' }),
      ]);
      const [, ...rest] = results(run);
      for (const r of rest) expect(r).not.toContain(FAKE_SECRET);
      expect(existsSync(join(outside, 'created.txt'))).toBe(false);
      expect(existsSync(join(outside, 'new.txt'))).toBe(false);
      if (ready.ok) {
        expect(rest[0]).toMatch(/^Error: path escapes the workspace through a symlink/);
        expect(rest[1]).toMatch(/^Error: path escapes the workspace through a symlink/);
        expect(rest[2]).toMatch(/^Error: path goes through a symlink that points nowhere/);
      }
    });

    it('refuses to read a FIFO the model made, without blocking the run', async () => {
      const run = await attack([
        call('run_command', { command: 'mkfifo f && echo made' }),
        call('read_file', { path: 'f' }),
        call('file_read', { path: 'f' }),
        call('grep', { pattern: 'x' }),
        call('edit_file', { path: 'f', old_string: 'a', new_string: 'b' }),
      ]);
      const [made, read, fileRead, grep, edit] = results(run);
      expectCommand(made!, (r) => expect(r).toBe('made\n'));
      if (ready.ok) {
        expect(read).toMatch(/^Error: f is not a regular file \(a FIFO\)/);
        expect(fileRead).toMatch(/^Error: f is not a regular file/);
        expect(edit).toMatch(/^Error: f is not a regular file/);
      }
      expect(grep).toBe('No matches for x');
    });
  });

  describe('commands', () => {
    it('cannot read the harness secrets through /proc or the environment', async () => {
      const run = await attack([
        call('bash', {
          command: 'env; cat /proc/1/environ /proc/$PPID/environ; for p in /proc/[0-9]*; do cat $p/environ; done | tr "\\0" "\\n"; ls /proc | grep -c "^[0-9]"',
        }),
      ]);
      const [out] = results(run);
      expect(out).not.toContain(FAKE_SECRET);
      expectCommand(out!, (r) => {
        expect(r).not.toContain('OPENAI_API_KEY');
        // A fresh PID namespace: only the sandbox's own few processes are visible.
        const count = Number(r.trim().split('\n').pop());
        expect(count).toBeLessThan(10);
      });
    });

    it('cannot write outside the worktree, read the host HOME, or remount', async () => {
      const run = await attack([
        call('bash', {
          command: `echo pwned > $HOME/${homeProbe}; echo pwned > ${homedir()}/${homeProbe}; cat ${outside}/secret.txt; ls -A ${homedir()}; ls -A $HOME; mount -o remount,rw /usr; mount -o remount,bind,rw /; touch /usr/pwned-${process.pid}; id -u; echo ok > inside.txt; cat inside.txt`,
        }),
      ]);
      const [out] = results(run);
      expect(out).not.toContain(FAKE_SECRET);
      expect(existsSync(join(homedir(), homeProbe))).toBe(false);
      expect(existsSync(`/usr/pwned-${process.pid}`)).toBe(false);
      expectCommand(out!, (r) => {
        expect(r).toMatch(/No such file or directory/);
        expect(r).toMatch(/must be superuser|permission denied|Operation not permitted/i);
        expect(r).toMatch(/Read-only file system/);
        // The private HOME holds only what the command wrote there.
        expect(r).toContain(`\n${homeProbe}\n`);
        expect(r).toMatch(/\n1000\nok\n$/);
      });
    });

    it('has no network, not even to a port listening on the host loopback', async () => {
      const run = await attack([
        call('bash', { command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected; cat /sys/class/net/*/operstate 2>/dev/null | wc -l` }),
      ]);
      const [out] = results(run);
      expect(connections).toBe(0);
      expectCommand(out!, (r) => {
        expect(r).not.toContain('connected');
        expect(r).toMatch(/Connection refused|Network is unreachable/);
      });
    });

    it('ends a background process with the command', async () => {
      const run = await attack([
        call('bash', {
          command: `(sleep ${MARKER}; echo late > $HOME/late) & (setsid sleep ${MARKER} &) ; nohup sleep ${MARKER} >/dev/null 2>&1 & echo started`,
        }),
      ]);
      const [out] = results(run);
      expectCommand(out!, (r) => expect(r).toBe('started\n'));
      expect(leftovers()).toBe(0);
    });

    it('contains a fork loop: the process limit stops it and nothing survives', async () => {
      const run = await attack([call('run_command', { command: `i=0; while [ $i -lt 3000 ]; do sleep ${MARKER} & i=$((i+1)); done; echo "forked $i"` })], {
        commandTimeoutMs: 20_000,
      });
      const [out] = results(run);
      expectCommand(out!, (r) => {
        expect(r).not.toContain('forked 3000');
        expect(r).toMatch(/Cannot fork|Resource temporarily unavailable|timed out/);
      });
      expect(leftovers()).toBe(0);
    });

    it('caps huge output and stops a command at its time limit', async () => {
      const run = await attack([call('bash', { command: 'head -c 30000000 /dev/zero | tr "\\0" a' }), call('bash', { command: `yes; sleep ${MARKER}` })], {
        commandTimeoutMs: 1500,
      });
      const [huge, endless] = results(run);
      expectCommand(huge!, (r) => {
        expect(r.length).toBeLessThan(20_000);
        expect(r).toContain('[output truncated at 16384 bytes]');
      });
      expectCommand(endless!, (r) => expect(r).toMatch(/^Error: command timed out after 1500 ms/));
      expect(leftovers()).toBe(0);
    });
  });
});

describe('tmpfs quota', () => {
  it('bounds the private /tmp and HOME, and the sandbox root is read-only, where bwrap has --size', async (ctx) => {
    const small = createCommandSandbox({ limits: { maxTmpfsBytes: 1024 * 1024 } });
    const ok = (await small.ready()).ok;
    const help = spawnSync('bwrap', ['--help'], { encoding: 'utf8' });
    const run = await attack(
      [call('bash', { command: 'head -c 2000000 /dev/zero > /tmp/a; head -c 2000000 /dev/zero > $HOME/b; touch /x; du -k /tmp/a $HOME/b' })],
      { sandbox: small },
    );
    const [out] = results(run);
    if (!ok) {
      expect(out).toMatch(/^Error: command tools are refused/);
      return;
    }
    if (!/--size\b/.test(`${help.stdout}`)) return unavailable(ctx, 'this bwrap has no --size, so the private /tmp and HOME are not bounded');
    expect(out!.match(/No space left on device/g)).toHaveLength(2);
    expect(out).toMatch(/\/x': Read-only file system/);
    for (const m of out!.matchAll(/^(\d+)\s/gm)) expect(Number(m[1])).toBeLessThanOrEqual(1024);
  });
});

describe('file tool time limit', () => {
  it('abandons a file tool call that takes longer than its limit, with an error for the model', async () => {
    const files = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`d${i % 20}/f${i}.txt`, 'needle\n']));
    const wt = await createWorktree(files);
    try {
      const r = await executeWorkspaceTool('grep', { pattern: 'needle' }, { worktree: wt, fileToolTimeoutMs: 1 });
      expect(r).toEqual({ result: 'Error: grep took longer than 1 ms and was abandoned', isError: true });
    } finally {
      await wt.remove();
    }
  });
});

describe('without bubblewrap', () => {
  const missing = () => createCommandSandbox({ bwrap: join(outside, 'no-such-bwrap') });

  it('refuses command tools with one line saying how to install or opt out', async () => {
    const run = await attack([call('bash', { command: 'id' }), call('run_command', { command: 'id' }), call('read_file', { path: 'a.txt' })], {
      files: { 'a.txt': 'A' },
      sandbox: missing(),
    });
    const [bash, sh, read] = results(run);
    for (const r of [bash, sh]) {
      expect(r).toMatch(
        /^Error: command tools are refused: bubblewrap \(.*no-such-bwrap\) was not found; install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap/,
      );
      expect(r).toContain('[trajectory] sandbox = "none"');
      expect(r).toContain('--unsafe-host-commands');
      expect(r).not.toContain('\n');
    }
    expect(read).toBe('A');
  });

  it('refuses when bubblewrap is there but does not work (the probe fails)', async () => {
    // `false` stands in for a bwrap that cannot create namespaces here.
    const broken = createCommandSandbox({ bwrap: 'false', searchPath: process.env.PATH ?? '' });
    const ready = await broken.ready();
    expect(ready.ok).toBe(false);
    expect(!ready.ok && ready.message).toMatch(
      /^command tools are refused: bubblewrap at \S+ does not work here \(exit 1\); enable unprivileged user namespaces .* or opt out with \[trajectory\] sandbox = "none"/,
    );
  });

  it('run prints the refusal once, and the opt-out warns on every run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-hostile-cli-'));
    try {
      writeFileSync(join(dir, 'cases.json'), JSON.stringify({ cases: [{ id: 'cmd', user_prompt: 'run id', expected_actions: [{ tool: 'bash' }] }] }));
      writeFileSync(join(dir, 'script.json'), JSON.stringify({ cases: { cmd: [call('bash', { command: 'id -u' }), { text: 'done' }] } }));
      const cli = async (extra: string[], env: Record<string, string>) => {
        let stderr = '';
        const sink = new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) });
        const code = await main({
          argv: [
            'run',
            'cases.json',
            '--provider',
            'mock',
            '--script',
            'script.json',
            '--samples',
            '1',
            '--no-telemetry',
            '--out',
            join(dir, 'r.json'),
            ...extra,
          ],
          cwd: dir,
          env: { PATH: process.env.PATH, HOME: dir, ...env },
          stdout: new Writable({ write: (_c, _e, cb) => cb() }),
          stderr: sink,
        });
        return { code, stderr };
      };
      const refused = await cli([], { RUNSPEC_BWRAP: join(dir, 'no-such-bwrap') });
      expect(refused.stderr.match(/command tools are refused: bubblewrap/g)).toHaveLength(1);
      expect(refused.code).toBe(0);
      const unsafe = await cli(['--unsafe-host-commands'], {});
      expect(unsafe.stderr).toMatch(/--unsafe-host-commands: model-driven commands \(bash, run_command\) run on this machine without a sandbox/);
      writeFileSync(join(dir, 'runspec.toml'), '[trajectory]\nsandbox = "none"\n');
      const configured = await cli([], {});
      expect(configured.stderr).toContain('[trajectory] sandbox = "none": model-driven commands');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
