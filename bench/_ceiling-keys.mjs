// Whether a ceiling's verdict line still has the shape of ours (bench/run.mjs checks it on every run), so a
// ceiling cannot drift from the output it claims to write: the same keys in the same order all the way down,
// with the same types of values, compared on the lines of one trace and rule.

/** A JSON value's keys in order, all the way down (an array by its first element), with the types of its leaves. */
export const shapeOf = (v) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? `[${v.length ? shapeOf(v[0]) : ''}]`
      : typeof v === 'object'
        ? `{${Object.entries(v)
            .map(([k, x]) => `${k}:${shapeOf(x)}`)
            .join(',')}}`
        : typeof v;

/** How the ceiling's line differs in shape from ours for the same trace and rule; undefined when it does not. */
export function keysDiffer(ceiling, ours) {
  if (ceiling.trace_id !== ours.trace_id || ceiling.rule !== ours.rule)
    return `the ceiling's line is of trace ${ceiling.trace_id} rule ${ceiling.rule}, ours of ${ours.trace_id} rule ${ours.rule}: not comparable`;
  const [a, b] = [shapeOf(ceiling), shapeOf(ours)];
  if (a === b) return undefined;
  let at = 0;
  while (a[at] === b[at]) at++;
  const around = (x) => x.slice(Math.max(0, at - 60), at + 60);
  return `the ceiling's line has keys …${around(a)}… where ours has …${around(b)}… (trace ${ours.trace_id}, rule ${ours.rule})`;
}
