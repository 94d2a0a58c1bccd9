// Patterns that run over model output or trace content go through re2js (linear time, the RE2 syntax of
// google/re2: re2/re2.h), so a fixture author's `(a+)+$` cannot hang the scorer on a long argument.
import { RE2JS } from 're2js';

const cache = new Map<string, RE2JS | Error>();
/** Distinct patterns kept compiled; the oldest is dropped beyond this. */
const CACHE_LIMIT = 1024;

/**
 * Compile `pattern` once and keep it (an invalid pattern is cached as its Error). The one compile
 * cache of the code base: scoring's `regex` matches, case `match.prompt` rules and trace rules use it.
 */
export function compileRegex(pattern: string): RE2JS | Error {
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

/** Why `pattern` does not compile under RE2, or undefined when it does. */
export function regexError(pattern: string): string | undefined {
  const c = compileRegex(pattern);
  return c instanceof Error ? c.message.split('\n')[0] : undefined;
}

/** Search semantics (Python `re.search`): the pattern may match anywhere in the text. */
export function regexSearch(pattern: string, text: string): { ok: boolean; error?: string } {
  const compiled = compileRegex(pattern);
  if (compiled instanceof Error) return { ok: false, error: `invalid pattern /${pattern}/: ${compiled.message}` };
  return { ok: compiled.test(text) };
}
