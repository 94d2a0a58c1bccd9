import { Option } from 'commander';
import type { CommandModule } from '../command.js';
import { action } from '../command.js';
import { intOption as int } from './score.js';

/** `doctor`: send a canary trace and annotation/feedback to the configured backend and read them back. */
export const doctorCommand: CommandModule = {
  register(program, getContext, setExit) {
    program
      .command('doctor')
      .description('Check the configured telemetry end to end: canary trace and annotation/feedback, read back')
      .addOption(
        new Option('--backend <name>', 'phoenix, langsmith, otlp or auto (from the endpoint and runspec.toml)')
          .choices(['auto', 'phoenix', 'langsmith', 'otlp'])
          .default('auto'),
      )
      .option('--timeout-ms <n>', 'how long read-back waits for ingest', int('--timeout-ms', 1), 30_000)
      .addHelpText(
        'after',
        '\nExit codes: 0 every check made passed (everything sent arrived, or, where the endpoint offers no read-back, the canary was accepted), 1 something did not (each failure names a fix), 2 bad configuration.\n',
      )
      .action(
        action(getContext, setExit, async (ctx, flags: { backend: 'auto' | 'phoenix' | 'langsmith' | 'otlp'; timeoutMs: number }) => {
          const { runDoctor } = await import('../../app/doctor.js');
          const report = await runDoctor(ctx, {
            backend: flags.backend,
            timeoutMs: flags.timeoutMs,
            pollMs: Math.min(500, Math.max(20, Math.floor(flags.timeoutMs / 20))),
          });
          ctx.out(`runspec-eval doctor: ${report.backend}${report.endpoint ? ` at ${report.endpoint}` : ''}`);
          for (const c of report.checks) {
            ctx.out(`  ${c.notCheckable ? '–' : c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}`);
            if (c.fix) ctx.out(`      ${c.ok ? 'note' : 'fix'}: ${c.fix}`);
          }
          const failed = report.checks.filter((c) => !c.ok).length;
          ctx.out(
            failed > 0
              ? `${failed} of ${report.checks.length} checks failed`
              : report.verified
                ? 'everything sent arrived'
                : 'accepted (cannot read back from this endpoint)',
          );
          return report.ok ? 0 : 1;
        }),
      );
  },
};
