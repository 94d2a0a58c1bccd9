// "Did you mean": the one rule for suggesting a known name in place of an unknown one (fields, suites,
// case ids, tools, args, subcommands, hosts).

/** Levenshtein distance; bounded work: both strings are cut to 128 characters. */
export function editDistance(a: string, b: string): number {
  const s = a.slice(0, 128);
  const t = b.slice(0, 128);
  if (s === t) return 0;
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[t.length]!;
}

function sortedTokens(s: string): string {
  return s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .sort()
    .join('-');
}

/**
 * How far `candidate` is from `name`: case-insensitive edit distance, where reordered words
 * (`service-restart` / `restart-service`) count as one edit and a prefix or infix of four or more
 * characters (`expect_arg` / `expect_args`, `tool` / `expect_tool`) as one and a half.
 */
export function nameDistance(name: string, candidate: string): number {
  const w = name.toLowerCase();
  const c = candidate.toLowerCase();
  let d = Math.min(editDistance(w, c), editDistance(sortedTokens(name), sortedTokens(candidate)) + 1);
  if (d > 0 && Math.min(w.length, c.length) >= 4 && (c.includes(w) || w.includes(c))) d = Math.min(d, 1.5);
  return d;
}

/** Length of the longest common substring (case-insensitive; both cut to 128 characters). */
export function longestCommonSubstring(a: string, b: string): number {
  const s = a.slice(0, 128).toLowerCase();
  const t = b.slice(0, 128).toLowerCase();
  let best = 0;
  let prev = new Array<number>(t.length + 1).fill(0);
  for (let i = 1; i <= s.length; i++) {
    const cur = new Array<number>(t.length + 1).fill(0);
    for (let j = 1; j <= t.length; j++) {
      if (s[i - 1] === t[j - 1]) {
        cur[j] = prev[j - 1]! + 1;
        if (cur[j]! > best) best = cur[j]!;
      }
    }
    prev = cur;
  }
  return best;
}

/**
 * Whether `candidate` is plausibly a typo or a rename of `name`: a distance ({@link nameDistance}) of at
 * most 2 that keeps at least one character, or a distance up to 60% of the longer name when the two
 * share a run of at least half the shorter name (3 characters at least). So `replicas` suggests
 * `replica_count`, `sevice_status` suggests `service_status`, and `read_file` never suggests
 * `send_email` (they share only `d_`) nor `ab` `xy`.
 */
export function isPlausibleName(name: string, candidate: string): boolean {
  const d = nameDistance(name, candidate);
  const longer = Math.max(name.length, candidate.length);
  const shorter = Math.min(name.length, candidate.length);
  if (d >= longer) return false;
  if (d <= 2) return true;
  return d <= Math.floor(0.6 * longer) && longestCommonSubstring(name, candidate) >= Math.max(3, Math.ceil(shorter / 2));
}

/**
 * The closest plausible candidate to `name` ({@link isPlausibleName}), or undefined. Ties go to the
 * alphabetically first candidate; `name` itself is never suggested.
 *
 * @example closestName('sevice_status', ['service_status', 'service_restart']) // 'service_status'
 * @example closestName('read_file', ['send_email']) // undefined
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    if (c === name || !isPlausibleName(name, c)) continue;
    const d = nameDistance(name, c);
    if (d < bestD || (d === bestD && best !== undefined && c < best)) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** `; did you mean "x"?` or an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const c = closestName(name, candidates);
  return c === undefined ? '' : `; did you mean "${c}"?`;
}
