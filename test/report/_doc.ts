// The deterministic document the report tests render, and the blanking of volatile fields.
import { buildResultsDocument, type ResultsDocument } from '../../src/report/index.js';
import { sampleCaseResults } from '../scoring/_results.js';

export function sampleDocument(when: Date = new Date()): ResultsDocument {
  return buildResultsDocument({
    meta: {
      started: when.toISOString(),
      tool: 'runspec-eval',
      model: 'gpt-test',
      provider: 'openai',
      base_url: 'http://127.0.0.1:4010/v1',
      test_suite: 'fleet',
      threshold: 0.9,
    },
    iterations: [{ iteration: 0, timestamp: when.toISOString(), caseResults: sampleCaseResults() }],
  });
}

/** Blank time and durations (they change every run) before comparing with a golden file. */
export function blankVolatile(doc: ResultsDocument): ResultsDocument {
  const copy = structuredClone(doc);
  copy.meta.started = '<started>';
  if (copy.meta.finished !== undefined) copy.meta.finished = '<finished>';
  for (const it of copy.iterations) {
    it.timestamp = '<timestamp>';
    for (const entry of Object.values(it.cases)) {
      for (const run of entry.runs) {
        run.elapsed = 0;
        run.elapsed_ms = 0;
      }
    }
  }
  return copy;
}
