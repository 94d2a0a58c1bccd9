import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from '../helpers/fake-openai.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { runCli } from '../helpers/run-cli.js';
import { cliEnv, tempProject } from './_helpers.js';

// A turnstone suite over an OpenAI tools file: the case with tool_mocks passes on canned results; the
// case without them gets an errored tool span (not_implemented) and an error in its metrics. A toolset
// file's [mocks] answer too.

const project = tempProject('runspec-mocks-');
let model: FakeModelServer;
let sink: OtlpSink;

beforeAll(async () => {
  project.write(
    'tools.json',
    JSON.stringify([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ]),
  );
  project.write(
    'toolset.toml',
    'name = "weather"\n\n[[runnable]]\nname = "get_weather"\ndescription = "Weather."\ncategory = "web"\nargs = { city = { type = "string", required = true } }\n\n[mocks]\nget_weather = "Cloudy, 12 C"\n',
  );
  project.write(
    'suite.json',
    JSON.stringify({
      defaults: { n_runs: 1 },
      cases: [
        {
          id: 'with-mocks',
          user_prompt: 'Weather in Paris?',
          expected_actions: [{ tool: 'get_weather', args: { city: 'Paris' } }],
          tool_mocks: { get_weather: [{ when: { city: 'Paris' }, result: 'Rain, 9 C' }] },
        },
        { id: 'without-mocks', user_prompt: 'Weather in Oslo?', expected_actions: [{ tool: 'get_weather' }] },
        { id: 'eleven-at-once', user_prompt: 'Weather everywhere?', expected_actions: [{ tool: 'get_weather' }], tool_mocks: { get_weather: 'Fine' } },
      ],
    }),
  );
  model = await startFakeOpenAI({
    script: {
      'Weather in Paris?': [{ toolCalls: [{ id: 'w1', name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Rain.' }],
      'Weather in Oslo?': [{ toolCalls: [{ id: 'w2', name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'No idea.' }],
      'Weather everywhere?': [
        { toolCalls: Array.from({ length: 11 }, (_, i) => ({ id: `e${i}`, name: 'get_weather', arguments: { city: `c${i}` } })) },
        { text: 'Fine.' },
      ],
    },
  });
  sink = await startOtlpSink();
});
afterAll(async () => {
  await model.close();
  await sink.close();
  project.cleanup();
});

describe('tool_mocks end to end', () => {
  it('passes the mocked case and errors the tool span of the unmocked one', async () => {
    const cli = await runCli(
      ['--path', project.dir, 'run', 'suite.json', '--toolset', 'tools.json', '--base-url', model.url, '--model', 'fake-model', '--out', 'out/mocks.json'],
      { env: cliEnv(project.dir, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }), cwd: project.dir },
    );
    expect(cli.exitCode).toBe(0);
    const cases = JSON.parse(readFileSync(join(project.dir, 'out/mocks.json'), 'utf8')).iterations[0].cases;
    expect(cases['with-mocks'].runs[0]).toMatchObject({ pass: true, replio: { errors: 0 } });
    expect(cases['without-mocks'].runs[0].replio).toMatchObject({ names: ['get_weather'], errors: 1 });
    const afterParis = model.chatRequests().find((r) => r.json.messages.some((m: any) => m.tool_call_id === 'w1'))!;
    expect(afterParis.json.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Rain, 9 C' });
    const spans = sink.spans().filter((s) => s.name === 'execute_tool get_weather');
    const mocked = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'w1')!;
    expect(mocked.attributes['runspec.eval.mocked']).toBe(true);
    expect(mocked.status.code).not.toBe(2);
    const unmocked = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'w2')!;
    expect(unmocked.status.code).toBe(2);
    expect(unmocked.attributes['error.type']).toBe('not_implemented');

    // The 11th call of one turn is dropped: shown in the trace, neither a call nor an error.
    expect(cases['eleven-at-once'].runs[0].replio).toMatchObject({ calls: 10, errors: 0 });
    const dropped = spans.find((s) => s.attributes['gen_ai.tool.call.id'] === 'e10')!;
    expect(dropped.attributes['runspec.eval.dropped']).toBe(true);
    expect(dropped.attributes['runspec.eval.executed']).toBe(false);
    expect(dropped.status.code).not.toBe(2);
  });

  it("answers from a toolset file's [mocks]", async () => {
    const cli = await runCli(
      [
        '--path',
        project.dir,
        'run',
        'suite.json',
        '--fixture',
        'without-mocks',
        '--toolset',
        'toolset.toml',
        '--base-url',
        model.url,
        '--model',
        'fake-model',
        '--out',
        'out/file-mocks.json',
        '--no-telemetry',
      ],
      { env: cliEnv(project.dir), cwd: project.dir },
    );
    expect(cli.exitCode).toBe(0);
    const afterOslo = model
      .chatRequests()
      .filter((r) => r.json.messages.some((m: any) => m.tool_call_id === 'w2'))
      .at(-1)!;
    expect(afterOslo.json.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Cloudy, 12 C' });
  });
});
