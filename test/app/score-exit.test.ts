// --fail-on-unscorable used to exit 0 when traces could not be interpreted at all (no verdict line): an
// unreadable trace is no more a pass than an unscorable verdict.
import { describe, expect, it } from 'vitest';
import { scoreExitCode } from '../../src/app/score-traces.js';
import { createSummaryCollector } from '../../src/traces/score-traces.js';

describe('score exit code', () => {
  it('counts uninterpretable traces for --fail-on-unscorable, and only then', () => {
    const c = createSummaryCollector();
    c.addOutcome({ kind: 'uninterpretable', traceId: 't', reason: 'no LLM or tool spans (not a GenAI agent trace)', revision: 0, final: true });
    expect(scoreExitCode(c.summary(), { failOnUnscorable: true })).toBe(1);
    expect(scoreExitCode(c.summary())).toBe(0);
  });

  it('ignores a provisional judgement: only final ones are counted', () => {
    const c = createSummaryCollector();
    c.addOutcome({ kind: 'uninterpretable', traceId: 't', reason: 'no spans', revision: 0, final: false });
    expect(c.summary()).toMatchObject({ traces: 0, uninterpretable: 0 });
    expect(scoreExitCode(c.summary(), { failOnUnscorable: true })).toBe(0);
  });
});
