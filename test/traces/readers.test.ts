import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readTracePaths, readTraceStream } from '../../src/traces/readers.js';
import type { TraceInputItem } from '../../src/traces/readers.js';
import { encodeLogsRequest, encodeTraceRequest } from '../../src/traces/otlp-proto.js';
import { MAX_ATTRIBUTE_CHARS } from '../../src/traces/spans.js';
import { logRecord, logsRequest, request, span, spanId, traceId } from './_otlp.js';

async function collect(it: AsyncIterable<TraceInputItem>): Promise<TraceInputItem[]> {
  const out: TraceInputItem[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function* chunks(buf: Buffer, size = 7): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

const spansOf = (items: TraceInputItem[]) => items.flatMap((i) => (i.kind === 'spans' ? i.spans : []));
const problemsOf = (items: TraceInputItem[]) => items.flatMap((i) => (i.kind === 'problem' ? [i.problem] : []));

const req1 = request([span({ trace: 1, id: 1, name: 'a', start: 0 }), span({ trace: 1, id: 2, parent: 1, name: 'b', start: 1 })]);
const req2 = request([span({ trace: 2, id: 3, name: 'c', start: 0 })]);

function frame(buf: Uint8Array): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(buf.length);
  return Buffer.concat([len, buf]);
}

describe('readTraceStream', () => {
  it('reads JSON lines (one request per line) across arbitrary chunk boundaries', async () => {
    const text = `${JSON.stringify(req1)}\n${JSON.stringify(req2)}\n`;
    const items = await collect(readTraceStream(chunks(Buffer.from(text), 5), { name: 'f.jsonl' }));
    expect(spansOf(items).map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(problemsOf(items)).toEqual([]);
  });

  it('decodes JSON lines cut inside multi-byte characters, with a BOM, CRLF endings and no final newline', async () => {
    const named = (name: string, trace: number) => request([span({ trace, id: 1, name, start: 0 })]);
    const text = `\uFEFF${JSON.stringify(named('café ☕ 𝄞', 1))}\r\n\r\n${JSON.stringify(named('naïve — ok', 2))}\n${JSON.stringify(named('日本語', 3))}`;
    // Every chunk size from 1 to 9 bytes splits some 2-, 3- and 4-byte UTF-8 sequences.
    for (let size = 1; size <= 9; size++) {
      const items = await collect(readTraceStream(chunks(Buffer.from(text), size), { name: 'u.jsonl' }));
      expect(spansOf(items).map((s) => s.name)).toEqual(['café ☕ 𝄞', 'naïve — ok', '日本語']);
      expect(problemsOf(items)).toEqual([]);
    }
  });

  it('reads pretty-printed whole documents, several in one file, and a top-level array', async () => {
    const text = `${JSON.stringify(req1, null, 2)}\n${JSON.stringify([req2], null, 2)}`;
    const items = await collect(readTraceStream(chunks(Buffer.from(text), 13), { name: 'doc.json' }));
    expect(spansOf(items).map((s) => s.name)).toEqual(['a', 'b', 'c']);
  });

  it('counts a truncated line with its line number and keeps reading', async () => {
    const text = `${JSON.stringify(req1)}\n${JSON.stringify(req2).slice(0, 40)}\n${JSON.stringify(req2)}\n`;
    const items = await collect(readTraceStream(chunks(Buffer.from(text)), { name: 'f.jsonl' }));
    expect(spansOf(items).map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(problemsOf(items)).toEqual([{ place: 'f.jsonl:2', reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  it('stays in JSON-lines mode when the first line is the truncated one', async () => {
    const text = `${JSON.stringify(req1).slice(0, 70)}\n${JSON.stringify(req2)}\n`;
    const items = await collect(readTraceStream(chunks(Buffer.from(text)), { name: 'f.jsonl' }));
    expect(spansOf(items).map((s) => s.name)).toEqual(['c']);
    expect(problemsOf(items)).toEqual([{ place: 'f.jsonl:1', reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  it('reads the file exporter proto format (4-byte big-endian length prefix) and reports a truncated frame', async () => {
    const buf = Buffer.concat([frame(encodeTraceRequest(req1)), frame(encodeTraceRequest(req2)), frame(encodeTraceRequest(req2)).subarray(0, 9)]);
    const items = await collect(readTraceStream(chunks(buf, 11), { name: 'f.binpb' }));
    expect(spansOf(items).map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(problemsOf(items)).toEqual([{ place: 'f.binpb#2', reason: expect.stringMatching(/truncated frame/) }]);
  });

  // The Collector file exporter with `compression: zstd` (json+zstd, proto+zstd). These frames were made
  // with the zstd 1.5 command-line tool; Node 20 has no zstd in zlib, so a pure-JS decoder (fzstd) reads them.
  const ZSTD_JSON = Buffer.from(
    'KLUv/WRpABUGAAKLIyFATdsGoIzx5QZsWSIhhnRDIb/eu1kD7Uz2ifUKGcMwDAhPPfXUQ0zzR50nBMehJAp6ulM0eGiakExD6MXmH5TOtCl+zpojANRxQwDjluEcLUeQAXw6K8iF22/Oflq4xT9PvffWTOAVEtq2uXFAxs+TQRXI1Rib/HSIVGQ3S9tufCN9IZ0VFwe5tnGc+0YUACATW8PysCTiPBgsWIZ3gLynRNBqGDiWRRVQGlbEgRgMoIFliEsmmqBqo0/81TbDKr/bLg==',
    'base64',
  );
  const ZSTD_PROTO = Buffer.from(
    'KLUv/SRqDQMAhAUKaAoZChcKDHNlcnZpY2UubmFtZRIHCgVhZ2VudBJLCgYKBHRlc3QSQQoQoAA0EgiwAAEqD2Zyb20tcHJvdG8renN0ZDABOQAA+u1RcoYYQUBCCe5RcoYYAgBA0D1AGTMYknk=',
    'base64',
  );

  it('reads zstd-compressed frames (json+zstd and proto+zstd) on every supported Node, and reports a corrupt one', async () => {
    const corrupt = frame(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 1, 2, 3]));
    const buf = Buffer.concat([frame(Buffer.from(JSON.stringify(req2))), frame(ZSTD_JSON), frame(ZSTD_PROTO), corrupt]);
    const items = await collect(readTraceStream(chunks(buf), { name: 'zstd.json' }));
    expect(spansOf(items).map((s) => s.name)).toEqual(['c', 'from-json+zstd', 'from-proto+zstd']);
    expect(problemsOf(items)).toEqual([{ place: 'zstd.json#3', reason: expect.stringMatching(/corrupt zstd frame/) }]);
  });

  it('stops inflating a zstd bomb at the record limit', async () => {
    // 8 MiB of zeros in 270 bytes (zstd -19).
    const bomb = Buffer.from(
      'KLUv/QRoTAAACAABAPz/ORACAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAACABAAAgAQAAIAEAADABAAD9/2YQ==',
      'base64',
    );
    const items = await collect(readTraceStream(chunks(frame(bomb)), { name: 'bomb.binpb', maxRecordBytes: 1024 * 1024 }));
    expect(problemsOf(items)).toEqual([{ place: 'bomb.binpb#0', reason: 'zstd frame abandoned: decompressed size over 1048576 bytes' }]);
  });

  it('detects gzip by magic bytes (JSON lines and protobuf inside)', async () => {
    const json = gzipSync(`${JSON.stringify(req1)}\n`);
    const proto = gzipSync(frame(encodeTraceRequest(req2)));
    expect(spansOf(await collect(readTraceStream(chunks(json), { name: 'x' }))).map((s) => s.name)).toEqual(['a', 'b']);
    expect(spansOf(await collect(readTraceStream(chunks(proto), { name: 'y' }))).map((s) => s.name)).toEqual(['c']);
  });

  it('abandons a gzip bomb with a problem instead of inflating it', async () => {
    const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(200_000);
    const items = await collect(readTraceStream(chunks(bomb, 65536), { name: 'bomb.gz', maxInflatedBytes: 4 * 1024 * 1024 }));
    expect(problemsOf(items)).toEqual([{ place: 'bomb.gz', reason: expect.stringMatching(/gzip input abandoned: decompressed size over/) }]);
  });

  it('tolerates non-conforming writers: int64 as numbers, SPAN_KIND_* strings, instrumentationLibrarySpans', async () => {
    const doc = {
      resourceSpans: [
        {
          instrumentationLibrarySpans: [
            {
              instrumentationLibrary: { name: 'old' },
              spans: [
                {
                  traceId: traceId(5).toUpperCase(),
                  spanId: spanId(5),
                  name: 'legacy',
                  kind: 'SPAN_KIND_CLIENT',
                  startTimeUnixNano: 1767225600000000000,
                  endTimeUnixNano: '1767225600500000000',
                  attributes: [
                    { key: 'n', value: { intValue: 7 } },
                    { key: 'm', value: { kvlistValue: { values: [{ key: 'k', value: { arrayValue: { values: [{ stringValue: 'v' }] } } }] } } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const [s] = spansOf(await collect(readTraceStream(chunks(Buffer.from(JSON.stringify(doc))), { name: 'old.json' })));
    expect(s).toMatchObject({ traceId: traceId(5), kind: 3, scopeName: 'old', attributes: { n: 7, m: { k: ['v'] } } });
    expect(s!.endTimeMs! - s!.startTimeMs).toBeCloseTo(500, 6);
  });

  it('reports spans with missing or wrong-typed ids and keeps the good ones', async () => {
    const bad = request([span({ trace: 6, id: 6, name: 'good', start: 0 })]);
    bad.resourceSpans![0]!.scopeSpans![0]!.spans!.push({ name: 'no-ids' }, { traceId: 42 as unknown as string, spanId: spanId(1), name: 'number-id' });
    const items = await collect(readTraceStream(chunks(Buffer.from(JSON.stringify(bad))), { name: 'b.json' }));
    expect(spansOf(items).map((s) => s.name)).toEqual(['good']);
    expect(problemsOf(items).map((p) => p.reason)).toEqual([expect.stringMatching(/no-ids.*traceId/), expect.stringMatching(/number-id.*traceId/)]);
  });

  it('cuts an enormous attribute value instead of keeping all of it', async () => {
    const huge = request([span({ trace: 7, id: 7, name: 'big', start: 0, attrs: { blob: 'x'.repeat(MAX_ATTRIBUTE_CHARS + 5000) } })]);
    const [s] = spansOf(await collect(readTraceStream(chunks(Buffer.from(JSON.stringify(huge)), 1 << 16), { name: 'big.json' })));
    expect((s!.attributes.blob as string).length).toBe(MAX_ATTRIBUTE_CHARS);
  });

  it('skips a line over the record limit without buffering it', async () => {
    const text = `${JSON.stringify(req1)}\n${'{"resourceSpans":[' + ' '.repeat(5000)}\n${JSON.stringify(req2)}\n`;
    const items = await collect(readTraceStream(chunks(Buffer.from(text), 512), { name: 'l.jsonl', maxRecordBytes: 1000 }));
    expect(spansOf(items).map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(problemsOf(items)).toEqual([{ place: 'l.jsonl:2', reason: expect.stringMatching(/line over 1000 bytes/) }]);
  });

  it('reads OTLP logs in JSON and protobuf, with or without a file-name hint', async () => {
    const logs = logsRequest([logRecord({ trace: 8, span: 8, eventName: 'gen_ai.choice', body: { index: 0 } })]);
    for (const [name, buf] of [
      ['logs.json', Buffer.from(JSON.stringify(logs))],
      ['export.binpb', frame(encodeLogsRequest(logs))],
      ['logs.binpb', frame(encodeLogsRequest(logs))],
    ] as const) {
      const items = await collect(readTraceStream(chunks(buf), { name }));
      const recs = items.flatMap((i) => (i.kind === 'logs' ? i.logs : []));
      expect(recs).toEqual([expect.objectContaining({ traceId: traceId(8), spanId: spanId(8), eventName: 'gen_ai.choice', body: { index: 0 } })]);
    }
  });
});

describe('readTracePaths', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'runspec-readers-'));
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    writeFileSync(join(dir, 'a', 'one.jsonl'), JSON.stringify(req1) + '\n');
    writeFileSync(join(dir, 'a', 'b', 'two.json.gz'), gzipSync(JSON.stringify(req2)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads directories recursively in sorted order, and - from stdin', async () => {
    async function* stdin(): AsyncGenerator<Uint8Array> {
      yield Buffer.from(JSON.stringify(request([span({ trace: 9, id: 9, name: 'from-stdin', start: 0 })])));
    }
    const items: TraceInputItem[] = [];
    for await (const x of readTracePaths([dir, '-'], { cwd: dir, stdin: stdin() })) items.push(x);
    expect(spansOf(items).map((s) => s.name)).toEqual(['c', 'a', 'b', 'from-stdin']);
  });

  it('throws a TraceError naming a missing path', async () => {
    const gen = readTracePaths(['nope.jsonl'], { cwd: dir });
    await expect(gen.next()).rejects.toThrow(/nope\.jsonl: no such file or directory/);
  });
});

describe('spans saved from Phoenix REST', () => {
  it('reads GET /v1/projects/{p}/spans JSON (flat dotted attributes, span_kind) into spans the normaliser understands', async () => {
    const doc = {
      data: [
        {
          name: 'agent',
          context: { trace_id: traceId(40), span_id: spanId(1) },
          parent_id: null,
          span_kind: 'AGENT',
          start_time: '2026-01-01T00:00:00.000Z',
          end_time: '2026-01-01T00:00:02.000Z',
          status_code: 'OK',
          attributes: { 'input.value': 'read it' },
          events: [],
        },
        {
          name: 'llm',
          context: { trace_id: traceId(40), span_id: spanId(2) },
          parent_id: spanId(1),
          span_kind: 'LLM',
          start_time: '2026-01-01T00:00:00.100Z',
          end_time: '2026-01-01T00:00:01.000Z',
          status_code: 'OK',
          attributes: {
            'llm.output_messages.0.message.role': 'assistant',
            'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'p1',
            'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'file_read',
            'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"path":"a"}',
          },
          events: [],
        },
      ],
      next_cursor: null,
    };
    const items = await collect(readTraceStream(chunks(Buffer.from(JSON.stringify(doc))), { name: 'phoenix.json' }));
    const spans = spansOf(items);
    expect(spans.map((s) => [s.name, s.parentSpanId ?? null, s.attributes['openinference.span.kind']])).toEqual([
      ['agent', null, 'AGENT'],
      ['llm', spanId(1), 'LLM'],
    ]);
    const { normaliseTrace } = await import('../../src/traces/normalise.js');
    const r = normaliseTrace({ traceId: traceId(40), spans, logs: [], evicted: false });
    expect(r.ok && r.run.toolCalls.map((t) => [t.call.id, t.call.name, t.call.arguments])).toEqual([['p1', 'file_read', { path: 'a' }]]);
  });

  it('reads the snake_case otlpv1 flavour', async () => {
    const doc = {
      data: [
        {
          trace_id: traceId(41),
          span_id: spanId(1),
          name: 'execute_tool grep',
          start_time_unix_nano: '1767225600000000000',
          end_time_unix_nano: '1767225600100000000',
          attributes: [{ key: 'gen_ai.tool.name', value: { string_value: 'grep' } }],
        },
      ],
    };
    const [s] = spansOf(await collect(readTraceStream(chunks(Buffer.from(JSON.stringify(doc))), { name: 'otlpv1.json' })));
    expect(s).toMatchObject({ traceId: traceId(41), name: 'execute_tool grep', attributes: { 'gen_ai.tool.name': 'grep' } });
    expect(s!.endTimeMs! - s!.startTimeMs).toBeCloseTo(100, 6);
  });
});
