import type { Run, ToolLogEntry } from '../types/run.js';

/** Length a logged result is cut to (turnstone's tool_call_log). */
export const TOOL_LOG_RESULT_CHARS = 500;

/**
 * The turnstone / replio tool-call log of a run: every tool call in order as `{ tool, args, result, turn }`,
 * the result cut to 500 characters. Decision-mode terminal calls have no result; calls dropped at the
 * parallel cap are left out.
 */
export function toolLog(run: Pick<Run, 'toolCalls'>): ToolLogEntry[] {
  return run.toolCalls
    .filter((c) => !c.dropped)
    .map((c) => {
      const entry: ToolLogEntry = { tool: c.call.name, args: c.call.arguments, turn: c.turn };
      if (c.result !== undefined) entry.result = c.result.length > TOOL_LOG_RESULT_CHARS ? c.result.slice(0, TOOL_LOG_RESULT_CHARS) : c.result;
      return entry;
    });
}
