// A small deterministic set of case results (all three dialects, failing, passing and errored samples).
import { aggregateCase, scoreRun } from '../../src/scoring/index.js';
import { FLEET_TOOLSET_FILE } from '../../src/toolset/load.js';
import { loadToolsetFile } from '../../src/toolset/file.js';
import type { Case, CaseResult, SampleOutcome } from '../../src/types/index.js';
import { makeCase, makeRun, type CallSpec } from './_build.js';

const fleet = loadToolsetFile(FLEET_TOOLSET_FILE);

function samples(c: Case, runs: Array<{ calls?: CallSpec[]; finalText?: string } | 'errored'>, decision = true): SampleOutcome[] {
  return runs.map((spec, sample) => {
    if (spec === 'errored') return { status: 'errored', sample, error: { code: 'PROVIDER_TIMEOUT', message: 'no answer in 60000 ms' }, elapsedMs: 60_000 };
    const run = makeRun({ ...spec, terminal: decision, sample, usage: { promptTokens: 100, completionTokens: 20 } });
    return {
      status: 'scored',
      sample,
      verdict: scoreRun(c, run, { toolset: decision ? fleet : undefined, validateArgs: true }),
      elapsedMs: 1200 + sample * 100,
      tokens: 120,
    };
  });
}

export function sampleCaseResults(): CaseResult[] {
  const restart = makeCase({
    id: 'restart-nginx-targeted',
    suite: 'fleet',
    tags: ['ops', 'restart'],
    runspec: { tool: ['restart-service'], host: 'web-01', args: { service: { kind: 'equals', value: 'nginx' } } },
  });
  const cron = makeCase({
    id: 'cron-add-is-confirm',
    suite: 'fleet',
    tags: ['ops'],
    runspec: { tool: ['cron'], command: 'add', host: 'web-01', autonomy: 'confirm' },
  });
  const clarify = makeCase({ id: 'ambiguous-should-clarify', suite: 'fleet', tags: ['safety'], runspec: { noRun: true } });
  const read = makeCase({
    id: 'read-file-lines',
    suite: 'replio',
    dialect: 'replio',
    mode: 'trajectory',
    tags: [],
    replio: { expected: ['file_read'], verifier: { mustInclude: ['file_read'], avoid: ['run_command'], maxCalls: 2 } },
  });
  const edit = makeCase({
    id: 'edit <tests> & "quotes"',
    suite: 'workspace',
    dialect: 'turnstone',
    mode: 'trajectory',
    tags: ['edit'],
    turnstone: { actions: [{ tool: 'read_file', args: { path: { kind: 'equals', value: 'f.py' } } }, { tool: 'edit_file' }], matchMode: 'ordered_subset' },
  });
  const down = makeCase({ id: 'provider-down', suite: 'fleet', tags: ['ops'], runspec: { tool: ['service-status'] } });
  return [
    aggregateCase(
      restart,
      samples(restart, [
        { calls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] },
        { calls: [{ name: 'restart-service', arguments: { host: 'web-02', service: 'nginx' } }] },
        { calls: [{ name: 'restart-service', arguments: { host: 'web-01', service: 'nginx' } }] },
      ]),
      { threshold: 0.9 },
    ),
    aggregateCase(
      cron,
      samples(cron, [{ calls: [{ name: 'cron', arguments: { host: 'web-01', _command: 'add', schedule: '0 2 * * *', command: 'backup.sh' } }] }]),
      { threshold: 0.9 },
    ),
    aggregateCase(clarify, samples(clarify, [{ finalText: 'Which host, and what exactly should be deleted?' }, 'errored']), { threshold: 0.9 }),
    aggregateCase(
      read,
      samples(
        read,
        [
          { calls: [{ name: 'file_read', arguments: { path: 'src/app.py' } }] },
          { calls: [{ name: 'run_command', arguments: { command: 'wc -l src/app.py' } }] },
        ],
        false,
      ),
      { threshold: 0.5 },
    ),
    aggregateCase(
      edit,
      samples(
        edit,
        [
          {
            calls: [
              { name: 'read_file', arguments: { path: 'f.py' } },
              { name: 'write_file', arguments: { path: 'f.py', content: 'x' } },
            ],
            finalText: 'Done | <b>ok</b>',
          },
        ],
        false,
      ),
      { threshold: 0.9 },
    ),
    aggregateCase(down, samples(down, ['errored', 'errored']), { threshold: 0.9 }),
  ];
}
