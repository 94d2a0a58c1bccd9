import { Option } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { UsageError, worstExitCode } from '../../errors.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScheduleEntry } from '../../config/schedules.js';
import { SCHEDULES_FILE } from '../../config/schedules-file.js';
import { writeFileAtomic } from '../../core/atomic-write.js';
import type { CliContext } from '../context.js';
import type { RunFlags } from './_run-options.js';
import { runTargets } from './run.js';

// The schedules reader (zod, smol-toml, croner) and the config load when a subcommand runs: `schedule --help` starts fast.
const loadSchedulesModule = () => import('../../config/schedules.js');

const STATE_FILE = join('.runspec', 'schedules-state.json');

/** Run one schedule's sweep: a dry run of its suite, results under .runspec/results/. */
async function runSchedule(ctx: CliContext, s: ScheduleEntry): Promise<number> {
  const flags: RunFlags = {
    ...(s.eval_samples !== undefined ? { samples: s.eval_samples } : {}),
    ...(s.eval_validate ? { validateArgs: true } : {}),
    ...(s.eval_threshold !== undefined ? { threshold: s.eval_threshold } : {}),
    ...(s.eval_provider ? { provider: s.eval_provider } : {}),
    ...(s.eval_telemetry !== undefined ? { telemetry: s.eval_telemetry } : {}),
  };
  ctx.out(`# schedule ${s.id} (${s.eval_fixture})`);
  return runTargets(ctx, [s.eval_fixture], flags, { suiteLabel: s.eval_fixture, agentName: `schedule:${s.id}` });
}

function parseInstant(value: string | undefined, flag: string, fallback: Date): Date {
  if (value === undefined) return fallback;
  const d = new Date(value);
  if (Number.isNaN(d.getTime()))
    throw new UsageError('USAGE', `${flag}: expected an ISO date-time such as 2026-11-30T06:00:00Z (got ${JSON.stringify(value)})`);
  return d;
}

function describeSchedule(s: ScheduleEntry, next: Date): string {
  const opts = [`samples=${s.eval_samples ?? 1}`, `validate=${s.eval_validate ?? false}`, s.enabled === false ? 'disabled' : ''].filter(Boolean).join(' ');
  return `${s.id.padEnd(20)} ${s.eval_fixture.padEnd(20)} ${s.when.cron.padEnd(16)} next ${next.toISOString()}  ${opts}`;
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
        action(getContext, setExit, async (ctx, o: { output: string }) => {
          const { loadSchedules, nextFire } = await loadSchedulesModule();
          const now = ctx.now();
          const all = loadSchedules(ctx.projectDir);
          if (o.output === 'json')
            ctx.out(
              JSON.stringify(
                all.map((s) => ({ ...s, next: nextFire(s, now).toISOString() })),
                null,
                2,
              ),
            );
          else if (all.length === 0) ctx.out(`no schedules (add one with: runspec-eval schedule add --id nightly --fixture <suite> --cron "0 6 * * 1-5")`);
          else for (const s of all) ctx.out(describeSchedule(s, nextFire(s, now)));
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
        action(
          getContext,
          setExit,
          async (
            ctx,
            o: { id: string; fixture: string; cron: string; timezone: string; samples?: number; validate?: boolean; threshold?: number; provider?: string },
          ) => {
            const { nextFire, saveSchedule } = await loadSchedulesModule();
            if (o.samples !== undefined && !(Number.isInteger(o.samples) && o.samples > 0))
              throw new UsageError('USAGE', `--samples: expected a positive integer (got ${o.samples})`);
            if (o.threshold !== undefined && !(o.threshold >= 0 && o.threshold <= 1))
              throw new UsageError('USAGE', `--threshold: expected a number from 0 to 1 (got ${o.threshold})`);
            // A provider the sweep could not build (mock or replay without a script, an unknown name) fails now, not at 6 am.
            if (o.provider) {
              const { loadConfigFile } = await import('../../config/file.js');
              const { resolveProviderSpec } = await import('../../config/providers.js');
              resolveProviderSpec(o.provider, { config: loadConfigFile(ctx.projectDir), env: ctx.env, projectDir: ctx.projectDir });
            }
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
            ctx.out(describeSchedule(entry, nextFire(entry, ctx.now())));
            return 0;
          },
        ),
      );
    schedule
      .command('due')
      .description('List the schedules that fired between --since and --at (what a sweep started at --at should run)')
      .option('--at <iso>', 'the sweep time (default now)')
      .addOption(new Option('--since <iso>', 'the previous sweep time (default: one hour before --at)'))
      .action(
        action(getContext, setExit, async (ctx, o: { at?: string; since?: string }) => {
          const { dueSchedules, loadSchedules } = await loadSchedulesModule();
          const at = parseInstant(o.at, '--at', ctx.now());
          const since = parseInstant(o.since, '--since', new Date(at.getTime() - 3_600_000));
          for (const s of dueSchedules(loadSchedules(ctx.projectDir), since, at)) ctx.out(s.id);
          return 0;
        }),
      );
    schedule
      .command('run')
      .description('Run schedules now: the named ones, or with --due those that fired since the last sweep')
      .option('--id <id>', 'schedule id (repeatable)', (v: string, prev: string[] | undefined) => [...(prev ?? []), v])
      .option('--due', 'run every schedule that fired since the last `schedule run --due` (first time: the last hour)')
      .option('--at <iso>', 'the sweep time (default now)')
      .addHelpText(
        'after',
        '\nExit code: the worst of the runs (0 pass, 1 below threshold, 2 bad input, 3 infrastructure).\nA cron job such as `*/15 * * * * runspec-eval schedule run --due` drives the cadence.\n',
      )
      .action(
        action(getContext, setExit, async (ctx, o: { id?: string[]; due?: boolean; at?: string }) => {
          const { dueSchedules, loadSchedules } = await loadSchedulesModule();
          const all = loadSchedules(ctx.projectDir);
          const at = parseInstant(o.at, '--at', ctx.now());
          let chosen: ScheduleEntry[];
          const stateFile = join(ctx.projectDir, STATE_FILE);
          if (o.id?.length) {
            chosen = o.id.map((id) => {
              const s = all.find((x) => x.id === id);
              if (!s)
                throw new UsageError('USAGE', `schedule run: no schedule ${JSON.stringify(id)} in ${SCHEDULES_FILE}`, {
                  hint: `known: ${all.map((x) => x.id).join(', ') || '(none)'}`,
                });
              return s;
            });
          } else if (o.due) {
            const state = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as { lastSweep?: string }) : {};
            const since = state.lastSweep ? new Date(state.lastSweep) : new Date(at.getTime() - 3_600_000);
            chosen = dueSchedules(all, since, at);
          } else {
            throw new UsageError('USAGE', 'schedule run: name a schedule with --id or pass --due');
          }
          const codes: number[] = [];
          for (const s of chosen) codes.push(await runSchedule(ctx, s));
          if (o.due) writeFileAtomic(stateFile, JSON.stringify({ lastSweep: at.toISOString() }) + '\n');
          if (chosen.length === 0) ctx.err('no schedule is due');
          // The same rule as compare's (errors.ts): the same failures exit with the same code.
          return worstExitCode(codes);
        }),
      );
  },
};
