import type { Verdict } from '../types/verdict.js';

// A verdict reason may quote what the model sent ("arg service: expected "nginx", got "apache""). Where
// content capture is off (telemetry, annotations, verdict spans), the reason is rebuilt from what is
// always exported anyway: the category, tool / command / host names, autonomy levels and argument NAMES.

/**
 * The verdict's reason without any argument value, prompt or result text.
 * @example contentFreeReason(v) // "wrong_args: restart-service: argument service does not match"
 */
export function contentFreeReason(v: Verdict): string {
  const expectedTool = v.expected.tool?.join(' | ');
  const { tool, command } = v.observed;
  const observed = tool && command ? `${tool} ${command}` : tool || command || undefined;
  const where = v.observed.host ? ` on ${v.observed.host}` : '';
  const calls = v.calls.length;
  switch (v.category) {
    case 'pass':
      return observed ? `pass: called ${observed}${where}` : `pass (${calls} tool call${calls === 1 ? '' : 's'})`;
    case 'wrong_tool':
      return `wrong_tool: expected ${expectedTool ?? '-'}, called ${observed ?? 'another tool'}`;
    case 'wrong_command':
      return `wrong_command: expected ${v.expected.command ?? '-'}, called ${observed ?? '-'}`;
    case 'wrong_host':
      return `wrong_host: expected ${v.expected.host ?? '-'}, targeted ${v.observed.host ?? 'no host'}`;
    case 'wrong_autonomy':
      return `wrong_autonomy: expected ${v.expected.autonomy ?? '-'}, gates at ${v.observed.autonomy ?? '-'}`;
    case 'no_run':
      return 'no_run: the model made no runnable call';
    case 'unexpected_run':
      return `unexpected_run: called ${observed ?? 'a tool'}${where} instead of asking`;
    case 'forbidden_tool':
      return `forbidden_tool: called ${observed ?? 'a forbidden tool'}`;
    case 'error':
      return `error: the run ended with status ${v.status}`;
    case 'unscorable':
      // Names checks and what data was missing, never a value.
      return `unscorable: ${v.reason}`;
    case 'incomplete':
      return 'incomplete: the trace never became whole (a root did not end or a parent span never arrived)';
    default: {
      // The failing argument checks name the arguments; the prose reason is never re-parsed.
      const args = [
        ...new Set((v.checks ?? []).filter((k) => k.judged && k.pass === false && k.check.startsWith('args.')).map((k) => k.check.slice('args.'.length))),
      ];
      const names = args.length ? `; argument${args.length === 1 ? '' : 's'} ${args.join(', ')}` : '';
      return `${v.category}: ${observed ?? `${calls} tool call${calls === 1 ? '' : 's'}`}${names}`;
    }
  }
}
