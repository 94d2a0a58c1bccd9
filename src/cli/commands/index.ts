import type { CommandModule } from '../command.js';
import { listCommand } from './list.js';
import { schemaCommand } from './schema.js';
import { validateCommand } from './validate.js';
import { runCommand } from './run.js';
import { compareCommand } from './compare.js';
import { recordCommand } from './record.js';
import { replayCommand } from './replay.js';
import { mergeCommand } from './merge.js';
import { reportCommand } from './report.js';
import { demoCommand } from './demo.js';
import { scoreCommand } from './score.js';
import { serveCommand } from './serve.js';
import { optimizeCommand } from './optimize.js';
import { scheduleCommand } from './schedule.js';

/** Every subcommand, in the order --help lists them. */
export const COMMANDS: CommandModule[] = [
  listCommand,
  schemaCommand,
  validateCommand,
  runCommand,
  compareCommand,
  recordCommand,
  replayCommand,
  mergeCommand,
  reportCommand,
  demoCommand,
  scoreCommand,
  serveCommand,
  optimizeCommand,
  scheduleCommand,
];
