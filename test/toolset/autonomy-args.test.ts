import { beforeAll, describe, expect, it } from 'vitest';
import type { ArgSpec, ResolvedCall, Toolset } from '../../src/types/toolset.js';
import { coerceArgValue, effectiveAutonomy, loadToolset, parseToolsetText, validateCallArgs } from '../../src/toolset/index.js';

let fleet: Toolset;
beforeAll(async () => {
  fleet = await loadToolset('builtin:fleet', { projectDir: '.', env: {} });
});

const rc = (runnable: string, args: Record<string, unknown> = {}, command?: string, extra: Partial<ResolvedCall> = {}): ResolvedCall => ({
  runnable,
  known: true,
  discovery: false,
  args,
  layout: 'dedup',
  calledName: runnable,
  ...(command !== undefined ? { command } : {}),
  ...extra,
});

describe('effectiveAutonomy', () => {
  it.each([
    { name: 'a plain autonomous runnable', call: rc('service-status', { service: 'nginx' }), want: 'autonomous' },
    { name: 'a plain confirm runnable', call: rc('restart-service', { service: 'nginx' }), want: 'confirm' },
    { name: 'cron list is autonomous', call: rc('cron', {}, 'list'), want: 'autonomous' },
    { name: 'cron add is confirm', call: rc('cron', { schedule: '@daily', command: 'x' }, 'add'), want: 'confirm' },
    { name: 'cron remove is confirm', call: rc('cron', { id: '3' }, 'remove'), want: 'confirm' },
    { name: 'cron without a verb gates at the runnable level', call: rc('cron'), want: 'autonomous' },
    { name: 'git remote inherits git', call: rc('git', {}, 'remote'), want: 'autonomous' },
    { name: 'git remote add is the nested leaf', call: rc('git', { name: 'u', url: 'x' }, 'remote add'), want: 'confirm' },
    { name: 'an unknown verb stops at the deepest match', call: rc('git', {}, 'remote rename'), want: 'autonomous' },
    { name: 'force = true escalates deploy-app to manual', call: rc('deploy-app', { app: 'shop', version: '2.1', force: true }), want: 'manual' },
    { name: 'force = "true" (a string) escalates too', call: rc('deploy-app', { app: 'shop', version: '2.1', force: 'true' }), want: 'manual' },
    { name: 'force = false does not escalate', call: rc('deploy-app', { app: 'shop', version: '2.1', force: false }), want: 'confirm' },
    { name: 'recursive = true escalates delete-path', call: rc('delete-path', { path: '/', recursive: true }), want: 'manual' },
    { name: 'recursive = "false" does not', call: rc('delete-path', { path: '/', recursive: 'false' }), want: 'confirm' },
    { name: 'an unknown runnable has none', call: rc('nope', {}, undefined, { known: false }), want: undefined },
    { name: 'a legacy group narrows: which in console', call: rc('which', { name: 'ls' }, undefined, { group: 'console' }), want: 'autonomous' },
    { name: 'a legacy group narrows: which is not in filesystem', call: rc('which', {}, undefined, { group: 'filesystem' }), want: undefined },
    { name: 'a discovery call has none', call: rc('search_runnables', {}, undefined, { discovery: true }), want: undefined },
  ])('$name → $want', ({ call, want }) => {
    expect(effectiveAutonomy(fleet, call)).toBe(want);
  });

  it('takes the most restrictive level of the leaf and every triggered escalation', () => {
    const ts = parseToolsetText(
      [
        '[[runnable]]',
        'name = "x"',
        'autonomy = "autonomous"',
        'args.a = { type = "bool", escalate = "confirm" }',
        'args.level = { type = "string", escalate = { level = "manual", when = "HIGH" } }',
        '[[runnable.subcommands]]',
        'name = "hot"',
        'autonomy = "manual"',
        '[[runnable.subcommands]]',
        'name = "cold"',
      ].join('\n'),
      't.toml',
    );
    expect(effectiveAutonomy(ts, rc('x', { a: true }))).toBe('confirm');
    expect(effectiveAutonomy(ts, rc('x', { a: true, level: 'high' }))).toBe('manual');
    expect(effectiveAutonomy(ts, rc('x', { level: 'low' }))).toBe('autonomous');
    expect(effectiveAutonomy(ts, rc('x', { a: true }, 'hot'))).toBe('manual');
    expect(effectiveAutonomy(ts, rc('x', { a: 'yes' }, 'cold'))).toBe('confirm');
  });
});

describe('validateCallArgs', () => {
  it.each([
    { name: 'a valid call', call: rc('scale-deployment', { deployment: 'api', replicas: 3, env: 'prod' }), want: [] },
    { name: '"3" is a valid int and choices ignore case', call: rc('scale-deployment', { deployment: 'api', replicas: '3', env: 'PROD' }), want: [] },
    { name: 'missing required', call: rc('scale-deployment', { deployment: 'api' }), want: [['missing_required', 'replicas']] },
    { name: 'null counts as missing', call: rc('restart-service', { service: null }), want: [['missing_required', 'service']] },
    { name: 'unknown arg', call: rc('restart-service', { service: 'nginx', servic: 'x' }), want: [['unknown_arg', 'servic']] },
    { name: 'bad choice', call: rc('scale-deployment', { deployment: 'api', replicas: 3, env: 'qa' }), want: [['bad_choice', 'env']] },
    { name: 'wrong type buckets as bad_choice', call: rc('scale-deployment', { deployment: 'api', replicas: 'three' }), want: [['bad_choice', 'replicas']] },
    { name: 'a float for an int', call: rc('scale-deployment', { deployment: 'api', replicas: 2.5 }), want: [['bad_choice', 'replicas']] },
    { name: 'above max', call: rc('scale-deployment', { deployment: 'api', replicas: 51 }), want: [['out_of_range', 'replicas']] },
    { name: 'below min as a string', call: rc('scale-deployment', { deployment: 'api', replicas: '-1' }), want: [['out_of_range', 'replicas']] },
    { name: 'edges are inclusive', call: rc('ping-host', { host: 'a', count: 20 }), want: [] },
    { name: 'a bool as a string', call: rc('deploy-app', { app: 'a', version: '1', force: 'TRUE' }), want: [] },
    { name: 'a bool that is not one', call: rc('deploy-app', { app: 'a', version: '1', force: 'yes' }), want: [['bad_choice', 'force']] },
    { name: 'require-command without a verb', call: rc('cron'), want: [['bad_command', undefined]] },
    { name: 'an inner node inherits require-command', call: rc('git', {}, 'remote'), want: [['bad_command', undefined]] },
    { name: 'an unknown verb', call: rc('cron', {}, 'purge'), want: [['bad_command', undefined]] },
    { name: 'a verb on a runnable without subcommands', call: rc('restart-service', { service: 'x' }, 'now'), want: [['bad_command', undefined]] },
    {
      name: "the chosen verb's own arg set: add needs schedule and command",
      call: rc('cron', { id: '1' }, 'add'),
      want: [
        ['missing_required', 'schedule'],
        ['missing_required', 'command'],
        ['unknown_arg', 'id'],
      ],
    },
    { name: 'a nested verb with its args', call: rc('git', { name: 'upstream', url: 'https://x' }, 'remote add'), want: [] },
    { name: 'an unknown runnable gives no bounce', call: rc('nope', { a: 1 }, undefined, { known: false }), want: [] },
  ])('$name', ({ call, want }) => {
    expect(validateCallArgs(fleet, call).map((p) => [p.bucket, p.arg])).toEqual(want);
  });

  it('says what was expected and offers a did-you-mean', () => {
    expect(validateCallArgs(fleet, rc('restart-service', { service: 'x', servce: 'y' }))[0]!.message).toBe('unknown arg "servce"; did you mean "service"?');
    expect(validateCallArgs(fleet, rc('cron', {}, 'ad'))[0]!.message).toBe(
      'unknown subcommand "ad" of cron; expected one of list, add, remove; did you mean "add"?',
    );
    expect(validateCallArgs(fleet, rc('git'))[0]!.message).toBe('git requires a subcommand: one of status, remote add, remote remove');
    expect(validateCallArgs(fleet, rc('scale-deployment', { deployment: 'a', replicas: 99 }))[0]!.message).toBe('replicas: expected at most 50 (got 99)');
  });

  // The did-you-mean is worded when the message is first read; a copy or JSON of the problem still has it.
  it('gives an unknown arg its message however the problem is read', () => {
    const [problem] = validateCallArgs(fleet, rc('restart-service', { service: 'x', servce: 'y' }));
    const message = 'unknown arg "servce"; did you mean "service"?';
    expect({ ...problem }).toEqual({ bucket: 'unknown_arg', arg: 'servce', message });
    expect(JSON.parse(JSON.stringify(problem))).toEqual({ bucket: 'unknown_arg', arg: 'servce', message });
    expect(problem!.message).toBe(message);
  });
});

describe('coerceArgValue', () => {
  const spec = (type: ArgSpec['type']): ArgSpec => ({ name: 'v', type });
  it.each([
    { type: 'int', value: '3', ok: true, out: 3 },
    { type: 'int', value: ' -2 ', ok: true, out: -2 },
    { type: 'int', value: 3.0, ok: true, out: 3 },
    { type: 'int', value: '3.5', ok: false },
    { type: 'int', value: true, ok: false },
    { type: 'float', value: '2.5', ok: true, out: 2.5 },
    { type: 'float', value: '1e3', ok: true, out: 1000 },
    { type: 'float', value: '', ok: false },
    { type: 'float', value: 'NaN', ok: false },
    { type: 'bool', value: 'true', ok: true, out: true },
    { type: 'bool', value: ' False ', ok: true, out: false },
    { type: 'bool', value: 1, ok: false },
    { type: 'string', value: 42, ok: true, out: '42' },
    { type: 'string', value: null, ok: false },
    { type: 'string', value: { a: 1 }, ok: false },
    { type: 'array', value: '["a","b"]', ok: true, out: ['a', 'b'] },
    { type: 'array', value: 'a,b', ok: false },
    { type: 'object', value: '{"a":1}', ok: true, out: { a: 1 } },
    { type: 'object', value: [1], ok: false },
  ] as const)('$type from $value', ({ type, value, ok, ...rest }) => {
    const r = coerceArgValue(spec(type), value);
    expect(r.ok).toBe(ok);
    if (r.ok) expect(r.value).toEqual((rest as { out: unknown }).out);
    else expect(r.reason).toMatch(/^expected /);
  });
});
