import { Option } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError } from '../../errors.js';
import { dueSchedules, loadSchedules, nextFire, saveSchedule, SCHEDULES_FILE, type ScheduleEntry } from '../../config/schedules.js';

function parseInstant(value: string | undefined, flag: string, fallback: Date): Date {
  if (value === undefined) return fallback;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new UsageError('USAGE', `${flag}: expected an ISO date-time such as 2026-11-30T06:00:00Z (got ${JSON.stringify(value)})`);
  return d;
}

function describe(s: ScheduleEntry, now: Date): string {
  const opts = [`samples=${s.eval_samples ?? 1}`, `validate=${s.eval_validate ?? false}`, s.enabled === false ? 'disabled' : ''].filter(Boolean).join(' ');
  return `${s.id.padEnd(20)} ${s.eval_fixture.padEnd(20)} ${s.when.cron.padEnd(16)} next ${nextFire(s, now).toISOString()}  ${opts}`;
}

export const scheduleCommand: CommandModule = {
  register(program, getContext, setExit) {
    const schedule = program
      .command('schedule')
      .description(`Manage scheduled eval sweeps in ${SCHEDULES_FILE} (a nightly drift check, the twin of the CI live tier)`);
    schedule
      .command('list')
      .description('List schedules with their next fire time')
      .option('--output <format>', 'table or json', 'table')
      .action(
        action(getContext, setExit, (ctx, o: { output: string }) => {
          const now = new Date();
          const all = loadSchedules(ctx.projectDir);
          if (o.output === 'json') ctx.out(JSON.stringify(all.map((s) => ({ ...s, next: nextFire(s, now).toISOString() })), null, 2));
          else if (all.length === 0) ctx.out(`no schedules (add one with: runspec-eval schedule add --id nightly --fixture <suite> --cron "0 6 * * 1-5")`);
          else for (const s of all) ctx.out(describe(s, now));
          return 0;
        }),
      );
    schedule
      .command('add')
      .description('Add or replace a schedule that runs a suite on a cron cadence')
      .requiredOption('--id <id>', 'stable schedule id')
      .requiredOption('--fixture <suite>', 'suite name or fixture file to run')
      .requiredOption('--cron <expr>', 'five-field cron expression, e.g. "0 6 * * 1-5"')
      .option('--timezone <tz>', 'IANA time zone of the cron expression', 'UTC')
      .option('--samples <n>', 'samples per case', (v) => Number(v))
      .option('--validate', 'check chosen args against the toolset (Validate args)')
      .option('--threshold <t>', 'pass-rate threshold', (v) => Number(v))
      .option('--provider <name>', 'provider preset or profile')
      .action(
        action(getContext, setExit, (ctx, o: { id: string; fixture: string; cron: string; timezone: string; samples?: number; validate?: boolean; threshold?: number; provider?: string }) => {
          if (o.samples !== undefined && !(Number.isInteger(o.samples) && o.samples > 0)) throw new UsageError('USAGE', `--samples: expected a positive integer (got ${o.samples})`);
          if (o.threshold !== undefined && !(o.threshold >= 0 && o.threshold <= 1)) throw new UsageError('USAGE', `--threshold: expected a number from 0 to 1 (got ${o.threshold})`);
          const entry: ScheduleEntry = {
            id: o.id,
            action: 'eval',
            eval_fixture: o.fixture,
            ...(o.samples !== undefined ? { eval_samples: o.samples } : {}),
            ...(o.validate ? { eval_validate: true } : {}),
            ...(o.threshold !== undefined ? { eval_threshold: o.threshold } : {}),
            ...(o.provider ? { eval_provider: o.provider } : {}),
            when: { cron: o.cron, ...(o.timezone !== 'UTC' ? { timezone: o.timezone } : {}) },
          };
          saveSchedule(ctx.projectDir, entry);
          ctx.out(describe(entry, new Date()));
          return 0;
        }),
      );
    schedule
      .command('due')
      .description('List the schedules that fired between --since and --at (what a sweep started at --at should run)')
      .option('--at <iso>', 'the sweep time (default now)')
      .addOption(new Option('--since <iso>', 'the previous sweep time (default: one hour before --at)'))
      .action(
        action(getContext, setExit, (ctx, o: { at?: string; since?: string }) => {
          const at = parseInstant(o.at, '--at', new Date());
          const since = parseInstant(o.since, '--since', new Date(at.getTime() - 3_600_000));
          for (const s of dueSchedules(loadSchedules(ctx.projectDir), since, at)) ctx.out(s.id);
          return 0;
        }),
      );
  },
};
