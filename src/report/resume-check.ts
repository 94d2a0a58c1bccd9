import { hash } from 'node:crypto';
import { closeSync, existsSync, openSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors.js';
import { canonicalJson, sortKeys } from '../core/canonical-json.js';
import { runSteps, runStepsYielding } from '../core/event-loop-turns.js';
import type { Case } from '../types/case.js';
import type { CaseResult } from '../types/verdict.js';
import { readLogLine, type ResultsLogHeader } from './results-file.js';

// Resume that cannot lie: a log is only ever continued by the run that wrote it, with the same cases
// and the same result-affecting settings; a new run moves an old log aside instead of appending to it;
// cases that ended in infrastructure errors are run again rather than counted as finished.

/** Flags whose change makes finished cases incomparable with the rest of the run. */
export const RESUME_SENSITIVE_FLAGS = [
  'provider',
  'model',
  'baseUrl',
  'temperature',
  'maxTokens',
  'reasoningEffort',
  'contextWindow',
  'toolset',
  'toolMode',
  'samples',
  'threshold',
  'validateArgs',
  'maxTurns',
  'systemPrompt',
  'script',
  'unsafeHostCommands',
] as const;

/** Header option key holding a digest per case (its content, not where it was loaded from). */
export const CASE_DIGESTS_KEY = 'caseDigests';

/**
 * Header option key holding the resolved settings that change results (model, temperature, tool mode...),
 * whatever their source: a flag, the environment or runspec.toml. Base URLs redacted, keys never stored.
 */
export const RESOLVED_SETTINGS_KEY = 'resolved';

/** A digest of each case's content, so `--resume` notices a case edited since the log was written. */
export function caseDigests(cases: readonly Case[]): Record<string, string> {
  return runSteps(caseDigestSteps(cases));
}

/** {@link caseDigests}, giving the event loop a turn every few milliseconds (100,000 cases take a while). */
export function caseDigestsYielding(cases: readonly Case[]): Promise<Record<string, string>> {
  return runStepsYielding(caseDigestSteps(cases));
}

function* caseDigestSteps(cases: readonly Case[]): Generator<void, Record<string, string>> {
  const out: Record<string, string> = {};
  const frozenParts = new WeakMap<object, string>();
  for (const c of cases) {
    // The first 8 bytes as hex: a string of its own (a slice of the 64-digit hex would keep it alive).
    out[c.id] = hash('sha256', caseContentJson(c, frozenParts), 'buffer').toString('hex', 0, 8);
    yield;
  }
  return out;
}

/**
 * `canonicalJson` of a case without its `source`, member by member: the text of a frozen member (a part
 * the cases of a file share, see fixtures/normalise.ts createSharer) is made once and reused, as it
 * cannot change.
 */
function caseContentJson(c: Case, frozenParts: WeakMap<object, string>): string {
  const record = c as unknown as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (key === 'source' || v === undefined) continue;
    const text = v !== null && typeof v === 'object' && Object.isFrozen(v) ? (frozenParts.get(v) ?? frozenJson(v, frozenParts)) : memberJson(v);
    if (text === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${text}`;
  }
  return out + '}';
}

function frozenJson(v: object, frozenParts: WeakMap<object, string>): string {
  // An object's JSON text is never undefined.
  const text = memberJson(v)!;
  frozenParts.set(v, text);
  return text;
}

/** A member's text as `canonicalJson` writes it inside its object (sorted one level down). */
function memberJson(v: unknown): string | undefined {
  return JSON.stringify(sortKeys(v, 1)) as string | undefined;
}

/**
 * Refuse to resume `header` for a run that asks for other cases or other settings.
 * @example checkResumeHeader({ file, header, caseIds: ['a'], digests, options })
 */
export function checkResumeHeader(opts: {
  file: string;
  header: ResultsLogHeader;
  caseIds: readonly string[];
  digests: Record<string, string>;
  options: Record<string, unknown>;
}): void {
  const { file, header } = opts;
  const hint = 'rerun without --resume to start a new run, or resume with the same cases and settings';
  const was = new Set(header.caseIds);
  const now = new Set(opts.caseIds);
  const added = [...now].filter((id) => !was.has(id));
  const dropped = [...was].filter((id) => !now.has(id));
  if (added.length > 0 || dropped.length > 0) {
    const parts = [
      added.length > 0 ? `not in the log: ${list(added)}` : '',
      dropped.length > 0 ? `in the log but not selected now: ${list(dropped)}` : '',
    ].filter(Boolean);
    throw new UsageError('USAGE', `--resume ${file}: the log is for other cases (${parts.join('; ')})`, { hint });
  }
  const stored = header.options[CASE_DIGESTS_KEY];
  if (stored && typeof stored === 'object') {
    const changed = opts.caseIds.filter((id) => {
      const before = (stored as Record<string, unknown>)[id];
      return typeof before === 'string' && before !== opts.digests[id];
    });
    if (changed.length > 0)
      throw new UsageError('USAGE', `--resume ${file}: ${changed.length === 1 ? 'case' : 'cases'} ${list(changed)} changed since the log was written`, {
        hint,
      });
  }
  const before = flagsOf(header.options);
  const after = flagsOf(opts.options);
  const differ = RESUME_SENSITIVE_FLAGS.filter((k) => canonicalJson(before[k]) !== canonicalJson(after[k]));
  const shown = differ.map((k) => `${k}: ${show(before[k])} → ${show(after[k])}`);
  // The resolved settings, whatever their source (runspec.toml, RUNSPEC_*, a profile). A log written
  // before they were stored, or a setting it does not hold, is unknown rather than a mismatch.
  const logged = recordOf(header.options[RESOLVED_SETTINGS_KEY]);
  const current = recordOf(opts.options[RESOLVED_SETTINGS_KEY]);
  if (logged && current) {
    const reported = new Set<string>(differ);
    if (reported.has('unsafeHostCommands')) reported.add('sandbox');
    for (const k of Object.keys(logged)) {
      if (!(k in current) || reported.has(k) || canonicalJson(logged[k]) === canonicalJson(current[k])) continue;
      shown.push(`${k}: ${show(logged[k])} → ${show(current[k])}`);
    }
  }
  if (shown.length > 0) {
    throw new UsageError('USAGE', `--resume ${file}: settings differ from the logged run (${shown.join(', ')})`, {
      hint: `${hint}; settings come from flags, RUNSPEC_* variables and runspec.toml alike`,
    });
  }
}

function recordOf(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function flagsOf(options: Record<string, unknown>): Record<string, unknown> {
  const f = options.flags;
  return f && typeof f === 'object' ? (f as Record<string, unknown>) : {};
}

const show = (v: unknown): string => (v === undefined || v === null ? '(unset)' : JSON.stringify(v));
const list = (ids: string[]): string => (ids.length > 5 ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more` : ids.join(', '));

/** A logged case that had an infrastructure error in any sample: `--resume` runs it again. */
export function retryOnResume(result: CaseResult): boolean {
  return result.samples.some((s) => s.status === 'errored');
}

/**
 * A new run found a log at its path (same --out as an earlier run): move that log aside, never append
 * to it. Returns the new name of the old log, or undefined when there was none.
 */
export function moveAsideOldLog(logFile: string): string | undefined {
  if (!existsSync(logFile) || statSync(logFile).size === 0) return undefined;
  let oldId = 'previous';
  try {
    // Only the header's run id is needed: it sits near the start of the first line, so read the head
    // of the file, not the whole log (a 100,000-case log is ~190 MB).
    const fd = openSync(logFile, 'r');
    let head: string;
    try {
      head = readLogLine(fd, { offset: 0, length: Math.min(statSync(logFile).size, 64 * 1024) });
    } finally {
      closeSync(fd);
    }
    const m = /"runId":("(?:[^"\\\n]|\\.)*")/.exec(head.split('\n', 1)[0]!);
    const id: unknown = m ? JSON.parse(m[1]!) : undefined;
    if (typeof id === 'string' && /^[\w.-]{1,80}$/.test(id)) oldId = id;
  } catch {
    // not a log of ours: still moved aside, never appended to
  }
  const base = basename(logFile).replace(/\.jsonl$/, '');
  let target = join(dirname(logFile), `${base}.${oldId}.jsonl`);
  for (let i = 2; existsSync(target) && i < 1000; i++) target = join(dirname(logFile), `${base}.${oldId}-${i}.jsonl`);
  renameSync(logFile, target);
  return target;
}
