import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';

/** Fixture bytes named on a command line from which loading caps the heap (~20,000 bench cases). */
const LARGE_FIXTURE_BYTES = 4 << 20;

/**
 * Cap V8's heap growth at `percent` past what survives a collection (default 1.5×). A command that
 * allocates fast (loading a large fixture file, a large run) otherwise lets the heap grow to ~4× its live
 * size: `list` of 100,000 cases peaked at 323 MB RSS (223 MB capped), `run` at 546 MB (327 MB), for ~10 %
 * more CPU. `score` sets the same flag.
 */
export function capHeapGrowth(percent = 50): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * `run`'s cap: 1.3×. Its peak comes after loading, with the loader's garbage still in a heap sized from
 * the loading's live set: at 100,000 cases in one file, 1.5× peaked at 292–309 MB RSS and 1.3× at
 * 231–239 MB (three paired runs each, CPU within their noise).
 */
export const RUN_HEAP_GROWING_PERCENT = 30;

/** Cap the heap before loading when the fixture files named on the command line are large. */
export function capHeapForLargeFiles(cwd: string, targets: readonly string[], percent?: number): void {
  let bytes = 0;
  for (const t of targets) {
    try {
      const st = statSync(resolve(cwd, t));
      if (st.isFile()) bytes += st.size;
    } catch {
      // A suite name, or a path the command itself reports.
    }
  }
  if (bytes >= LARGE_FIXTURE_BYTES) capHeapGrowth(percent);
}
