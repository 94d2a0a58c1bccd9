import { balancedJsonEnd } from '../core/json-scan.js';
// turnstone JSON-dump detection: the model wrote a tool call as JSON text instead of calling the tool.

/** Keys that make a JSON object look like a tool call (turnstone: "tool", "command", "path"). */
const CALL_KEYS = ['tool', 'tool_name', 'tool_calls', 'function', 'function_call', 'command', 'path'];
/** A `name` key counts only next to an arguments-like key ({"name": "x", "arguments": {...}}). */
const ARGUMENT_KEYS = ['arguments', 'args', 'parameters', 'input'];

/** Scanning stops after this many characters and this many candidate objects. */
const MAX_SCAN_CHARS = 200_000;
const MAX_CANDIDATES = 200;
/** A dumped call is small; an object longer than this is not one (and bounds the scan per candidate). */
const MAX_OBJECT_CHARS = 20_000;

function looksLikeCall(value: unknown, depth = 0): boolean {
  if (depth > 3 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.slice(0, 20).some((v) => looksLikeCall(v, depth + 1));
  const keys = Object.keys(value);
  if (keys.some((k) => CALL_KEYS.includes(k))) return true;
  if (keys.includes('name') && keys.some((k) => ARGUMENT_KEYS.includes(k))) return true;
  return false;
}

/**
 * Whether the text contains a JSON object that looks like a tool call. turnstone flags the dump only
 * when the run also failed; the caller applies that rule.
 *
 * @example detectJsonDump('I will run: {"tool": "bash", "command": "ls"}') // true
 */
export function detectJsonDump(text: string | undefined): boolean {
  if (!text) return false;
  const scan = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  let candidates = 0;
  for (let start = scan.indexOf('{'); start !== -1 && candidates < MAX_CANDIDATES; start = scan.indexOf('{', start + 1)) {
    candidates++;
    const end = balancedJsonEnd(scan, start, MAX_OBJECT_CHARS);
    if (end === -1) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(scan.slice(start, end));
    } catch {
      continue;
    }
    if (looksLikeCall(parsed)) return true;
  }
  return false;
}
