import { beforeAll, describe, expect, it } from 'vitest';
import type { ToolCall } from '../../src/types/run.js';
import type { Toolset } from '../../src/types/toolset.js';
import { createLayout, loadToolset, parseToolsetText, searchRunnables, WORKSPACE_TOOLSET } from '../../src/toolset/index.js';
import { toAnthropicTools, toOpenAITools } from '../../src/providers/index.js';

let fleet: Toolset;
beforeAll(async () => {
  fleet = await loadToolset('builtin:fleet', { projectDir: '.', env: {} });
});

const call = (name: string, args: Record<string, unknown> = {}): ToolCall => ({ id: 'c1', name, arguments: args });
const props = (params: Record<string, unknown>): Record<string, Record<string, unknown>> => params.properties as Record<string, Record<string, unknown>>;

describe('dedup layout', () => {
  it('offers one tool per visible runnable, never the hidden one', () => {
    const names = createLayout('dedup', fleet)
      .tools()
      .map((t) => t.name);
    expect(names).toHaveLength(13);
    expect(names).toContain('restart-service');
    expect(names).not.toContain('debug-dump');
  });

  it('injects an enum-free host selector that names hosts and groups, renamed _host for runnables with their own host', () => {
    const tools = Object.fromEntries(
      createLayout('dedup', fleet)
        .tools()
        .map((t) => [t.name, t]),
    );
    const restart = props(tools['restart-service']!.parameters);
    expect(Object.keys(restart)).toEqual(['host', 'service']);
    expect(restart.host!.enum).toBeUndefined();
    expect(restart.host!.description).toMatch(/web-01.*OR a host group name \(Production, Web\)/);
    const cert = props(tools['cert-check']!.parameters);
    expect(Object.keys(cert)).toEqual(['_host', 'host', 'port']);
    expect(tools['cert-check']!.parameters.required).toEqual(['_host', 'host']);
  });

  it('puts the subcommand in a top-level command slot, renamed _command when an arg is called command', () => {
    const tools = Object.fromEntries(
      createLayout('dedup', fleet)
        .tools()
        .map((t) => [t.name, t]),
    );
    expect(props(tools.git!.parameters).command!.description).toMatch(/"remote add"/);
    expect(Object.keys(props(tools.cron!.parameters))).toEqual(['host', '_command', 'schedule', 'command', 'id']);
    const l = createLayout('dedup', fleet);
    expect(l.resolve(call('cron', { host: 'web-01', _command: 'add', schedule: '0 2 * * *', command: 'backup.sh' }))).toEqual({
      runnable: 'cron',
      known: true,
      discovery: false,
      host: 'web-01',
      command: 'add',
      args: { schedule: '0 2 * * *', command: 'backup.sh' },
      layout: 'dedup',
      calledName: 'cron',
    });
  });

  it('grades _host as the fleet host and leaves the runnable own host in args', () => {
    const r = createLayout('dedup', fleet).resolve(call('cert-check', { _host: 'web-01', host: 'example.com' }));
    expect(r).toMatchObject({ runnable: 'cert-check', host: 'web-01', args: { host: 'example.com' } });
  });

  it('takes the selectors out of a copy, leaving the call as the model sent it, and without selectors reads the call itself', () => {
    const l = createLayout('dedup', fleet);
    const sent = { _host: 'web-01', host: 'example.com' };
    const withSelector = l.resolve(call('cert-check', sent));
    expect(withSelector.args).toEqual({ host: 'example.com' });
    expect(sent).toEqual({ _host: 'web-01', host: 'example.com' });
    // No selector to take out: the same arguments (a verdict's observed args are then the call's, matched at ===).
    const plain = { path: 'a' };
    expect(createLayout('dedup', WORKSPACE_TOOLSET).resolve(call('file_read', plain)).args).toBe(plain);
  });

  it('accepts a group as host and a nested command as an array or a space-joined string', () => {
    const l = createLayout('dedup', fleet);
    expect(l.resolve(call('restart-service', { host: ' production ', service: 'nginx' })).host).toBe('Production');
    expect(l.resolve(call('git', { host: 'web-02', command: ['remote', 'add'], name: 'upstream' })).command).toBe('remote add');
    expect(l.resolve(call('git', { host: 'web-02', command: 'remote  add' })).command).toBe('remote add');
  });

  it('renders OpenAI and Anthropic wire forms of the same tools', () => {
    const tools = createLayout('dedup', fleet).tools();
    expect(toOpenAITools(tools)[0]).toEqual({
      type: 'function',
      function: { name: tools[0]!.name, description: tools[0]!.description, parameters: tools[0]!.parameters },
    });
    expect(toAnthropicTools(tools)[0]!.input_schema).toBe(tools[0]!.parameters);
  });
});

describe('per_host layout', () => {
  it('offers host__name per host the runnable is available on', () => {
    const ts = parseToolsetText('hosts = ["a", "b"]\n[[runnable]]\nname = "x"\n[[runnable]]\nname = "y"\nhosts = ["b"]\n', 't.toml');
    expect(
      createLayout('per_host', ts)
        .tools()
        .map((t) => t.name),
    ).toEqual(['a__x', 'b__x', 'b__y']);
    expect(props(createLayout('per_host', ts).tools()[0]!.parameters)).toEqual({});
  });

  it('takes the host from the prefix, a group prefix too, and keeps a runnable own host arg', () => {
    const l = createLayout('per_host', fleet);
    expect(l.resolve(call('web-01__restart-service', { service: 'nginx' }))).toMatchObject({
      runnable: 'restart-service',
      host: 'web-01',
      args: { service: 'nginx' },
    });
    expect(l.resolve(call('Production__restart-service', {})).host).toBe('Production');
    expect(l.resolve(call('web-01__cert-check', { host: 'example.com' }))).toMatchObject({ host: 'web-01', args: { host: 'example.com' } });
    expect(l.resolve(call('web-02__console__which', { name: 'ls' }))).toMatchObject({ runnable: 'which', host: 'web-02', group: 'console', known: true });
  });

  it('lets a host prefix win over a runnable group of the same name, and the group win in dedup', () => {
    const ts = parseToolsetText('hosts = ["console"]\n[[runnable]]\nname = "which"\ngroup = "console"\n', 't.toml');
    expect(createLayout('per_host', ts).resolve(call('console__which'))).toMatchObject({ runnable: 'which', host: 'console', known: true });
    const dedup = createLayout('dedup', ts).resolve(call('console__which'));
    expect(dedup).toMatchObject({ runnable: 'which', group: 'console', known: true });
    expect(dedup.host).toBeUndefined();
  });
});

describe('search layout', () => {
  const l = (): ReturnType<typeof createLayout> => createLayout('search', fleet);

  it('offers the five search tools with a top-level host, command and nested args', () => {
    const tools = l().tools();
    expect(tools.map((t) => t.name)).toEqual(['search_runnables', 'describe_runnable', 'describe_tool', 'run_runnable', 'use_tool']);
    expect(Object.keys(props(tools[3]!.parameters))).toEqual(['id', 'host', 'command', 'args']);
    expect(Object.keys(props(tools[4]!.parameters))).toEqual(['name', 'host', 'command', 'args']);
    expect(props(tools[3]!.parameters).host!.description).toMatch(/OR a host group name/);
  });

  it('resolves run_runnable and use_tool: id or name, nested args, top-level command and host', () => {
    expect(l().resolve(call('run_runnable', { id: 'cron', host: 'web-01', command: 'add', args: { schedule: '@daily', command: 'x' } }))).toEqual({
      runnable: 'cron',
      known: true,
      discovery: false,
      host: 'web-01',
      command: 'add',
      args: { schedule: '@daily', command: 'x' },
      layout: 'search',
      calledName: 'run_runnable',
    });
    expect(l().resolve(call('use_tool', { name: 'git', host: 'web-02', command: ['remote', 'add'], args: { name: 'upstream' } }))).toMatchObject({
      runnable: 'git',
      command: 'remote add',
      args: { name: 'upstream' },
    });
    expect(l().resolve(call('run_runnable', { id: 'cert-check', host: 'web-01', args: '{"host":"example.com"}' }))).toMatchObject({
      host: 'web-01',
      args: { host: 'example.com' },
    });
  });

  it('marks discovery calls as non-terminal, only in search mode', () => {
    expect(l().resolve(call('search_runnables', { query: 'x' }))).toMatchObject({ discovery: true, known: true });
    expect(l().isDiscovery('describe_tool')).toBe(true);
    expect(createLayout('dedup', fleet).isDiscovery('describe_tool')).toBe(false);
  });

  it('answers describe_runnable with subcommands, their own autonomy and escalations', () => {
    const git = JSON.parse(l().answerDiscovery(call('describe_runnable', { id: 'git' })));
    expect(git.subcommands.map((s: { path: string; autonomy: string }) => [s.path, s.autonomy])).toEqual([
      ['status', 'autonomous'],
      ['remote', 'autonomous'],
    ]);
    expect(git.subcommands[1].subcommands.map((s: { path: string; autonomy: string }) => [s.path, s.autonomy])).toEqual([
      ['remote add', 'confirm'],
      ['remote remove', 'confirm'],
    ]);
    expect(git.subcommands[1].require_command).toBe(true);
    const deploy = JSON.parse(l().answerDiscovery(call('describe_runnable', { id: 'deploy-app' })));
    expect(deploy.escalations).toEqual([{ arg: 'force', level: 'manual', when: true }]);
  });

  it('answers describe_tool with the dedup schema, and a did-you-mean for unknown or hidden names', () => {
    const cert = JSON.parse(l().answerDiscovery(call('describe_tool', { name: 'cert-check' })));
    expect(Object.keys(cert.parameters.properties)).toEqual(['_host', 'host', 'port']);
    expect(l().answerDiscovery(call('describe_runnable', { id: 'restart-servce' }))).toBe(
      'Error: unknown runnable "restart-servce"; did you mean "restart-service"?',
    );
    expect(l().answerDiscovery(call('describe_runnable', { id: 'debug-dump' }))).toMatch(/^Error: unknown runnable/);
    expect(l().answerDiscovery(call('describe_runnable', {}))).toMatch(/^Error: pass the runnable name/);
  });

  it('answers search_runnables with ranked rows from the toolset', () => {
    const out = JSON.parse(l().answerDiscovery(call('search_runnables', { query: 'restart nginx service', limit: 2 })));
    expect(out.results.map((r: { name: string }) => r.name)).toEqual(['restart-service', 'service-status']);
    expect(out.results[0]).toEqual({ name: 'restart-service', description: 'Restart a systemd service.', score: 10, matched_args: ['service'] });
  });
});

describe('search ranking', () => {
  it.each([
    { name: 'name words beat description words', query: 'cert', first: 'cert-check' },
    { name: 'a subcommand name finds its runnable', query: 'remote', first: 'git' },
    { name: 'an arg name finds its runnable', query: 'replicas', first: 'scale-deployment' },
    { name: 'a substring of the name counts', query: 'deploy', first: 'deploy-app' },
    { name: 'the group is part of the name', query: 'filesystem read', first: 'filesystem_read-text-file' },
  ])('$name', ({ query, first }) => {
    expect(searchRunnables(fleet, query)[0]!.name).toBe(first);
  });

  it('drops zero scores and hidden runnables, sorts ties by name, and lists everything for an empty query', () => {
    expect(searchRunnables(fleet, 'zebra')).toEqual([]);
    expect(searchRunnables(fleet, 'dump debug')).toEqual([]);
    const all = searchRunnables(fleet, '', 50);
    expect(all.map((r) => r.name)).toEqual(
      fleet.runnables
        .filter((r) => !r.hidden)
        .map((r) => r.name)
        .sort(),
    );
    // ping-host: name word 3 + arg 2 + description 1; cert-check: arg 2 + description 1; dns-lookup: arg 2.
    expect(searchRunnables(fleet, 'host').map((r) => [r.name, r.score])).toEqual([
      ['ping-host', 6],
      ['cert-check', 3],
      ['dns-lookup', 2],
    ]);
  });
});

describe('legacy group-qualified ids', () => {
  it.each([
    { id: 'console__which', runnable: 'which', known: true, group: 'console' },
    { id: 'filesystem__read-text-file', runnable: 'filesystem_read-text-file', known: true, group: 'filesystem' },
    { id: 'filesystem__filesystem_write-file', runnable: 'filesystem_write-file', known: true, group: 'filesystem' },
    { id: 'filesystem__which', runnable: 'which', known: false, group: 'filesystem' },
    { id: 'nope__which', runnable: 'nope__which', known: false, group: undefined },
  ])('$id → $runnable (known: $known)', ({ id, runnable, known, group }) => {
    for (const mode of ['dedup', 'search'] as const) {
      const l = createLayout(mode, fleet);
      const r = l.resolve(mode === 'search' ? call('run_runnable', { id, args: {} }) : call(id, {}));
      expect([r.runnable, r.known, r.group]).toEqual([runnable, known, group]);
    }
  });
});

describe('resolve never throws on model output', () => {
  it.each([
    { name: 'unknown tool', mode: 'dedup', c: call('reboot-everything', { host: 'web-01' }), runnable: 'reboot-everything', host: 'web-01' },
    { name: 'unknown host prefix', mode: 'per_host', c: call('web-99__restart-service', {}), runnable: 'restart-service', host: 'web-99' },
    { name: 'unknown host prefix and tool', mode: 'per_host', c: call('web-99__reboot', {}), runnable: 'web-99__reboot', host: undefined },
    { name: 'run_runnable without id', mode: 'search', c: call('run_runnable', { host: 'web-01' }), runnable: '', host: 'web-01' },
    {
      name: 'non-object arguments',
      mode: 'dedup',
      c: { id: 'x', name: 'restart-service', arguments: 'oops' as unknown as Record<string, unknown> },
      runnable: 'restart-service',
      host: undefined,
    },
    { name: 'raw unparsed arguments', mode: 'search', c: call('run_runnable', { _raw: '{"id": "cron"' }), runnable: '', host: undefined },
    { name: 'numeric name', mode: 'search', c: call('use_tool', { name: 42, args: null }), runnable: '', host: undefined },
    {
      name: 'a direct call in search mode',
      mode: 'search',
      c: call('restart-service', { host: 'web-01', service: 'x' }),
      runnable: 'restart-service',
      host: 'web-01',
    },
  ] as const)('$name ($mode)', ({ mode, c, runnable, host }) => {
    const r = createLayout(mode, fleet).resolve(c);
    expect([r.runnable, r.host, r.calledName]).toEqual([runnable, host, c.name]);
    expect(r.known).toBe(fleet.runnables.some((x) => x.name === runnable));
  });
});

describe('toolsets without hosts (builtin:workspace)', () => {
  it('dedup injects no selector and per_host offers plain names', () => {
    const dedup = createLayout('dedup', WORKSPACE_TOOLSET).tools();
    expect(Object.keys(props(dedup.find((t) => t.name === 'file_read')!.parameters))).toEqual(['path', 'offset', 'limit']);
    expect(
      createLayout('per_host', WORKSPACE_TOOLSET)
        .tools()
        .map((t) => t.name),
    ).toEqual(WORKSPACE_TOOLSET.runnables.map((r) => r.name));
    expect(Object.keys(props(createLayout('search', WORKSPACE_TOOLSET).tools()[3]!.parameters))).toEqual(['id', 'command', 'args']);
  });

  it('keeps a host key as an ordinary arg', () => {
    expect(createLayout('dedup', WORKSPACE_TOOLSET).resolve(call('file_read', { path: 'a', host: 'x' }))).toMatchObject({
      runnable: 'file_read',
      known: true,
      args: { path: 'a', host: 'x' },
    });
  });
});

describe('host selector description', () => {
  it('names at most 20 hosts of a big fleet', () => {
    const hosts = Array.from({ length: 25 }, (_, i) => `n${i}`);
    const ts = parseToolsetText(`hosts = ${JSON.stringify(hosts)}\n[[runnable]]\nname = "x"\n`, 't.toml');
    const desc = props(createLayout('dedup', ts).tools()[0]!.parameters).host!.description as string;
    expect(desc).toBe(`Which host to run on (${hosts.slice(0, 20).join(', ')}, and 5 more).`);
  });
});

describe('wire-safe tool names', () => {
  it.each(['dedup', 'per_host', 'search'] as const)('every %s tool of the fleet has an OpenAI/Anthropic-valid name and an object schema', (mode) => {
    for (const t of createLayout(mode, fleet).tools()) {
      expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(t.parameters.type).toBe('object');
      expect(JSON.parse(JSON.stringify(t))).toEqual(t);
    }
  });
});
