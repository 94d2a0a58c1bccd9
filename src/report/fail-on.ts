// `--fail-on` of `run --baseline`, `diff` and `ci diff|comment`: when a diff counts as a regression. Apart from
// report/diff.ts (which reaches the results schema, zod), so a command checks the flag before loading it.
import { UsageError } from '../errors.js';

/** When a diff counts as a regression (exit 1). */
export const DIFF_FAIL_ON = ['any', 'significant', 'none'] as const;
export type DiffFailOn = (typeof DIFF_FAIL_ON)[number];

/**
 * A `--fail-on` value, or a usage error naming the flag as the command spells it.
 * @example parseFailOn('significant', 'diff --fail-on') // 'significant'
 */
export function parseFailOn(value: string, flag: string): DiffFailOn {
  if (!(DIFF_FAIL_ON as readonly string[]).includes(value)) {
    throw new UsageError('USAGE', `${flag}: expected one of ${DIFF_FAIL_ON.join(', ')} (got ${JSON.stringify(value)})`);
  }
  return value as DiffFailOn;
}
