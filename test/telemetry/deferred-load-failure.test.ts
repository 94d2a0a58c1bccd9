// `run`'s deferred telemetry when the SDK side cannot load: one warning, the cases go on without traces,
// and shutdown returns (no warning per case, no failed run).
import { describe, expect, it, vi } from 'vitest';
import { deferTelemetry } from '../../src/telemetry/deferred.js';
import { DECISION_CASE, DECISION_RESULT, decisionRun, decisionVerdict, otlpConfig } from './_fixtures.js';

vi.mock('../../src/telemetry/telemetry.js', () => ({
  openTelemetry: () => Promise.reject(new Error('cannot load the exporter')),
}));

describe('deferTelemetry, load failure', () => {
  it('warns once, renders nothing and shuts down cleanly', async () => {
    const warnings: string[] = [];
    const deferred = deferTelemetry(otlpConfig('http://127.0.0.1:9'), { onWarning: (m) => warnings.push(m) })!;
    const emits = [0, 1, 2].map((n) =>
      deferred.emitCase({
        case: DECISION_CASE,
        run: { ...decisionRun('dedup'), sample: n },
        verdict: decisionVerdict('dedup'),
        result: DECISION_RESULT,
        runId: 'r',
      }),
    );
    expect(await Promise.all(emits)).toEqual([undefined, undefined, undefined]);
    await expect(deferred.shutdown()).resolves.toBeUndefined();
    expect(warnings).toEqual(['disabled: cannot load the exporter']);
  });
});
