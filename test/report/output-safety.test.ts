import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { buildResultsDocument, renderMarkdown, renderTable } from '../../src/report/index.js';
import { aggregateCase, scoreRun } from '../../src/scoring/index.js';
import { createResultsCollector, scoreMeta } from '../../src/app/score-traces.js';
import { makeCase, makeRun } from '../scoring/_build.js';
import { writtenLine } from '../helpers/verdict-lines.js';

// Case ids, model text and trace attributes are untrusted: in the terminal table and in Markdown no
// escape sequence may act, no newline may split a row, and `&` cannot start an entity.

const HOSTILE_ID = 'evil\u001b[2J\u001b]0;pwned\u0007\nsecond|row & <b>x</b>\u202egnp.exe';

function hostileDoc() {
  const c = makeCase({ id: HOSTILE_ID, suite: 'x', runspec: { tool: ['restart-service'] } });
  const run = makeRun({ calls: [{ name: 'wipe\u001b[31m\nall & more', arguments: {} }], terminal: true });
  const result = aggregateCase(c, [{ status: 'scored', sample: 0, verdict: scoreRun(c, run, {}), elapsedMs: 1, tokens: 0 }], { threshold: 1 });
  return buildResultsDocument({
    meta: { tool: 'runspec-eval', started: '2026-01-01T00:00:00Z' },
    iterations: [{ iteration: 0, timestamp: '2026-01-01T00:00:00Z', caseResults: [result] }],
  });
}

const inert = (out: string): void => {
  expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  expect(out).toContain('\\x1b[2J');
};

describe('output safety', () => {
  it('the terminal table shows escape sequences as text and keeps one row per case', () => {
    const out = renderTable(hostileDoc());
    inert(out);
    expect(out.split('\n').filter((l) => l.includes('evil'))).toHaveLength(1);
  });

  it('Markdown neutralises controls, keeps the row whole and escapes &', () => {
    const out = renderMarkdown(hostileDoc());
    inert(out);
    const rows = out.split('\n').filter((l) => l.startsWith('|') && l.includes('evil'));
    expect(rows).toHaveLength(1);
    // Outside code spans `&` is escaped (inside them it is literal and cannot start an entity).
    expect(rows[0]).toContain('got wipe\\\\x1b[31m all &amp; more |');
  });

  it('score reports (the results document with its inputs section) neutralise trace text too', () => {
    const line = writtenLine({
      traceId: 'abc',
      rootSpanId: 'r1',
      case: HOSTILE_ID,
      sample: 0,
      mode: 'decision',
      producers: [],
      category: 'wrong_tool',
      pass: false,
      reason: 'got \u001b[31mred\nline & more',
      calls: [{ name: 'x\u001b[0m', arguments: {}, executed: true }],
    });
    const summary = {
      traces: 2,
      verdicts: 1,
      passed: 0,
      failed: 1,
      unmatched: 0,
      byCategory: {},
      uninterpretable: 1,
      uninterpretableReasons: { 'bad \u001b[2J span': 1 },
      uninterpretableExamples: [{ traceId: 'def', reason: 'bad \u001b[2J span' }],
      inputProblems: 1,
      inputProblemExamples: [{ place: 'f.jsonl:1', reason: 'odd \u001b]0;title\u0007 & more' }],
      evictedTraces: 0,
      droppedSpans: 0,
      lateRecords: 0,
      reopenedTraces: 0,
      badFiles: [],
    };
    const collector = createResultsCollector([]);
    collector.addLine(line);
    const doc = collector.document(scoreMeta('2026-01-01T00:00:00Z', 'score', 1), 1, summary as never);
    for (const out of [renderTable(doc), renderMarkdown(doc)]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(out.split('\n').filter((l) => l.includes('abc'))).toHaveLength(1);
      expect(out).toContain('def');
    }
    expect(renderMarkdown(doc)).toContain('line &amp; more');
    expect(renderMarkdown(doc)).toMatch(/^- f\.jsonl:1: odd \S*x1b\]0;title\S*x07 &amp; more$/m);
  });
});

describe('output safety of the -v turn log', () => {
  it('shows escape sequences from the case id, the model text and tool output as text, one line per turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runspec-vlog-'));
    try {
      const file = 'greet\u001b]0;pwned\u0007.txt';
      writeFileSync(
        join(dir, 'c.json'),
        JSON.stringify({
          cases: [
            {
              id: 'evil\u001b[2J\nrow',
              user_prompt: 'x',
              setup: { files: { [file]: 'hi\u001b[31m\nthere\u202e' } },
              expected_actions: [{ tool: 'read_file' }],
              n_runs: 1,
            },
          ],
        }),
      );
      writeFileSync(
        join(dir, 's.json'),
        JSON.stringify({ default: [{ toolCalls: [{ name: 'read_file', arguments: { path: file } }] }, { text: 'done\u001b[2J\u001b]0;title\u0007\nnext' }] }),
      );
      let stderr = '';
      const code = await main({
        argv: ['run', 'c.json', '--provider', 'mock', '--script', 's.json', '--no-telemetry', '-v', '--out', 'r.json'],
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, TMPDIR: dir },
        stdout: new Writable({ write: (_c, _e, cb) => cb() }),
        stderr: new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) }),
      });
      expect(code).toBe(0);
      const turns = stderr.split('\n').filter((l) => l.includes(' turn '));
      expect(turns).toHaveLength(3);
      for (const l of turns) expect(l).toMatch(/^\[evil\\x1b\[2J row#0 turn \d\] /);
      expect(turns[1]).toContain('hi\\x1b[31m there\\u202e');
      expect(turns[2]).toContain('answer: done\\x1b[2J\\x1b]0;title\\x07 next');
      expect(turns.join('\n')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      // A provider message (here the mock's) in the per-case error line: one inert line too.
      writeFileSync(join(dir, 'e.json'), JSON.stringify({ default: [{ error: { message: 'down\u001b[2J\nsecond line' } }] }));
      stderr = '';
      const failed = await main({
        argv: ['run', 'c.json', '--provider', 'mock', '--script', 'e.json', '--no-telemetry', '--out', 'r2.json'],
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, TMPDIR: dir },
        stdout: new Writable({ write: (_c, _e, cb) => cb() }),
        stderr: new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) }),
      });
      expect(failed).toBe(3);
      expect(stderr).toContain('error: evil\\x1b[2J row: every sample failed: mock provider: down\\x1b[2J second line\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
