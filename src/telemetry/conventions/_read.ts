// What every convention reader shares: flattened attribute access and the shape of an extracted call.
// The readers of the conventions we emit sit next to this file (one module per convention, beside its
// writer); the readers of producers we only read are in src/traces/producers/; the joiner that turns
// their findings into one Run, counting each call once, is src/traces/ledger.ts.

import type { Message, ToolCall } from '../../types/run.js';
import { decodeJsonish, parseArguments, toStr } from './_json.js';
import { isRecord } from '../../core/is-record.js';

/** What a reader needs of a span: its attributes (a traces `SpanRecord` is one). */
export interface AttributeCarrier {
  attributes: Record<string, unknown>;
}

/** A tool call as a producer recorded it (the id is optional: many producers omit it). */
export interface ExtractedCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Split back out of a call the producer garbled (merged parallel calls). */
  reconstructed?: boolean;
}

/** What an LLM span says the model answered, in one producer's convention. */
export interface LlmOutput {
  calls: ExtractedCall[];
  text?: string;
  finishReason?: string;
}

/** What a tool span says about the call it executed, in one producer's convention (all optional). */
export interface ToolSpanFields {
  name?: string;
  id?: string;
  rawArgs?: unknown;
  result?: unknown;
}

/** A producer's tool-span reading: whether its keys are there, and what they say. */
export interface ToolSpanReading {
  recognised: boolean;
  fields: ToolSpanFields;
}

export function call(id: unknown, name: unknown, args: unknown): ExtractedCall | undefined {
  const n = toStr(name);
  if (!n) return undefined;
  const c: ExtractedCall = { name: n, arguments: parseArguments(args) };
  const i = toStr(id);
  if (i) c.id = i;
  return c;
}

export function toolCallsOf(calls: ExtractedCall[]): ToolCall[] {
  return calls.map((c) =>
    c.reconstructed ? { id: c.id ?? '', name: c.name, arguments: c.arguments, reconstructed: true } : { id: c.id ?? '', name: c.name, arguments: c.arguments },
  );
}

/** Calls of messages as extracted calls (an empty id means none). */
export function messageCalls(messages: Message[]): ExtractedCall[] {
  return messages.flatMap((m) => (m.toolCalls ?? []).map((c) => ({ ...c, id: c.id || undefined }) as ExtractedCall));
}

/** The subtree under `prefix`: a structured value at `prefix`, or the dotted keys below it, unflattened. */
export function subtree(attrs: Record<string, unknown>, prefix: string): unknown {
  const direct = attrs[prefix];
  if (direct !== undefined && typeof direct === 'object') return direct;
  if (typeof direct === 'string' && (direct.startsWith('[') || direct.startsWith('{'))) {
    const parsed = decodeJsonish(direct);
    if (typeof parsed === 'object' && parsed !== null) return parsed;
  }
  let root: Record<string, unknown> | undefined;
  const { p, prefixSegments } = prefixOf(prefix);
  for (const key in attrs) {
    if (!key.startsWith(p)) continue;
    const value = attrs[key];
    root ??= {};
    // The key's segments after the prefix's (`p` ends with a dot, so it has as many segments as dots).
    const segs = keySegments(key);
    let node = root;
    for (let i = prefixSegments; i < segs.length - 1; i++) {
      const s = segs[i]!;
      let next = node[s];
      if (!isRecord(next)) {
        next = next === undefined ? {} : { '': next };
        node[s] = next;
      }
      node = next as Record<string, unknown>;
    }
    const last = segs[segs.length - 1]!;
    if (isRecord(node[last])) (node[last] as Record<string, unknown>)[''] = value;
    else node[last] = value;
  }
  return root;
}

// Readers ask for a few constant prefixes: `prefix.` and its segment count are kept, not rebuilt per call.
const prefixes = new Map<string, { p: string; prefixSegments: number }>();

function prefixOf(prefix: string): { p: string; prefixSegments: number } {
  let entry = prefixes.get(prefix);
  if (entry === undefined) {
    const p = prefix + '.';
    let prefixSegments = 0;
    for (let i = p.indexOf('.'); i !== -1; i = p.indexOf('.', i + 1)) prefixSegments++;
    entry = { p, prefixSegments };
    if (prefixes.size >= MAX_CACHED_SPLITS) prefixes.clear();
    prefixes.set(prefix, entry);
  }
  return entry;
}

/** Dotted keys → nested objects (`a.0.b` → `{a: {0: {b}}}`); structured values are kept as they are. */
export function unflatten(attrs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(attrs)) {
    const segs = key.split('.');
    let node = out;
    for (let i = 0; i < segs.length - 1; i++) {
      const next = node[segs[i]!];
      if (!isRecord(next)) node[segs[i]!] = next === undefined ? {} : { '': next };
      node = node[segs[i]!] as Record<string, unknown>;
    }
    const last = segs[segs.length - 1]!;
    if (isRecord(node[last]) && !isRecord(value)) (node[last] as Record<string, unknown>)[''] = value;
    else node[last] = value;
  }
  return out;
}

/** Entries of an indexed node (array, or object with numeric keys), in index order. */
export function indexed(node: unknown): unknown[] {
  if (Array.isArray(node)) return node;
  if (!isRecord(node)) return [];
  const keys: string[] = [];
  let ordered = true;
  for (const k of Object.keys(node)) {
    if (!/^\d+$/.test(k)) continue;
    if (ordered && keys.length > 0 && Number(keys[keys.length - 1]) > Number(k)) ordered = false;
    keys.push(k);
  }
  // Object.keys lists array-index keys in ascending order already: sort only what is not (`007`, huge numbers).
  if (!ordered) keys.sort((a, b) => Number(a) - Number(b));
  return keys.map((k) => node[k]);
}

// Readers ask for the same few dotted paths (convention constants) and see the same attribute keys over and
// over: their splits are kept (bounded), so each lookup uses the same strings instead of fresh slices.
const MAX_CACHED_SPLITS = 4096;
const splitsOfPath = new Map<string, ReadonlyArray<readonly [string, string]>>();
const segmentsOfKey = new Map<string, readonly string[]>();

function pathSplits(dotted: string): ReadonlyArray<readonly [string, string]> {
  let splits = splitsOfPath.get(dotted);
  if (splits === undefined) {
    const out: Array<readonly [string, string]> = [];
    for (let dot = dotted.indexOf('.'); dot !== -1; dot = dotted.indexOf('.', dot + 1)) out.push([dotted.slice(0, dot), dotted.slice(dot + 1)]);
    if (splitsOfPath.size >= MAX_CACHED_SPLITS) splitsOfPath.clear();
    splitsOfPath.set(dotted, (splits = out));
  }
  return splits;
}

/** The dot-separated segments of an attribute key. */
function keySegments(key: string): readonly string[] {
  let segs = segmentsOfKey.get(key);
  if (segs === undefined) {
    segs = key.split('.');
    if (segmentsOfKey.size >= MAX_CACHED_SPLITS) segmentsOfKey.clear();
    segmentsOfKey.set(key, segs);
  }
  return segs;
}

/** Walk a dotted path through nested objects (and objects whose keys still contain dots). */
export function getPath(node: unknown, dotted: string): unknown {
  if (!isRecord(node)) return undefined;
  if (dotted in node) {
    const v = node[dotted];
    return isRecord(v) && '' in v ? v[''] : v;
  }
  // Each dotted prefix (`a`, `a.b`, ...) that is a key, tried shortest first, with the rest of the path below it.
  for (const [head, rest] of pathSplits(dotted)) {
    if (head in node) {
      const found = getPath(node[head], rest);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function normaliseRole(v: unknown): Message['role'] {
  const r = typeof v === 'string' ? v.toLowerCase() : '';
  if (r === 'system' || r === 'developer') return 'system';
  if (r === 'assistant' || r === 'ai' || r === 'model') return 'assistant';
  if (r === 'tool' || r === 'function' || r === 'ipython') return 'tool';
  return 'user';
}

export function contentText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const texts = v.flatMap((p) =>
      isRecord(p) && typeof (p.text ?? p.content) === 'string' && (p.type === undefined || p.type === 'text') ? [String(p.text ?? p.content)] : [],
    );
    return texts.length ? texts.join('\n') : undefined;
  }
  if (v === undefined || v === null) return undefined;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
