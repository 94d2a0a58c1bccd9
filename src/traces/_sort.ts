// A stable sort for the few items of one trace (spans, producers, calls). Array.prototype.sort allocates
// a work array and sort state on every call, which cost more than sorting three spans; past a few dozen
// items it is used after all. The order is the same as a stable sort with `cmp`.

const INSERTION_MAX = 32;

/** Sorts `items` in place (stable) and returns it. */
export function sortSmall<T>(items: T[], cmp: (a: T, b: T) => number): T[] {
  if (items.length > INSERTION_MAX) return items.sort(cmp);
  for (let i = 1; i < items.length; i++) {
    const x = items[i]!;
    let j = i - 1;
    while (j >= 0 && cmp(items[j]!, x) > 0) {
      items[j + 1] = items[j]!;
      j--;
    }
    items[j + 1] = x;
  }
  return items;
}

/** Code-unit order, as the default `sort()` orders strings. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
