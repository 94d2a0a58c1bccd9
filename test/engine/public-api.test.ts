import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMockProvider, loadFixtureFile, resolveProvider, runCase, scoreRun } from '../../src/index.js';
import { toolLog } from '../../src/engine/index.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

describe('public API: engine + providers', () => {
  it('runs a bundled replio case keyless with the example mock script', async () => {
    const c = loadFixtureFile(join(REPO_ROOT, 'fixtures/replio/read-file-lines.json'))[0]!.cases[0]!;
    const provider = createMockProvider({ file: join(REPO_ROOT, 'examples/mock-script.json') });
    const run = await runCase({ case: c, sample: 0, provider });
    expect(run).toMatchObject({ caseId: 'read-file-lines', status: 'ok', provider: 'mock', model: 'mock-model', finalText: 'src/app.py has 4 lines.' });
    expect(toolLog(run)).toEqual([{ tool: 'file_read', args: { path: 'src/app.py' }, result: expect.stringContaining('import sys'), turn: 0 }]);
    expect(run.usage.totalTokens).toBeGreaterThan(0);
    expect(scoreRun(c, run).replio?.pass).toBe(true);
  });

  it('turns a scripted provider outage into status error, not an exception', async () => {
    const c = { ...loadFixtureFile(join(REPO_ROOT, 'fixtures/replio/read-file-lines.json'))[0]!.cases[0]!, id: 'provider-outage' };
    const provider = resolveProvider('mock:examples/mock-script.json', { config: {}, env: {}, flags: {}, projectDir: REPO_ROOT });
    const run = await runCase({ case: c, sample: 0, provider });
    expect(run.status).toBe('error');
    expect(run.error).toEqual({ code: 'PROVIDER', message: 'mock provider: simulated outage' });
  });
});
