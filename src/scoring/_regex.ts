// Every pattern here runs over model output or trace content, so it goes through re2js (linear time):
// a fixture author's `(a+)+$` must not hang the scorer on a long argument.
import { RE2JS } from 're2js';

const cache = new Map<string, RE2JS | Error>();
const CACHE_LIMIT = 512;

function compile(pattern: string): RE2JS | Error {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = RE2JS.compile(pattern);
    } catch (err) {
      compiled = err instanceof Error ? err : new Error(String(err));
    }
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, compiled);
  }
  return compiled;
}

/** Python `re.search` semantics: the pattern may match anywhere in the text. */
export function regexSearch(pattern: string, text: string): { ok: boolean; error?: string } {
  const compiled = compile(pattern);
  if (compiled instanceof Error) return { ok: false, error: `invalid pattern /${pattern}/: ${compiled.message}` };
  return { ok: compiled.test(text) };
}
