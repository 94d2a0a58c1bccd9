import { expect, it } from 'vitest';
import { describeEvals, runEval } from 'runspec-eval/vitest';
const options = { provider: 'mock', script: 'mock.json', telemetry: false };
describeEvals('evals/fleet.toml', options);
describeEvals(
  {
    name: 'inline',
    eval: [{ id: 'inline-ok', prompt: 'restart redis on db-01', expect_tool: 'restart-service', expect_args: { service: { $regex: '^red' } } }],
  },
  options,
);
it('matchers read the verdict', async () => {
  const r = await runEval('evals/fleet.toml', 'status-api', options);
  expect(r).toCallTool('restart-service', { service: 'api' });
  expect(r).not.toCallTool('service-status');
  expect(r).toHaveVerdict('wrong_tool');
  expect(r).toCallToolsInOrder(['restart-service']);
});
