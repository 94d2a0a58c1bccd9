import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

function sink(): { write(s: string): boolean; text: () => string } {
  let buf = '';
  return { write: (s: string) => ((buf += s), true), text: () => buf };
}

async function cli(argv: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = sink();
  const err = sink();
  const code = await main({ argv, cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, NO_COLOR: '1' }, stdout: out as never, stderr: err as never });
  return { code, stdout: out.text(), stderr: err.text() };
}

const dir = mkdtempSync(join(tmpdir(), 'runspec-passk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const call = { toolCalls: [{ name: 'service-status', arguments: { service: 'nginx' } }] };
const talk = { text: 'I would check nginx.' };
writeFileSync(
  join(dir, 'evals.toml'),
  `[[eval]]
id = "gated"
prompt = "is nginx up?"
expect_tool = "service-status"
samples = 5
gate = "pass@3 >= 0.9"

[[eval]]
id = "plain"
prompt = "is nginx up on the box?"
expect_tool = "service-status"
samples = 5
`,
);
writeFileSync(
  join(dir, 'script.json'),
  JSON.stringify({
    cases: {
      // 2 of 5 pass: pass@3 = 1 − C(3,3)/C(5,3) = 0.9, so the gate holds although the pass rate is 40%.
      gated: { samples: [[call], [talk], [call], [talk], [talk]] },
      // 3 of 4 scored pass, one errored (left out of n): pass@1 = 0.75, pass@3 = 1, pass^3 = C(3,3)/C(4,3) = 0.25.
      plain: { samples: [[call], [{ error: { message: 'outage' } }], [call], [talk], [call]] },
    },
  }),
);

describe('run --pass-k and case gates, through every report', () => {
  let doc: { iterations: Array<{ cases: Record<string, Record<string, unknown>> }> };

  it('writes pass_k and the gate into the results JSON', async () => {
    const r = await cli(
      [
        'run',
        'evals.toml',
        '--provider',
        'mock',
        '--script',
        'script.json',
        '--pass-k',
        '1,3',
        '--threshold',
        '0.5',
        '--concurrency',
        '1',
        '--no-telemetry',
        '--out',
        'res.json',
        '--output',
        'md',
      ],
      dir,
    );
    expect(r.stderr).not.toMatch(/error:/);
    doc = JSON.parse(readFileSync(join(dir, 'res.json'), 'utf8'));
    const cases = doc.iterations[0]!.cases;
    expect(cases.gated!.pass_k).toEqual([
      { k: 1, pass_at: expect.closeTo(0.4, 12), pass_hat: 0.4 },
      { k: 3, pass_at: expect.closeTo(0.9, 12), pass_hat: 0 },
    ]);
    expect(cases.gated!.gate).toEqual({ text: 'pass@3 >= 0.9', value: expect.closeTo(0.9, 12), met: true });
    expect(cases.gated!.meets_threshold).toBe(true);
    expect(cases.plain!.pass_k).toEqual([
      { k: 1, pass_at: expect.closeTo(0.75, 12), pass_hat: 0.75 },
      { k: 3, pass_at: 1, pass_hat: expect.closeTo(0.25, 12) },
    ]);
    expect(cases.plain!.gate).toBeNull();
    // plain has 3/4 ≥ 0.5 and gated meets its gate: exit 0; the markdown shows the columns.
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('| pass@k / pass^k | Gate |');
    expect(r.stdout).toContain('pass@1 0.400 · pass@3 0.900 · pass^1 0.400 · pass^3 0.000');
    expect(r.stdout).toContain('pass@3 &gt;= 0.9: 0.900 met');
  });

  it('shows them in the terminal table, JUnit properties and HTML', async () => {
    const table = await cli(['report', 'res.json'], dir);
    expect(table.stdout).toMatch(/gated\s+pass@1 0\.400 · pass@3 0\.900 · pass\^1 0\.400 · pass\^3 0\.000 · gate pass@3 >= 0\.9: 0\.900 met/);
    const junit = await cli(['report', 'res.json', '--output', 'junit'], dir);
    expect(junit.stdout).toContain('<property name="pass@3" value="0.9"/>');
    expect(junit.stdout).toContain('<property name="pass^3" value="0.25"/>');
    expect(junit.stdout).toContain('<property name="gate.met" value="true"/>');
    const html = await cli(['report', 'res.json', '--output', 'html'], dir);
    expect(html.stdout).toContain('<div class="meta passk">pass@1 0.750 · pass@3 1.000 · pass^1 0.750 · pass^3 0.250</div>');
  });

  it('--gate applies to cases without their own and fails the run when not met', async () => {
    const r = await cli(
      [
        'run',
        'evals.toml',
        '--provider',
        'mock',
        '--script',
        'script.json',
        '--gate',
        'pass^2 >= 0.6',
        '--concurrency',
        '1',
        '--no-telemetry',
        '--out',
        'res2.json',
        '--output',
        'json',
      ],
      dir,
    );
    const cases = (JSON.parse(readFileSync(join(dir, 'res2.json'), 'utf8')) as typeof doc).iterations[0]!.cases;
    // plain: n = 4, c = 3 → pass^2 = C(3,2)/C(4,2) = 0.5 < 0.6.
    expect(cases.plain!.gate).toEqual({ text: 'pass^2 >= 0.6', value: 0.5, met: false });
    expect(cases.gated!.gate).toMatchObject({ text: 'pass@3 >= 0.9', met: true });
    expect(r.code).toBe(1);
  });

  it('rejects a malformed gate with file, line and field, exit 2', async () => {
    writeFileSync(join(dir, 'bad.toml'), '[[eval]]\nid = "x"\nprompt = "p"\nexpect_tool = "service-status"\ngate = "pass@3 => 0.9"\n');
    const r = await cli(['run', 'bad.toml', '--provider', 'mock', '--script', 'script.json', '--no-telemetry'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.toml:5: eval\[0\]\.gate: expected "pass@K OP X"/);
    const flag = await cli(['run', 'evals.toml', '--provider', 'mock', '--gate', 'pass@three > 1'], dir);
    expect(flag.code).toBe(2);
  });
});
