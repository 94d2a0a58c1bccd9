// The batch span processor's settings: ours unless the user set OTEL_BSP_* (read into config.batch), whose
// values win. Used to be: our explicit settings silently overrode the user's OTEL_BSP_* variables.
import { afterEach, describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config/env.js';
import { resolveTelemetryConfig } from '../../src/config/telemetry.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict } from './_fixtures.js';

let sink: OtlpSink | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

/** Export two samples' traces (three spans each) and count the POSTs the sink received. */
async function postsWith(env: Record<string, string>): Promise<number> {
  sink = await startOtlpSink();
  const cfg = resolveTelemetryConfig({
    flags: { telemetry: true },
    env: readEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${sink.url}/v1/traces`, ...env }),
    projectDir: '/work/project',
  });
  const warnings: string[] = [];
  const telemetry = createTelemetry(cfg, { onWarning: (m) => warnings.push(m) });
  const verdict = decisionVerdict('dedup');
  for (const sample of [0, 1])
    telemetry.emitCase({ case: DECISION_CASE, run: { ...decisionRun('dedup'), sample }, verdict: { ...verdict, sample }, result: DECISION_RESULT, runId: 'r' });
  await telemetry.shutdown();
  expect(warnings).toEqual([]);
  return sink.requests.filter((r) => r.path.startsWith('/v1/traces')).length;
}

describe('batch span processor settings', () => {
  it('sends one batch by default, and batches of OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans when the user sets it', async () => {
    const spans = 2 * (1 + decisionRun('dedup').modelCalls.length + decisionRun('dedup').toolCalls.length);
    expect(await postsWith({})).toBe(1);
    await sink?.close();
    expect(await postsWith({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1' })).toBe(spans);
  });
});
