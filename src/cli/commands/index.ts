import type { CommandModule } from '../command.js';

/**
 * Every subcommand, in the order --help lists them. Each module is imported only when its command runs:
 * the OpenTelemetry SDK, the MCP client and undici stay out of the start-up of commands that do not use them.
 */
export const COMMAND_LOADERS: ReadonlyArray<{ name: string; load: () => Promise<CommandModule> }> = [
  { name: 'list', load: async () => (await import('./list.js')).listCommand },
  { name: 'schema', load: async () => (await import('./schema.js')).schemaCommand },
  { name: 'validate', load: async () => (await import('./validate.js')).validateCommand },
  { name: 'run', load: async () => (await import('./run.js')).runCommand },
  { name: 'compare', load: async () => (await import('./compare.js')).compareCommand },
  { name: 'record', load: async () => (await import('./record.js')).recordCommand },
  { name: 'replay', load: async () => (await import('./replay.js')).replayCommand },
  { name: 'merge', load: async () => (await import('./merge.js')).mergeCommand },
  { name: 'report', load: async () => (await import('./report.js')).reportCommand },
  { name: 'demo', load: async () => (await import('./demo.js')).demoCommand },
  { name: 'score', load: async () => (await import('./score.js')).scoreCommand },
  { name: 'serve', load: async () => (await import('./serve.js')).serveCommand },
  { name: 'optimize', load: async () => (await import('./optimize.js')).optimizeCommand },
  { name: 'config', load: async () => (await import('./config.js')).configCommand },
  { name: 'doctor', load: async () => (await import('./doctor.js')).doctorCommand },
  { name: 'import', load: async () => (await import('./import.js')).importCommand },
  { name: 'schedule', load: async () => (await import('./schedule.js')).scheduleCommand },
  { name: 'ui', load: async () => (await import('./ui.js')).uiCommand },
];
