// Streaming OTLP readers: JSON documents, JSON lines (the Collector file exporter's `json` format),
// 4-byte big-endian length-prefixed protobuf (its `proto` format), gzip by magic bytes, directories
// recursively, and stdin. Memory is bounded by one record (line, document or frame), not by file size.
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as zlib from 'node:zlib';
import { createGunzip } from 'node:zlib';
import { PassThrough, Readable } from 'node:stream';
import { ATTR_EVENT_NAME } from '../semconv/gen-ai.js';
import { TraceError } from '../errors.js';
import { logsFromRequest, spansFromRequest } from './spans.js';
import { spansFromPhoenix } from './phoenix-spans.js';
import type { InputProblem, LogRecordEntry, SpanRecord } from './spans.js';

// The protobuf decoder (protobufjs under it) and the pure-JS zstd inflater load when a length-prefixed input is
// met: JSON inputs never need them.
type ProtoDecoders = Pick<typeof import('./otlp-proto.js'), 'decodeTraceRequest' | 'decodeLogsRequest'> & {
  ZstdStream: typeof import('fzstd').Decompress;
};

/** One thing read from the input, in order. */
export type TraceInputItem = { kind: 'spans'; spans: SpanRecord[] } | { kind: 'logs'; logs: LogRecordEntry[] } | { kind: 'problem'; problem: InputProblem };

export interface ReaderOptions {
  /**
   * Largest single record (JSON line, JSON document, protobuf frame) kept in memory.
   * @default 268435456 (256 MiB)
   */
  maxRecordBytes?: number;
  /**
   * Largest decompressed size of one gzip input; beyond it (or beyond a 1:200 compression ratio past
   * 16 MiB) the input is treated as a decompression bomb and abandoned with a problem.
   * @default 4294967296 (4 GiB)
   */
  maxInflatedBytes?: number;
}

const DEFAULT_MAX_RECORD_BYTES = 256 * 1024 * 1024;
const DEFAULT_MAX_INFLATED_BYTES = 4 * 1024 * 1024 * 1024;
const BOMB_RATIO = 200;
const BOMB_RATIO_AFTER_BYTES = 16 * 1024 * 1024;

/** Thrown inside the decompressor when the inflated size crosses a limit. */
export class InflateLimitError extends Error {}

/**
 * Expand files and directories (recursively, sorted) into the list of files to read. `-` stays `-` (stdin).
 * @throws TraceError (TRACE_INPUT) when a path does not exist.
 */
export async function listTraceFiles(paths: string[], cwd: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > 64) return;
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p, depth + 1);
      else if (e.isFile()) out.push(p);
    }
  };
  for (const p of paths) {
    if (p === '-') {
      out.push('-');
      continue;
    }
    const abs = resolve(cwd, p);
    let st;
    try {
      st = await stat(abs);
    } catch {
      throw new TraceError('TRACE_INPUT', `${p}: no such file or directory`, {
        hint: 'pass OTLP JSON / JSON lines / protobuf files, directories, or - for stdin',
      });
    }
    if (st.isDirectory()) await walk(abs, 0);
    else out.push(abs);
  }
  return out;
}

/**
 * Inflate gzip while counting: aborts with InflateLimitError past `maxInflatedBytes`, or when the ratio of
 * inflated to compressed bytes says "bomb".
 */
export async function* gunzipLimited(source: AsyncIterable<Uint8Array>, maxInflatedBytes: number): AsyncGenerator<Uint8Array> {
  let compressed = 0;
  const counted = Readable.from(
    (async function* () {
      for await (const chunk of source) {
        compressed += chunk.length;
        yield chunk;
      }
    })(),
  );
  const gunzip = createGunzip();
  counted.on('error', (err) => gunzip.destroy(err));
  counted.pipe(gunzip);
  let inflated = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > maxInflatedBytes) throw new InflateLimitError(`decompressed size over ${maxInflatedBytes} bytes`);
      if (inflated > BOMB_RATIO_AFTER_BYTES && inflated > BOMB_RATIO * Math.max(compressed, 1)) {
        throw new InflateLimitError(`compression ratio over ${BOMB_RATIO}:1 (decompression bomb)`);
      }
      yield chunk;
    }
  } finally {
    counted.unpipe(gunzip);
    counted.destroy();
    gunzip.destroy();
  }
}

/**
 * Inflate a whole zstd stream (the `zstd` tool's output: one or more frames, skippable frames between them,
 * which is also the Collector file exporter's native-compression layout) in pure JS (fzstd), with the
 * limits gzip has.
 */
export async function* unzstdLimited(source: AsyncIterable<Uint8Array>, maxInflatedBytes: number): AsyncGenerator<Uint8Array> {
  const { Decompress } = await import('fzstd');
  let compressed = 0;
  let inflated = 0;
  let out: Uint8Array[] = [];
  const stream = new Decompress((chunk) => {
    inflated += chunk.length;
    if (inflated > maxInflatedBytes) throw new InflateLimitError(`decompressed size over ${maxInflatedBytes} bytes`);
    if (inflated > BOMB_RATIO_AFTER_BYTES && inflated > BOMB_RATIO * Math.max(compressed, 1)) {
      throw new InflateLimitError(`compression ratio over ${BOMB_RATIO}:1 (decompression bomb)`);
    }
    if (chunk.length) out.push(chunk);
  });
  const push = (chunk: Uint8Array, final: boolean): Uint8Array[] => {
    try {
      stream.push(chunk, final);
    } catch (err) {
      if (err instanceof InflateLimitError) throw err;
      throw new CorruptZstdError((err as Error).message);
    }
    const ready = out;
    out = [];
    return ready;
  };
  for await (const chunk of source) {
    compressed += chunk.length;
    yield* push(chunk, false);
  }
  yield* push(new Uint8Array(0), true);
}

class CorruptZstdError extends Error {}

/** Whether a stream starts with a zstd frame or a skippable frame (magic 0xFD2FB528, 0x184D2A5?; little-endian). */
function startsZstd(head: Uint8Array): boolean {
  if (head.length < 4) return false;
  if (isZstd(head)) return true;
  return (head[0]! & 0xf0) === 0x50 && head[1] === 0x2a && head[2] === 0x4d && head[3] === 0x18;
}

/** Peek the first bytes of a stream, then hand back an iterator that replays them. */
async function peek(source: AsyncIterable<Uint8Array>, n: number): Promise<{ head: Uint8Array; rest: AsyncIterable<Uint8Array> }> {
  const it = source[Symbol.asyncIterator]();
  const parts: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < n) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    parts.push(r.value);
    size += r.value.length;
  }
  const head = Buffer.concat(parts);
  const rest: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: async function* () {
      if (head.length > 0) yield head;
      if (done) return;
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        yield r.value;
      }
    },
  };
  return { head, rest };
}

function firstNonSpace(buf: Uint8Array): number | undefined {
  for (const b of buf) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf) return b;
  return undefined;
}

function itemsFromJson(value: unknown, place: string, hintLogs: boolean): TraceInputItem[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => itemsFromJson(v, `${place}[${i}]`, hintLogs));
  if (typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    if ('resourceLogs' in obj || (hintLogs && !('resourceSpans' in obj))) {
      const { logs, problems } = logsFromRequest(obj, place, ATTR_EVENT_NAME);
      return [{ kind: 'logs', logs }, ...problems.map((problem) => ({ kind: 'problem' as const, problem }))];
    }
    if ('resourceSpans' in obj) {
      const { spans, problems } = spansFromRequest(obj, place);
      return [{ kind: 'spans', spans }, ...problems.map((problem) => ({ kind: 'problem' as const, problem }))];
    }
    // Empty ExportTraceServiceRequest `{}` is valid and carries nothing.
    if (Object.keys(obj).length === 0) return [];
    const phoenix = spansFromPhoenix(obj, place);
    if (phoenix) return [{ kind: 'spans', spans: phoenix.spans }, ...phoenix.problems.map((problem) => ({ kind: 'problem' as const, problem }))];
  }
  return [{ kind: 'problem', problem: { place, reason: 'not an OTLP request (expected resourceSpans or resourceLogs)' } }];
}

function parseJsonRecord(text: string, place: string, hintLogs: boolean): TraceInputItem[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return [{ kind: 'problem', problem: { place, reason: `invalid JSON (${(err as Error).message.slice(0, 120)})` } }];
  }
  return itemsFromJson(value, place, hintLogs);
}

/** JSON lines when the first line is a whole JSON value; otherwise whole documents split at top level. */
async function* readJsonText(source: AsyncIterable<Uint8Array>, name: string, hintLogs: boolean, maxRecordBytes: number): AsyncGenerator<TraceInputItem> {
  const decoder = new TextDecoder('utf-8');
  let mode: 'undecided' | 'lines' | 'documents' = 'undecided';
  let line = 1;
  // lines mode: lines are cut from the raw bytes (a newline byte never sits inside a UTF-8 sequence) and
  // each is decoded once; only a line spread over chunks is joined, as bytes, off the JS heap.
  const lineDecoder = new TextDecoder('utf-8');
  let parts: Uint8Array[] = [];
  let partsLen = 0;
  let skipping = false;
  // undecided: the raw chunks, replayed as bytes once the input turns out to be JSON lines
  let rawUndecided: Uint8Array[] = [];
  // documents mode
  let depth = 0;
  let inString = false;
  let escaped = false;
  let docStartLine = 1;
  let doc: string[] = [];
  let docLen = 0;
  let pendingUndecided = '';

  const feedDocuments = function* (text: string): Generator<TraceInputItem> {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true;
        else if (c === 34) inString = false;
        continue;
      }
      if (c === 34) inString = true;
      else if (c === 123 || c === 91) {
        if (depth === 0) {
          start = i;
          docStartLine = line;
          doc = [];
          docLen = 0;
        }
        depth++;
      } else if (c === 125 || c === 93) {
        depth--;
        if (depth === 0) {
          doc.push(text.slice(start, i + 1));
          const whole = doc.join('');
          doc = [];
          docLen = 0;
          yield* parseJsonRecord(whole, `${name}:${docStartLine}`, hintLogs);
          start = i + 1;
        } else if (depth < 0) {
          depth = 0;
          yield { kind: 'problem', problem: { place: `${name}:${line}`, reason: 'unbalanced closing bracket' } };
        }
      }
    }
    if (depth > 0) {
      const piece = text.slice(start);
      docLen += piece.length;
      if (docLen > maxRecordBytes) {
        yield {
          kind: 'problem',
          problem: { place: `${name}:${docStartLine}`, reason: `JSON document over ${maxRecordBytes} bytes; skipped the rest of the input` },
        };
        throw new StopReading();
      }
      doc.push(piece);
    }
  };

  const flushLine = function* (text: string, isLast: boolean): Generator<TraceInputItem> {
    // JSON.parse allows surrounding whitespace; trim only to skip blank lines and keep error text tidy,
    // without copying a large line that needs no trimming.
    const trimmed = isSpace(text.charCodeAt(0)) || isSpace(text.charCodeAt(text.length - 1)) ? text.trim() : text;
    if (trimmed !== '') yield* parseJsonRecord(trimmed, `${name}:${line}`, hintLogs);
    if (!isLast) line++;
  };

  const decodeLine = (bytes: Uint8Array): string => lineDecoder.decode(bytes);

  const feedLines = function* (chunk: Uint8Array): Generator<TraceInputItem> {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      if (skipping) {
        skipping = false;
        line++;
      } else {
        // A line inside one chunk is decoded as it is; only a line spread over chunks is joined first.
        let whole: string;
        if (parts.length === 0) whole = decodeLine(chunk.subarray(start, nl));
        else {
          parts.push(chunk.subarray(start, nl));
          whole = decodeLine(Buffer.concat(parts, partsLen + nl - start));
        }
        parts = [];
        partsLen = 0;
        yield* flushLine(whole, false);
      }
      start = nl + 1;
    }
    if (start < chunk.length && !skipping) {
      const piece = chunk.subarray(start);
      partsLen += piece.length;
      if (partsLen > maxRecordBytes) {
        yield { kind: 'problem', problem: { place: `${name}:${line}`, reason: `line over ${maxRecordBytes} bytes; skipped` } };
        parts = [];
        partsLen = 0;
        skipping = true;
      } else parts.push(piece);
    }
  };

  try {
    for await (const chunk of source) {
      if (mode === 'lines') {
        yield* feedLines(chunk);
        continue;
      }
      const text = decoder.decode(chunk, { stream: true });
      if (mode === 'undecided') {
        rawUndecided.push(chunk);
        // Search only the new text for the first newline: rescanning the whole buffer would be quadratic.
        const nlInText = text.indexOf('\n');
        const nl = nlInText === -1 ? -1 : pendingUndecided.length + nlInText;
        pendingUndecided += text;
        if (nl === -1 && pendingUndecided.length < maxRecordBytes) continue;
        const first = pendingUndecided.slice(0, nl === -1 ? undefined : nl).trim();
        // JSON lines when the first line parses, or looks like a compact object cut short (a truncated first
        // line must not turn the whole file into one broken document); pretty-printed documents open with
        // `{` or `[` alone, or with a line ending in an opening bracket or a comma.
        let wholeLine = first.startsWith('{"') && !/[[{,]$/.test(first);
        if (!wholeLine) {
          try {
            JSON.parse(first);
            wholeLine = true;
          } catch {
            wholeLine = false;
          }
        }
        mode = wholeLine ? 'lines' : 'documents';
        const buffered = pendingUndecided;
        const raw = rawUndecided;
        pendingUndecided = '';
        rawUndecided = [];
        if (mode === 'lines') for (const c of raw) yield* feedLines(c);
        else yield* feedDocuments(buffered);
        continue;
      }
      yield* feedDocuments(text);
    }
    if (mode === 'lines') {
      if (!skipping && parts.length > 0) yield* flushLine(decodeLine(Buffer.concat(parts, partsLen)), true);
      return;
    }
    const tail = decoder.decode();
    if (mode === 'undecided') {
      const all = pendingUndecided + tail;
      if (all.trim() !== '') yield* parseJsonRecord(all.trim(), `${name}:1`, hintLogs);
      return;
    }
    if (tail) yield* feedDocuments(tail);
    if (depth > 0) yield { kind: 'problem', problem: { place: `${name}:${docStartLine}`, reason: 'truncated JSON document' } };
  } catch (err) {
    if (!(err instanceof StopReading)) throw err;
  }
}

class StopReading extends Error {}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10 || c === 0xfeff;
}

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

function isZstd(b: Uint8Array): boolean {
  return b.length >= 4 && ZSTD_MAGIC.every((m, i) => b[i] === m);
}

/**
 * The file exporter with `compression: zstd` writes each message zstd-compressed inside its length-prefixed
 * frame (json or proto inside). Node ≥ 22.15 inflates it natively; older Node through fzstd (pure JS).
 */
function unwrapFrame(proto: ProtoDecoders, frame: Uint8Array, place: string, hintLogs: boolean, maxBytes: number): TraceInputItem[] {
  let body = frame;
  if (isZstd(frame)) {
    const native = (zlib as unknown as { zstdDecompressSync?: (b: Uint8Array, o: { maxOutputLength: number }) => Uint8Array }).zstdDecompressSync;
    try {
      body = native ? native(frame, { maxOutputLength: maxBytes }) : zstdInflate(proto.ZstdStream, frame, maxBytes);
    } catch (err) {
      const message = (err as Error).message;
      const tooBig = /over \d+ bytes|maxOutputLength|buffer length/i.test(message);
      return [
        {
          kind: 'problem',
          problem: { place, reason: tooBig ? `zstd frame abandoned: decompressed size over ${maxBytes} bytes` : `corrupt zstd frame (${message})` },
        },
      ];
    }
  }
  // Only the first byte decides: a protobuf request starts with 0x0a and its next byte (a length) may be '{'.
  if (body[0] === 0x7b) return parseJsonRecord(Buffer.from(body).toString('utf8'), place, hintLogs);
  return decodeFrame(proto, body, place, hintLogs);
}

/** Inflate one zstd frame in pure JS, giving up past `maxBytes` of output (a zstd bomb stops early). */
function zstdInflate(ZstdStream: ProtoDecoders['ZstdStream'], frame: Uint8Array, maxBytes: number): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  const stream = new ZstdStream((chunk) => {
    size += chunk.length;
    if (size > maxBytes) throw new Error(`decompressed frame over ${maxBytes} bytes`);
    parts.push(chunk);
  });
  stream.push(frame, true);
  return Buffer.concat(parts, size);
}

function decodeFrame(proto: ProtoDecoders, frame: Uint8Array, place: string, hintLogs: boolean): TraceInputItem[] {
  // A frame does not say whether it is a trace or a logs request (the file exporter writes one signal per
  // file): take the decoding that yields records, the file name's hint first.
  let traces: { spans: SpanRecord[]; problems: InputProblem[] } | undefined;
  let logs: LogRecordEntry[] | undefined;
  try {
    traces = spansFromRequest(proto.decodeTraceRequest(frame), place);
  } catch {
    traces = undefined;
  }
  try {
    logs = logsFromRequest(proto.decodeLogsRequest(frame), place, ATTR_EVENT_NAME).logs;
  } catch {
    logs = undefined;
  }
  const asTraces = (t: { spans: SpanRecord[]; problems: InputProblem[] }): TraceInputItem[] => [
    { kind: 'spans', spans: t.spans },
    ...t.problems.map((problem) => ({ kind: 'problem' as const, problem })),
  ];
  if (hintLogs && logs?.length) return [{ kind: 'logs', logs }];
  if (traces?.spans.length) return asTraces(traces);
  if (logs?.length) return [{ kind: 'logs', logs }];
  if (traces) return asTraces(traces);
  return [{ kind: 'problem', problem: { place, reason: 'frame is neither an OTLP trace nor a logs request' } }];
}

/** 4-byte big-endian length-prefixed protobuf messages (Collector file exporter `format: proto`). */
async function* readFramedProto(source: AsyncIterable<Uint8Array>, name: string, hintLogs: boolean, maxRecordBytes: number): AsyncGenerator<TraceInputItem> {
  const [codec, zstd] = await Promise.all([import('./otlp-proto.js'), import('fzstd')]);
  const proto: ProtoDecoders = { decodeTraceRequest: codec.decodeTraceRequest, decodeLogsRequest: codec.decodeLogsRequest, ZstdStream: zstd.Decompress };
  // Chunks are kept in a list and joined only once a whole frame is there, so a large frame arriving in
  // small chunks costs linear, not quadratic, copying.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let need = 4;
  let frame = 0;
  let buf: Buffer = Buffer.alloc(0);
  for await (const chunk of source) {
    pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    pendingBytes += chunk.length;
    if (pendingBytes < need) continue;
    buf = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    for (;;) {
      if (buf.length < 4) {
        need = 4;
        break;
      }
      const len = buf.readUInt32BE(0);
      if (len > maxRecordBytes) {
        yield {
          kind: 'problem',
          problem: {
            place: `${name}#${frame}`,
            reason: `frame length ${len} over ${maxRecordBytes} bytes (not length-prefixed OTLP protobuf?); skipped the rest of the input`,
          },
        };
        return;
      }
      if (buf.length < 4 + len) {
        need = 4 + len;
        break;
      }
      yield* unwrapFrame(proto, buf.subarray(4, 4 + len), `${name}#${frame}`, hintLogs, maxRecordBytes);
      frame++;
      buf = buf.subarray(4 + len);
    }
    pending = buf.length ? [buf] : [];
    pendingBytes = buf.length;
  }
  buf = Buffer.concat(pending, pendingBytes);
  if (buf.length > 0) yield { kind: 'problem', problem: { place: `${name}#${frame}`, reason: `truncated frame (${buf.length} trailing bytes)` } };
}

/**
 * Read one input (file contents or stdin) of any supported format.
 * @example for await (const item of readTraceStream(createReadStream(f), { name: f })) ...
 */
export async function* readTraceStream(source: AsyncIterable<Uint8Array>, opts: ReaderOptions & { name: string }): AsyncGenerator<TraceInputItem> {
  const maxRecordBytes = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const hintLogs = /(^|[._-])logs?([._-]|$)/i.test(opts.name.split(/[\\/]/).pop() ?? '');
  const { head, rest } = await peek(source, 4);
  let input = rest;
  if (head[0] === 0x1f && head[1] === 0x8b) input = gunzipLimited(rest, opts.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES);
  else if (startsZstd(head)) input = unzstdLimited(rest, opts.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES);
  try {
    const p = await peek(input, 1);
    const first = firstNonSpace(p.head);
    if (first === undefined && p.head.length === 0) return;
    if (first === 0x7b /* { */ || first === 0x5b /* [ */ || first === undefined) {
      yield* readJsonText(p.rest, opts.name, hintLogs, maxRecordBytes);
    } else {
      yield* readFramedProto(p.rest, opts.name, hintLogs, maxRecordBytes);
    }
  } catch (err) {
    if (err instanceof InflateLimitError) {
      yield { kind: 'problem', problem: { place: opts.name, reason: `${head[0] === 0x1f ? 'gzip' : 'zstd'} input abandoned: ${err.message}` } };
      return;
    }
    if (err instanceof CorruptZstdError) {
      yield { kind: 'problem', problem: { place: opts.name, reason: `corrupt zstd data (${err.message})` } };
      return;
    }
    if (
      err instanceof Error &&
      'code' in err &&
      typeof (err as { code: unknown }).code === 'string' &&
      String((err as { code: string }).code).startsWith('Z_')
    ) {
      yield { kind: 'problem', problem: { place: opts.name, reason: `corrupt gzip data (${err.message})` } };
      return;
    }
    throw err;
  }
}

/**
 * Bytes per read of a trace file. The stream reads the next chunk while the last one is parsed; at the default
 * 64 KiB a 50 MB file took 800 reads, each a round trip to the thread pool and an async-iterator step.
 */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Bytes of a piped stdin buffered ahead of the scorer. */
const STDIN_READ_AHEAD_BYTES = 4 * 1024 * 1024;

/**
 * A stdin stream read ahead: whatever the pipe holds is taken each time the event loop polls (the scorer
 * lets it poll between records), up to STDIN_READ_AHEAD_BYTES, so the writer refills the pipe while lines
 * are scored instead of waiting for the scorer to ask (a stream reads only ~16 KiB ahead by itself).
 */
function readAhead(stdin: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  if (!(stdin instanceof Readable)) return stdin;
  const ahead = new PassThrough({ highWaterMark: STDIN_READ_AHEAD_BYTES });
  stdin.on('error', (err) => ahead.destroy(err));
  return stdin.pipe(ahead);
}

/**
 * Read every file (directories recursively) and `-` (the given stdin stream), in order.
 * @throws TraceError (TRACE_INPUT) for a path that does not exist or cannot be read.
 */
export async function* readTracePaths(
  paths: string[],
  opts: ReaderOptions & { cwd: string; stdin?: AsyncIterable<Uint8Array> },
): AsyncGenerator<TraceInputItem & { file: string }> {
  const files = await listTraceFiles(paths, opts.cwd);
  for (const file of files) {
    const stream: AsyncIterable<Uint8Array> =
      file === '-' ? readAhead(opts.stdin ?? (async function* () {})()) : createReadStream(file, { highWaterMark: READ_CHUNK_BYTES });
    const name = file === '-' ? 'stdin' : file;
    try {
      for await (const item of readTraceStream(stream, { ...opts, name })) yield { ...item, file: name };
    } catch (err) {
      if (err instanceof TraceError) throw err;
      const code = (err as { code?: string }).code;
      throw new TraceError('TRACE_INPUT', `${name}: cannot read (${code ?? (err as Error).message})`, {
        hint: 'check the path and its permissions',
        cause: err,
      });
    }
  }
}
