import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../core/atomic-write.js';
import { parseStructuredText, validateStructured } from '../core/structured-file.js';
import { join } from 'node:path';
import { Cron } from 'croner';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { SCHEDULES_FILE } from './schedules-file.js';
import { knownKeysAt, unknownFieldMessage, unknownFields, withoutFields } from '../core/strict-fields.js';

/** `runspec_schedules.toml`: `[[schedule]]` entries with `action = "eval"` (a nightly sweep, the twin of the CI live tier). */
const WhenSchema = z
  .object({
    cron: z.string(),
    timezone: z.string().optional(),
  })
  .strict();

const ScheduleSchema = z
  .object({
    id: z.string().min(1),
    action: z.literal('eval'),
    eval_fixture: z.string().min(1),
    eval_samples: z.number().int().positive().optional(),
    eval_validate: z.boolean().optional(),
    eval_telemetry: z.boolean().optional(),
    eval_threshold: z.number().min(0).max(1).optional(),
    eval_provider: z.string().optional(),
    enabled: z.boolean().optional(),
    when: WhenSchema,
  })
  .strict();

/** An eval entry: `action = "eval"`, or no action at all (then the schema says it is missing). */
function isEvalEntry(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && ((v as Record<string, unknown>).action === 'eval' || !('action' in v));
}

// The file may be shared with other tools: their [[schedule]] entries (any action but "eval") and their
// top-level keys are kept as they are and ignored; eval entries are checked in full.
const EntrySchema = z.unknown().superRefine((v, ctx) => {
  if (!isEvalEntry(v)) return;
  const r = ScheduleSchema.safeParse(withoutExtensions(v));
  if (r.success) return;
  for (const issue of r.error.issues) {
    // Unknown fields as everywhere (core/strict-fields.ts): named at their own line, with the closest field.
    if (issue.code === 'unrecognized_keys')
      for (const key of issue.keys)
        ctx.addIssue({ code: 'custom', path: [...issue.path, key], message: unknownFieldMessage(key, knownKeysAt(ScheduleSchema, issue.path)) });
    else ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  }
});

/** An eval entry without its extension fields (`x_…`). */
function withoutExtensions(v: unknown): unknown {
  const r = ScheduleSchema.safeParse(v);
  return r.success ? v : withoutFields(v, unknownFields(r.error.issues).extensions);
}
const SchedulesFileSchema = z.looseObject({ schedule: z.array(EntrySchema).default([]) });

export type ScheduleEntry = z.infer<typeof ScheduleSchema>;

export { SCHEDULES_FILE };

/**
 * Read the project's eval schedules; a missing file is no schedules. Every cron expression is checked;
 * entries of other tools (`action` other than "eval") are ignored.
 */
export function loadSchedules(projectDir: string): ScheduleEntry[] {
  return readSchedulesFile(projectDir).evals;
}

interface SchedulesFile {
  evals: ScheduleEntry[];
  /** The whole file, other tools' entries and keys included, for rewriting. */
  data: { schedule: unknown[] } & Record<string, unknown>;
}

function readSchedulesFile(projectDir: string): SchedulesFile {
  const file = join(projectDir, SCHEDULES_FILE);
  if (!existsSync(file)) return { evals: [], data: { schedule: [] } };
  const error = (message: string, opts: { hint?: string; cause?: unknown }): ConfigError => new ConfigError('CONFIG', message, opts);
  const source = parseStructuredText(readFileSync(file, 'utf8'), { file, format: 'toml', error });
  const parsed = {
    data: validateStructured(SchedulesFileSchema, source, {
      file,
      error,
      hint: 'a schedule needs id, action = "eval", eval_fixture and [schedule.when] cron = "m h dom mon dow"',
    }),
  };
  const lines = parsed.data.schedule.map((_, i) => source.lines(['schedule', i, 'id']));
  const evals = parsed.data.schedule.flatMap((raw, index) => (isEvalEntry(raw) ? [{ s: ScheduleSchema.parse(withoutExtensions(raw)), i: index }] : []));
  const seen = new Set<string>();
  evals.forEach(({ s, i }) => {
    if (seen.has(s.id)) throw new ConfigError('CONFIG', `${file}:${lines[i] ?? '?'}: schedule[${i}].id: duplicate id ${JSON.stringify(s.id)}`);
    seen.add(s.id);
    try {
      checkCron(s.when);
    } catch (err) {
      throw new ConfigError(
        'CONFIG',
        `${file}:${source.lines(['schedule', i, 'when', 'cron'])}: schedule[${i}].when.cron: not a cron expression (${JSON.stringify(s.when.cron)}): ${(err as Error).message}`,
        {
          hint: 'five fields: minute hour day-of-month month day-of-week, e.g. "0 6 * * 1-5"',
        },
      );
    }
  });
  return { evals: evals.map((e) => e.s), data: parsed.data as SchedulesFile['data'] };
}

/** A cron expression (five fields, or six with seconds first) in the schedule's time zone (default UTC). */
function cronOf(when: ScheduleEntry['when']): Cron {
  return new Cron(when.cron, { timezone: when.timezone ?? 'UTC', mode: '5-or-6-parts' });
}

/** Throws when the expression does not parse or can never fire (`0 0 31 2 *`). */
function checkCron(when: ScheduleEntry['when']): void {
  if (cronOf(when).nextRun(new Date(0)) === null) throw new Error('it never fires');
}

/** The next time the schedule fires strictly after `after`. */
export function nextFire(s: ScheduleEntry, after: Date): Date {
  const next = cronOf(s.when).nextRun(after);
  if (!next) throw new ConfigError('CONFIG', `schedule ${s.id}: cron ${JSON.stringify(s.when.cron)} never fires after ${after.toISOString()}`);
  return next;
}

/** Schedules that fired in (since, at]: the ones a sweep started at `at` should run. */
export function dueSchedules(schedules: ScheduleEntry[], since: Date, at: Date): ScheduleEntry[] {
  return schedules.filter((s) => s.enabled !== false && nextFire(s, since).getTime() <= at.getTime());
}

function appendable(text: string, entries: number): boolean {
  try {
    const doc = parseToml(text) as { schedule?: unknown };
    return Array.isArray(doc.schedule) && doc.schedule.length === entries;
  } catch {
    return false;
  }
}

/** Append (or replace by id) a schedule and rewrite the file atomically. */
export function saveSchedule(projectDir: string, entry: ScheduleEntry): void {
  const parsed = ScheduleSchema.safeParse(entry);
  if (!parsed.success) throw new ConfigError('CONFIG', `schedule ${entry.id}: ${parsed.error.issues[0]!.message}`);
  try {
    checkCron(entry.when);
  } catch (err) {
    throw new ConfigError('CONFIG', `schedule ${entry.id}: --cron: not a cron expression (${JSON.stringify(entry.when.cron)}): ${(err as Error).message}`);
  }
  const { data } = readSchedulesFile(projectDir);
  // Other tools' entries stay where they are; an eval entry with this id is replaced.
  const kept = data.schedule.filter((s) => !(isEvalEntry(s) && (s as { id?: unknown }).id === entry.id));
  const file = join(projectDir, SCHEDULES_FILE);
  if (kept.length === data.schedule.length && existsSync(file)) {
    // A new id is appended to the text, so the file's comments and formatting (other tools' too) stay.
    const text = readFileSync(file, 'utf8');
    const sep = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    const after = `${text}${sep}${stringifyToml({ schedule: [parsed.data] })}\n`;
    // (An inline `schedule = [...]` array cannot take a [[schedule]] block: rewrite the file then.)
    if (appendable(after, data.schedule.length + 1)) return writeFileAtomic(file, after);
  }
  writeFileAtomic(file, stringifyToml({ ...data, schedule: [...kept, parsed.data] }) + '\n');
}
