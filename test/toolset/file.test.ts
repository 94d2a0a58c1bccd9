import { z } from 'zod';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolsetError, EXIT_CODES } from '../../src/errors.js';
import { loadToolset, loadToolsetFile, parseToolsetText, ToolsetFileSchema } from '../../src/toolset/index.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'toolset-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function errorOf(fn: () => unknown): ToolsetError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ToolsetError) return err;
    throw err;
  }
  throw new Error('expected a ToolsetError');
}

describe('builtin:fleet', () => {
  it('loads the bundled fleet with every runnable FLEET.md lists', async () => {
    const fleet = await loadToolset('builtin:fleet', { projectDir: dir, env: {} });
    expect(fleet.source).toBe('builtin:fleet');
    expect(fleet.hosts).toEqual(['web-01', 'web-02', 'db-01', 'cache-01']);
    expect(fleet.groups).toEqual({ Production: ['web-01', 'web-02', 'db-01'], Web: ['web-01', 'web-02'] });
    expect(fleet.runnables.map((r) => r.name).sort()).toEqual(
      [
        'service-status',
        'restart-service',
        'scale-deployment',
        'filesystem_read-text-file',
        'filesystem_write-file',
        'delete-path',
        'cron',
        'git',
        'cert-check',
        'dns-lookup',
        'ping-host',
        'deploy-app',
        'which',
        'debug-dump',
      ].sort(),
    );
    const by = Object.fromEntries(fleet.runnables.map((r) => [r.name, r]));
    expect(by['cert-check']!.ownHostArg && by['dns-lookup']!.ownHostArg && by['ping-host']!.ownHostArg).toBe(true);
    expect(by['restart-service']!.ownHostArg).toBe(false);
    expect(by['scale-deployment']!.args.find((a) => a.name === 'replicas')).toMatchObject({ type: 'int', required: true, min: 0, max: 50 });
    expect(by['scale-deployment']!.args.find((a) => a.name === 'env')!.choices).toEqual(['dev', 'staging', 'prod']);
    expect(by['cron']!.requireCommand).toBe(true);
    expect(by['cron']!.subcommands!.map((s) => [s.name, s.autonomy])).toEqual([
      ['list', 'autonomous'],
      ['add', 'confirm'],
      ['remove', 'confirm'],
    ]);
    expect(by['git']!.subcommands![1]!.subcommands!.map((s) => s.name)).toEqual(['add', 'remove']);
    expect(by['which']!.group).toBe('console');
    expect(by['debug-dump']!.hidden).toBe(true);
    expect(by['deploy-app']!.args.find((a) => a.name === 'force')!.escalate).toEqual({ level: 'manual', when: true });
  });

  it('loads builtin:workspace and rejects an unknown builtin with exit 2', async () => {
    expect((await loadToolset('builtin:workspace', { projectDir: dir, env: {} })).hosts).toEqual([]);
    const err = await loadToolset('builtin:nope', { projectDir: dir, env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolsetError);
    expect(EXIT_CODES[(err as ToolsetError).code]).toBe(2);
  });
});

describe('examples', () => {
  it('loads the commented TOML example with args, nested subcommands and a group', () => {
    const ts = loadToolsetFile(join(REPO_ROOT, 'examples/toolset.toml'));
    expect(ts.name).toBe('example');
    const git = ts.runnables.find((r) => r.name === 'git')!;
    expect(git.subcommands![1]!.subcommands![0]!.args.map((a) => a.name)).toEqual(['name', 'url']);
    const read = ts.runnables.find((r) => r.name === 'read-text-file')!;
    expect(read).toMatchObject({ group: 'filesystem', hosts: ['web-01', 'web-02'] });
    expect(read.args).toEqual([{ name: 'path', type: 'string', required: true }]);
  });

  it('loads the JSON example', () => {
    const ts = loadToolsetFile(join(REPO_ROOT, 'examples/toolset.json'));
    expect(ts.runnables.map((r) => r.name)).toEqual(['service-status', 'cron']);
    expect(ts.groups).toEqual({ All: ['web-01', 'db-01'] });
  });

  it('reads an OpenAI tools array: types, required, enum as choices, minimum/maximum', () => {
    const ts = loadToolsetFile(join(REPO_ROOT, 'examples/openai-tools.json'));
    expect(ts.name).toBe('openai-tools');
    const weather = ts.runnables[0]!;
    expect(weather).toMatchObject({ name: 'get_weather', category: 'bash', autonomy: 'confirm', ownHostArg: false });
    expect(weather.args).toEqual([
      { name: 'city', type: 'string', required: true, description: 'City name' },
      { name: 'unit', type: 'string', required: false, choices: ['celsius', 'fahrenheit'] },
      { name: 'days', type: 'int', required: false, min: 1, max: 7 },
    ]);
    expect(ts.runnables[1]!.args[0]).toMatchObject({ name: 'to', type: 'array', schema: { type: 'array', items: { type: 'string' } } });
  });

  it('auto-detects an OpenAI tools file without a .json extension', () => {
    const file = write('tools.txt', JSON.stringify([{ type: 'function', function: { name: 'a', parameters: { type: 'object', properties: {} } } }]));
    expect(loadToolsetFile(file).runnables.map((r) => r.name)).toEqual(['a']);
  });
});

describe('errors name file:line and the field path', () => {
  const cases: { name: string; text: string; ext: string; want: RegExp }[] = [
    {
      name: 'unknown arg type',
      ext: 'toml',
      text: 'hosts = ["a"]\n\n[[runnable]]\nname = "x"\n\n[[runnable]]\nname = "y"\nargs.n = { type = "integr" }\n',
      want: /:8: runnable\[1\]\.args\.n\.type: expected one of string, int, float, bool, array, object \(got "integr"\)$/,
    },
    {
      name: 'unknown runnable key',
      ext: 'toml',
      text: '[[runnable]]\nname = "x"\nautonmy = "confirm"\n',
      want: /:3: runnable\[0\]\.autonmy: unknown field; did you mean "autonomy"\?/,
    },
    {
      name: 'bad autonomy in a nested subcommand',
      ext: 'toml',
      text: '[[runnable]]\nname = "git"\n[[runnable.subcommands]]\nname = "remote"\n[[runnable.subcommands.subcommands]]\nname = "add"\nautonomy = "sometimes"\n',
      want: /:7: runnable\[0\]\.subcommands\[0\]\.subcommands\[0\]\.autonomy: expected one of autonomous, confirm, manual/,
    },
    {
      name: 'group member that is not a host',
      ext: 'toml',
      text: 'hosts = ["web-01"]\n[groups]\nProd = ["web-01", "web-09"]\n[[runnable]]\nname = "x"\n',
      want: /:3: groups\.Prod\[1\]: unknown host "web-09"/,
    },
    {
      name: 'duplicate runnable',
      ext: 'toml',
      text: '[[runnable]]\nname = "x"\n[[runnable]]\nname = "x"\n',
      want: /:4: runnable\[1\]\.name: duplicate runnable "x"/,
    },
    {
      name: 'reserved separator in a name',
      ext: 'toml',
      text: '[[runnable]]\nname = "console__which"\n',
      want: /:2: runnable\[0\]\.name: "__" is reserved/,
    },
    {
      name: 'choice of the wrong type',
      ext: 'toml',
      text: '[[runnable]]\nname = "x"\nargs.n = { type = "int", choices = [1, "two"] }\n',
      want: /runnable\[0\]\.args\.n\.choices\[1\]: expected an integer \(got "two"\)/,
    },
    {
      name: 'TOML syntax',
      ext: 'toml',
      text: '[[runnable]]\nname = \n',
      want: /:2:\d+: TOML syntax error/,
    },
    {
      name: 'JSON field',
      ext: 'json',
      text: '{\n  "runnables": [\n    {\n      "name": "x",\n      "category": "shell"\n    }\n  ]\n}\n',
      want: /:5: runnables\[0\]\.category: expected one of read, list, web, edit, bash, mcp \(got "shell"\)/,
    },
    {
      name: 'no runnables',
      ext: 'toml',
      text: 'name = "empty"\n',
      want: /runnables: expected at least one \[\[runnable\]\] table/,
    },
  ];
  it.each(cases)('$name', ({ name, text, ext, want }) => {
    const file = write(`${name.replace(/\W+/g, '-')}.${ext}`, text);
    const err = errorOf(() => loadToolsetFile(file));
    expect(err.code).toBe('TOOLSET');
    expect(err.message.startsWith(file)).toBe(true);
    expect(err.message).toMatch(want);
    expect(err.message).not.toContain('\n');
    expect(err.hint).toBeTruthy();
  });

  it('reports a missing file as a ToolsetError', () => {
    expect(errorOf(() => loadToolsetFile(join(dir, 'missing.toml'))).message).toMatch(/missing\.toml: cannot read toolset file \(ENOENT\)/);
  });

  it('derives ownHostArg from a host arg inside a subcommand and honours an explicit flag', () => {
    const ts = parseToolsetText(
      '[[runnable]]\nname = "a"\n[[runnable.subcommands]]\nname = "s"\nargs.host = {}\n[[runnable]]\nname = "b"\nown_host_arg = true\n',
      'x.toml',
    );
    expect(ts.runnables.map((r) => r.ownHostArg)).toEqual([true, true]);
  });
});

describe('ToolsetFileSchema', () => {
  it('is the zod schema of the file format (JSON Schema for editors) and gates every file first', () => {
    const schema = z.toJSONSchema(ToolsetFileSchema, { unrepresentable: 'any' }) as { properties: Record<string, unknown>; additionalProperties: unknown };
    expect(Object.keys(schema.properties)).toEqual(['name', 'description', 'hosts', 'groups', 'runnable', 'runnables', 'mocks']);
    expect(schema.additionalProperties).toBe(false);
    // A keyed-args table with a wrong field: the zod issue, in our wording, with the exact path and line.
    expect(() => parseToolsetText('[[runnable]]\nname = "a"\n[runnable.args.n]\nrequired = "yes"\n', 't.toml')).toThrow(
      /^t\.toml:4: runnable\[0\]\.args\.n\.required: expected true or false \(got "yes"\)$/,
    );
  });
});
