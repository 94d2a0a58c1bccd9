// Results document, file layout: each case entry on one line of its own (see resultsDocumentText).
import { randomUUID } from 'node:crypto';
import { runSteps } from '../core/event-loop-turns.js';
import type { ResultsDocument, ResultsMeta } from './results-schema.js';

/**
 * The results document as its file holds it: two-space JSON and a final newline, except that each case
 * entry sits on one line of its own (`"id": {...}`) and `meta.case_order` is one line. A 10,000-case
 * run's file is then about 2.4× smaller than fully indented JSON, `grep case-id` finds a case's whole
 * entry, and a run can write each entry's JSON as its results log holds it (see run-results.ts).
 */
export function resultsDocumentText(doc: ResultsDocument): string {
  const out: string[] = [];
  runSteps(
    writeResultsDocumentSteps(doc, (chunk) => out.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')), {
      *cases(i, line) {
        for (const [id, entry] of Object.entries(doc.iterations[i]?.cases ?? {})) {
          line(id, JSON.stringify(entry));
          yield;
        }
      },
      aggregate: (i) => doc.iterations[i]?.aggregate,
    }),
  );
  return out.join('');
}

const CASE_INDENT = ' '.repeat(8);
const CASES_INDENT = ' '.repeat(6);

/**
 * Write the document laid out as {@link resultsDocumentText} says, in pieces: everything but the cases
 * and aggregates comes from `doc` (its keys in its order); each iteration's case lines come from `parts.cases` (the entry's
 * JSON text as `JSON.stringify` gives it, or that text's UTF-8 bytes, handed to `write` as they are), then its aggregate from `parts.aggregate`, asked for only once
 * its cases are written (a streamed document folds the aggregate while writing them). A generator that
 * yields where `parts.cases` does (see core/event-loop-turns.ts), so a 100,000-case document is written
 * without holding up the event loop.
 */
export function* writeResultsDocumentSteps(
  doc: Readonly<Record<string, unknown>> & { meta: ResultsMeta; iterations: ReadonlyArray<Readonly<Record<string, unknown>>> },
  write: (chunk: string | Uint8Array) => void,
  parts: {
    cases: (iteration: number, line: (caseId: string, entryJson: string | Uint8Array) => void) => Generator<void, void>;
    aggregate: (iteration: number) => unknown;
  },
): Generator<void, void> {
  // Placeholders laid out by JSON.stringify itself, then replaced; a random token no value can hold.
  const mark = `@runspec-layout-${randomUUID()}-`;
  const meta: Record<string, unknown> = { ...doc.meta };
  if (meta.case_order !== undefined) meta.case_order = `${mark}order`;
  // Spreading keeps the iteration's key order; cases and aggregate go last when it has none yet.
  const iterations = doc.iterations.map((it, i) => ({ ...it, cases: `${mark}cases-${i}`, aggregate: `${mark}aggregate-${i}` }));
  const skeleton = JSON.stringify({ ...doc, meta, iterations }, null, 2);
  let at = 0;
  for (const m of skeleton.matchAll(new RegExp(`"${mark}(order|cases-\\d+|aggregate-\\d+)"`, 'g'))) {
    write(skeleton.slice(at, m.index));
    at = m.index + m[0].length;
    const what = m[1]!;
    if (what === 'order') {
      write(JSON.stringify(doc.meta.case_order));
    } else if (what.startsWith('cases-')) {
      let first = true;
      yield* parts.cases(Number(what.slice('cases-'.length)), (caseId, entryJson) => {
        const head = `${first ? '{\n' : ',\n'}${CASE_INDENT}${JSON.stringify(caseId)}: `;
        if (typeof entryJson === 'string') write(head + entryJson);
        else {
          write(head);
          write(entryJson);
        }
        first = false;
      });
      write(first ? '{}' : `\n${CASES_INDENT}}`);
    } else {
      write(JSON.stringify(parts.aggregate(Number(what.slice('aggregate-'.length))), null, 2).replace(/\n/g, `\n${CASES_INDENT}`));
    }
  }
  write(skeleton.slice(at));
  write('\n');
}
