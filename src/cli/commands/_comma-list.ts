// The option parser of flags that take a comma-separated list and may be repeated (`--suite a,b --suite c`).

/** Append the non-empty, trimmed items of `value` to what earlier occurrences collected. */
export const commaList = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];
