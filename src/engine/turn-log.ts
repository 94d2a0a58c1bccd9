import { cutText } from '../core/cut.js';
import { totalTokens } from '../core/tokens.js';
import { safeText } from '../core/safe-text.js';
import type { TurnEvent } from './run-case.js';

// turnstone's `-v`: one line per model call (tokens, latency, what it asked for) and per tool call
// (arguments and the start of the result). Content is cut short; it goes to stderr, never to a file.
// Case ids, model text and tool output are untrusted: no escape sequence may act on the terminal.

const cut = (text: string, max: number): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return cutText(one, max);
};

/**
 * One line describing a turn event.
 * @example formatTurnEvent(e) // "[read-file#0 turn 0] tool file_read {"path":"a.py"} → 4 lines"
 */
export function formatTurnEvent(e: TurnEvent): string {
  return safeText(turnLine(e));
}

function turnLine(e: TurnEvent): string {
  const at = `[${e.caseId}#${e.sample} turn ${e.turn}]`;
  if (e.kind === 'model') {
    const r = e.record;
    if (r.error) return `${at} model error: ${r.error.code}: ${cut(r.error.message, 200)}`;
    const calls = r.response?.toolCalls ?? [];
    const tokens = totalTokens(r.usage) ?? 0;
    const what =
      calls.length > 0
        ? `${calls.length} tool call${calls.length === 1 ? '' : 's'} (${calls.map((c) => c.name).join(', ')})`
        : `answer: ${cut(r.response?.text ?? '', 120)}`;
    return `${at} model ${r.responseModel ?? r.requestModel ?? ''}: ${what}; ${tokens} tokens, ${r.latencyMs ?? r.endTimeMs - r.startTimeMs} ms`;
  }
  const r = e.record;
  const flag = r.dropped ? ' (dropped)' : r.mocked ? ' (mock)' : r.isError ? ` (error${r.errorType ? `: ${r.errorType}` : ''})` : '';
  return `${at} tool ${r.call.name} ${cut(JSON.stringify(r.call.arguments), 200)}${flag} → ${cut(r.result ?? '', 200)}`;
}
