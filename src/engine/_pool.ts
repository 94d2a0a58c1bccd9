// A bounded worker pool: at most `concurrency` jobs in flight, taken in order.

/**
 * Run `worker` over `items` with at most `concurrency` in flight; resolves when all have ended.
 * A worker that throws stops nothing else; the first error is rethrown at the end.
 */
export async function runPool<T>(items: readonly T[], concurrency: number, worker: (item: T, index: number) => Promise<void>): Promise<void> {
  const width = Math.max(1, Math.min(Math.floor(concurrency) || 1, items.length));
  let next = 0;
  let firstError: { err: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        await worker(items[index]!, index);
      } catch (err) {
        firstError ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  if (firstError) throw firstError.err;
}
