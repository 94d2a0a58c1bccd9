// Verdict lines out in batches: `score` and `serve` write JSON lines through it.

/**
 * Verdict lines written in batches: one write per ~64 KiB, or per turn of the event loop (so a slow
 * stream still sees its lines promptly); a write per line cost more than formatting the lines.
 * `flush` writes what is pending (call it before closing the output).
 */
export function createLineBatcher(write: (text: string) => void): { add(line: string): void; flush(): void } {
  let batch: string[] = [];
  let chars = 0;
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (batch.length === 0) return;
    const text = batch.join('\n');
    batch = [];
    chars = 0;
    write(text);
  };
  return {
    add(line) {
      batch.push(line);
      chars += line.length + 1;
      if (chars >= 65536) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
