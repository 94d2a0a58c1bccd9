import { describe, expect, it } from 'vitest';
import { scoreRun, type ScoreOptions } from '../../src/scoring/index.js';
import { FLEET_TOOLSET_FILE } from '../../src/toolset/load.js';
import { loadToolsetFile } from '../../src/toolset/file.js';
import type { ArgExpectation, Case, Run, RunspecExpectation, VerdictCategory } from '../../src/types/index.js';
import { VERDICT_CATEGORIES } from '../../src/types/index.js';
import { makeCase, makeRun, type CallSpec } from './_build.js';

const fleet = loadToolsetFile(FLEET_TOOLSET_FILE);
const eq = (value: unknown): ArgExpectation => ({ kind: 'equals', value });

function rs(runspec: RunspecExpectation, extra: Partial<Case> = {}): Case {
  return makeCase({ runspec, ...extra });
}

function decide(calls: CallSpec[], extra: Parameters<typeof makeRun>[0] = {}): Run {
  return makeRun({ calls, terminal: true, ...extra });
}

interface Row {
  name: string;
  c: Case;
  run: Run;
  opts?: ScoreOptions;
  category: VerdictCategory;
  reason: RegExp;
}

const withFleet: ScoreOptions = { toolset: fleet };
const validating: ScoreOptions = { toolset: fleet, validateArgs: true };
const restartNginx = rs({ tool: ['restart-service'], host: 'web-01', args: { service: eq('nginx') } });

// One row per verdict, then one per precedence conflict (the higher-ranked category must win).
const rows: Row[] = [
  {
    name: 'pass: right tool, host and args',
    c: restartNginx,
    run: decide([{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }]),
    opts: withFleet,
    category: 'pass',
    reason: /called restart-service on web-01 \(confirm\) as expected/,
  },
  {
    name: 'wrong_tool: a different runnable',
    c: restartNginx,
    run: decide([{ name: 'service-status', arguments: { host: 'web-01', service: 'nginx' } }]),
    opts: withFleet,
    category: 'wrong_tool',
    reason: /expected restart-service, got service-status/,
  },
  {
    name: 'wrong_tool: a tool the toolset does not have',
    c: restartNginx,
    run: decide([{ name: 'restart_nginx', arguments: {} }]),
    opts: withFleet,
    category: 'wrong_tool',
    reason: /got restart_nginx \(not a runnable of the toolset\)/,
  },
  {
    name: 'wrong_command: cron list instead of add',
    c: rs({ tool: ['cron'], command: 'add' }),
    run: decide([{ name: 'cron', arguments: { host: 'web-01', _command: 'list' } }]),
    opts: withFleet,
    category: 'wrong_command',
    reason: /expected command "add", got "list"/,
  },
  {
    name: 'wrong_host: web-02 instead of web-01',
    c: restartNginx,
    run: decide([{ name: 'restart-service', arguments: { host: 'web-02', service: 'nginx' } }]),
    opts: withFleet,
    category: 'wrong_host',
    reason: /expected host web-01, got web-02/,
  },
  {
    name: 'wrong_args: names the argument, expected and seen',
    c: restartNginx,
    run: decide([{ name: 'restart-service', arguments: { host: 'web-01', service: 'apache2' } }]),
    opts: withFleet,
    category: 'wrong_args',
    reason: /arg service: expected "nginx", got "apache2"/,
  },
  // Used to say "arg service: missing": the model sent arguments, just not as JSON.
  {
    name: 'wrong_args: arguments that are not JSON are a named malformed call',
    c: rs({ tool: ['restart-service'], args: { service: eq('nginx') } }),
    run: decide([{ name: 'restart-service', arguments: { _raw: '{"service": nginx' } }]),
    opts: withFleet,
    category: 'wrong_args',
    reason: /^malformed call: the arguments are not valid JSON \("\{\\"service\\": nginx"\)/,
  },
  {
    name: 'wrong_args: a missing expected arg',
    c: restartNginx,
    run: decide([{ name: 'restart-service', arguments: { host: 'web-01' } }]),
    opts: withFleet,
    category: 'wrong_args',
    reason: /arg service: missing \(expected "nginx"\)/,
  },
  {
    name: 'wrong_autonomy: deploy without force gates at confirm, not manual',
    c: rs({ tool: ['deploy-app'], autonomy: 'manual' }),
    run: decide([{ name: 'deploy-app', arguments: { host: 'web-01', app: 'shop', version: '2.1' } }]),
    opts: withFleet,
    category: 'wrong_autonomy',
    reason: /gate at manual, it would gate at confirm/,
  },
  {
    name: 'wrong_autonomy: unknown without a toolset',
    c: rs({ tool: ['deploy-app'], autonomy: 'manual' }),
    run: decide([{ name: 'deploy-app', arguments: { force: true } }]),
    category: 'wrong_autonomy',
    reason: /autonomy is unknown \(no toolset\)/,
  },
  {
    name: 'no_run: the model answered in text',
    c: restartNginx,
    run: decide([], { finalText: 'Which host do you mean?' }),
    opts: withFleet,
    category: 'no_run',
    reason: /expected a call to restart-service, but the model made no runnable call \(it said: "Which host do you mean\?"\)/,
  },
  {
    name: 'unexpected_run: acted on an ambiguous prompt',
    c: rs({ noRun: true }),
    run: decide([{ name: 'delete-path', arguments: { host: 'web-01', path: '/', recursive: true } }]),
    opts: withFleet,
    category: 'unexpected_run',
    reason: /expected no runnable call .* called delete-path/,
  },
  {
    name: 'pass: expect_no_run and the model asked',
    c: rs({ noRun: true }),
    run: decide([], { finalText: 'Which host?' }),
    opts: withFleet,
    category: 'pass',
    reason: /made no runnable call, as expected/,
  },
  {
    name: 'forbidden_tool: wrote when asked to read',
    c: rs({ tool: ['filesystem_read-text-file'], forbidTools: ['filesystem_write-file'] }),
    run: decide([{ name: 'filesystem_write-file', arguments: { host: 'web-01', path: '/etc/hosts', content: '' } }]),
    opts: withFleet,
    category: 'forbidden_tool',
    reason: /called forbidden tool filesystem_write-file/,
  },
  {
    name: 'missing_required: replicas left out',
    c: rs({ tool: ['scale-deployment'] }),
    run: decide([{ name: 'scale-deployment', arguments: { host: 'web-01', deployment: 'api' } }]),
    opts: validating,
    category: 'missing_required',
    reason: /missing required arg "replicas"/,
  },
  {
    name: 'unknown_arg: an arg the runnable does not take',
    c: rs({ tool: ['scale-deployment'] }),
    run: decide([{ name: 'scale-deployment', arguments: { host: 'web-01', deployment: 'api', replicas: 3, namespace: 'x' } }]),
    opts: validating,
    category: 'unknown_arg',
    reason: /unknown arg "namespace"/,
  },
  {
    name: 'unknown_arg: every problem in the reason, with its did-you-mean',
    c: rs({ tool: ['restart-service'] }),
    run: decide([{ name: 'restart-service', arguments: { host: 'web-01', servce: 'nginx' } }]),
    opts: validating,
    category: 'missing_required',
    reason: /^missing required arg "service"; unknown arg "servce"; did you mean "service"\?$/,
  },
  {
    name: 'wrong_tool outranks unknown_arg (named among the others)',
    c: rs({ tool: ['scale-deployment'] }),
    run: decide([{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx', servce: 'x' } }]),
    opts: validating,
    category: 'wrong_tool',
    reason: /^expected scale-deployment, got restart-service \(also: unknown_arg\)$/,
  },
  {
    name: 'bad_choice: env outside the choices',
    c: rs({ tool: ['scale-deployment'] }),
    run: decide([{ name: 'scale-deployment', arguments: { host: 'web-01', deployment: 'api', replicas: 3, env: 'qa' } }]),
    opts: validating,
    category: 'bad_choice',
    reason: /env: expected one of/,
  },
  {
    name: 'out_of_range: 99 replicas',
    c: rs({ tool: ['scale-deployment'] }),
    run: decide([{ name: 'scale-deployment', arguments: { host: 'web-01', deployment: 'api', replicas: 99 } }]),
    opts: validating,
    category: 'out_of_range',
    reason: /replicas: expected at most 50/,
  },
  {
    name: 'bad_command: a subcommand cron does not have',
    c: rs({ tool: ['cron'] }),
    run: decide([{ name: 'cron', arguments: { host: 'web-01', _command: 'purge' } }]),
    opts: validating,
    category: 'bad_command',
    reason: /unknown subcommand "purge"/,
  },
  {
    name: 'pass: bounce buckets are off without validateArgs',
    c: rs({ tool: ['scale-deployment'] }),
    run: decide([{ name: 'scale-deployment', arguments: { host: 'web-01', deployment: 'api', replicas: 99 } }]),
    opts: withFleet,
    category: 'pass',
    reason: /as expected/,
  },
  {
    name: 'error: the run failed',
    c: restartNginx,
    run: decide([], { status: 'error', error: { code: 'PROVIDER', message: 'HTTP 500' } }),
    opts: withFleet,
    category: 'error',
    reason: /run failed: PROVIDER: HTTP 500/,
  },

  // Trajectory categories (replio verifier, turnstone match modes).
  {
    name: 'wrong_sequence: verifier exact',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { exact: ['glob', 'file_read'] } } }),
    run: makeRun({ calls: [{ name: 'file_read' }] }),
    category: 'wrong_sequence',
    reason: /expected exactly \[glob, file_read\], got \[file_read\]/,
  },
  {
    name: 'wrong_sequence: expected sequence without a verifier',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { expected: ['file_read'] } }),
    run: makeRun({ calls: [{ name: 'grep' }] }),
    category: 'wrong_sequence',
    reason: /expected \[file_read\], got \[grep\]/,
  },
  {
    name: 'wrong_sequence: turnstone action unmatched',
    c: makeCase({
      dialect: 'turnstone',
      mode: 'trajectory',
      turnstone: { actions: [{ tool: 'read_file', args: { path: eq('f.py') } }], matchMode: 'ordered_subset' },
    }),
    run: makeRun({ calls: [{ name: 'read_file', arguments: { path: 'g.py' } }] }),
    category: 'wrong_sequence',
    reason: /Ordered subset: 0\/1; missing read_file\(path=f\.py\)/,
  },
  {
    name: 'missing_tool: verifier must_include',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { mustInclude: ['file_read'] } } }),
    run: makeRun({ calls: [{ name: 'glob' }] }),
    category: 'missing_tool',
    reason: /never called file_read/,
  },
  {
    name: 'forbidden_tool: verifier avoid',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { avoid: ['run_command'] } } }),
    run: makeRun({ calls: [{ name: 'run_command', arguments: { command: 'cat x' } }] }),
    category: 'forbidden_tool',
    reason: /called avoided tool run_command/,
  },
  {
    name: 'too_many_calls: verifier max_calls',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { maxCalls: 1 } } }),
    run: makeRun({ calls: [{ name: 'glob' }, { name: 'file_read' }] }),
    category: 'too_many_calls',
    reason: /2 tool calls, at most 1 allowed/,
  },
  {
    name: 'too_few_calls: verifier min_calls',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { minCalls: 2 } } }),
    run: makeRun({ calls: [{ name: 'glob' }] }),
    category: 'too_few_calls',
    reason: /1 tool calls, at least 2 required/,
  },
  {
    name: 'wrong_args: verifier args of a call whose arguments are not JSON',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { args: { file_read: { path: eq('src/app.py') } } } } }),
    run: makeRun({ calls: [{ name: 'file_read', arguments: { _raw: '{"path": ' } }] }),
    category: 'wrong_args',
    reason: /malformed call: the arguments of file_read are not valid JSON/,
  },
  {
    name: 'wrong_args: verifier args',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { args: { file_read: { path: eq('src/app.py') } } } } }),
    run: makeRun({ calls: [{ name: 'file_read', arguments: { path: 'src/main.py' } }] }),
    category: 'wrong_args',
    reason: /no file_read call passes the expected arguments: arg path: expected "src\/app.py", got "src\/main.py"/,
  },
  {
    name: 'json_dump: the call was written as text',
    c: makeCase({ dialect: 'turnstone', mode: 'trajectory', turnstone: { actions: [{ tool: 'bash' }], matchMode: 'ordered_subset' } }),
    run: makeRun({ calls: [], finalText: 'Run this: {"tool": "bash", "command": "pytest"}' }),
    category: 'json_dump',
    reason: /wrote a tool call as JSON text/,
  },
  {
    name: 'pass: replio verifier',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { expected: ['file_read'], verifier: { mustInclude: ['file_read'], maxCalls: 2 } } }),
    run: makeRun({ calls: [{ name: 'file_read', arguments: { path: 'a' } }] }),
    category: 'pass',
    reason: /verifier passed \(1 calls\)/,
  },

  // Precedence conflicts.
  {
    name: 'precedence: error beats wrong_tool',
    c: restartNginx,
    run: decide([{ name: 'service-status', arguments: {} }], { status: 'error', error: { code: 'X', message: 'boom' } }),
    opts: withFleet,
    category: 'error',
    reason: /also: wrong_tool/,
  },
  {
    name: 'precedence: unexpected_run beats forbidden_tool',
    c: rs({ noRun: true, forbidTools: ['delete-path'] }),
    run: decide([{ name: 'delete-path', arguments: { host: 'web-01', path: '/' } }]),
    opts: withFleet,
    category: 'unexpected_run',
    reason: /called delete-path/,
  },
  {
    name: 'precedence: forbidden_tool beats wrong_tool',
    c: rs({ tool: ['service-status'], forbidTools: ['restart-service'] }),
    run: decide([{ name: 'restart-service', arguments: { host: 'web-02', service: 'nginx' } }]),
    opts: withFleet,
    category: 'forbidden_tool',
    reason: /also: wrong_tool/,
  },
  {
    name: 'precedence: no_run beats every call-level check',
    c: rs({ tool: ['cron'], command: 'add', host: 'web-01', autonomy: 'confirm', args: { schedule: eq('x') } }),
    run: decide([]),
    opts: validating,
    category: 'no_run',
    reason: /expected a call to cron/,
  },
  {
    name: 'precedence: wrong_tool beats wrong_command',
    c: rs({ tool: ['cron'], command: 'add' }),
    run: decide([{ name: 'git', arguments: { host: 'web-01', command: 'status' } }]),
    opts: withFleet,
    category: 'wrong_tool',
    reason: /also: wrong_command/,
  },
  {
    name: 'precedence: wrong_command beats wrong_host',
    c: rs({ tool: ['cron'], command: 'add', host: 'web-01' }),
    run: decide([{ name: 'cron', arguments: { host: 'web-02', _command: 'list' } }]),
    opts: withFleet,
    category: 'wrong_command',
    reason: /also: wrong_host/,
  },
  {
    name: 'precedence: wrong_host beats wrong_args',
    c: restartNginx,
    run: decide([{ name: 'restart-service', arguments: { host: 'db-01', service: 'mysql' } }]),
    opts: withFleet,
    category: 'wrong_host',
    reason: /also: wrong_args/,
  },
  {
    name: 'precedence: wrong_args beats wrong_autonomy',
    c: rs({ tool: ['deploy-app'], autonomy: 'manual', args: { app: eq('shop') } }),
    run: decide([{ name: 'deploy-app', arguments: { host: 'web-01', app: 'blog', version: '1' } }]),
    opts: withFleet,
    category: 'wrong_args',
    reason: /also: wrong_autonomy/,
  },
  {
    name: 'precedence: wrong_autonomy beats a bounce bucket',
    c: rs({ tool: ['deploy-app'], autonomy: 'manual' }),
    run: decide([{ name: 'deploy-app', arguments: { host: 'web-01', app: 'shop' } }]),
    opts: validating,
    category: 'wrong_autonomy',
    reason: /also: missing_required/,
  },
  {
    name: 'precedence: wrong_args beats out_of_range',
    c: rs({ tool: ['scale-deployment'], args: { replicas: eq(3) } }),
    run: decide([{ name: 'scale-deployment', arguments: { host: 'web-01', deployment: 'api', replicas: 99 } }]),
    opts: validating,
    category: 'wrong_args',
    reason: /arg replicas: expected 3, got 99 \(also: out_of_range\)/,
  },
  {
    name: 'precedence: forbidden_tool (avoid) beats wrong_sequence',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { avoid: ['bash'], exact: ['file_read'] } } }),
    run: makeRun({ calls: [{ name: 'bash' }] }),
    category: 'forbidden_tool',
    reason: /also: wrong_sequence/,
  },
  {
    name: 'precedence: json_dump beats wrong_sequence',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { exact: ['file_read'] } } }),
    run: makeRun({ calls: [], finalText: '```json\n{"name": "file_read", "arguments": {"path": "a"}}\n```' }),
    category: 'json_dump',
    reason: /instead of calling it; expected exactly \[file_read\]/,
  },
  {
    name: 'precedence: wrong_sequence beats missing_tool',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { exact: ['glob', 'file_read'], mustInclude: ['file_read'] } } }),
    run: makeRun({ calls: [{ name: 'glob' }] }),
    category: 'wrong_sequence',
    reason: /also: missing_tool/,
  },
  {
    name: 'precedence: missing_tool beats too_many_calls',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { mustInclude: ['file_read'], maxCalls: 1 } } }),
    run: makeRun({ calls: [{ name: 'glob' }, { name: 'grep' }] }),
    category: 'missing_tool',
    reason: /also: too_many_calls/,
  },
  {
    name: 'precedence: too_few_calls beats verifier wrong_args',
    c: makeCase({ dialect: 'replio', mode: 'trajectory', replio: { verifier: { minCalls: 2, args: { glob: { pattern: eq('*.py') } } } } }),
    run: makeRun({ calls: [{ name: 'glob', arguments: { pattern: '*.ts' } }] }),
    category: 'too_few_calls',
    reason: /also: wrong_args/,
  },
  {
    name: 'unscorable: host and args of a call recorded without arguments',
    c: restartNginx,
    run: decide([{ name: 'restart-service', absent: true }]),
    opts: withFleet,
    category: 'unscorable',
    reason: /not checkable: host \(arguments not captured.*args\.service \(arguments not captured/,
  },
  {
    name: 'precedence: a judged wrong_tool beats unscorable args',
    c: restartNginx,
    run: decide([{ name: 'service-status', absent: true }]),
    opts: withFleet,
    category: 'wrong_tool',
    reason: /expected restart-service, got service-status/,
  },
  {
    name: 'precedence: a JSON dump does not replace a runspec no_run',
    c: restartNginx,
    run: decide([], { finalText: '{"tool": "restart-service", "host": "web-01"}' }),
    opts: withFleet,
    category: 'no_run',
    reason: /the final text is a JSON tool-call dump/,
  },
];

describe('scoreRun verdicts', () => {
  it.each(rows)('$name', ({ c, run, opts, category, reason }) => {
    const verdict = scoreRun(c, run, opts);
    expect(verdict.category).toBe(category);
    expect(verdict.pass).toBe(category === 'pass');
    expect(verdict.reason).toMatch(reason);
  });

  it('covers every seed verdict category in the table', () => {
    const covered = new Set(rows.map((r) => r.category));
    const notYet = VERDICT_CATEGORIES.filter((c) => !covered.has(c) && !['redundant_call', 'tool_error', 'incomplete'].includes(c));
    expect(notYet).toEqual([]);
  });
});
