// Verdicts of agent-target Runs: the same scoring as every Run, plus what only the target knows. A trace
// without model spans is `unscorable` (never an empty-trace verdict), one that did not complete in time is
// `incomplete`, and the reason says whether the calls came from the trace or from the agent's response.
import { scoreRun, type ScoreOptions } from '../../scoring/verdict.js';
import type { Case } from '../../types/case.js';
import type { Run } from '../../types/run.js';
import type { Verdict } from '../../types/verdict.js';

/** @example scoreAgentRun(c, run, {}).category // 'unscorable' for a module that emitted no model spans */
export function scoreAgentRun(c: Case, run: Run, opts: ScoreOptions = {}): Verdict {
  const verdict = scoreRun(c, run, opts);
  const agent = run.agent;
  if (!agent) return verdict;
  // An incomplete trace explains missing model spans too: it is judged incomplete first.
  if (agent.incomplete) {
    verdict.pass = false;
    verdict.category = 'incomplete';
    verdict.reason = `${agent.incomplete}; so far: ${agent.unscorable ?? verdict.reason}`;
  } else if (agent.unscorable) {
    verdict.pass = false;
    verdict.category = 'unscorable';
    verdict.reason = agent.unscorable;
  } else {
    verdict.reason +=
      agent.callsFrom === 'response' ? ` (calls read from the response: ${agent.responsePath ?? 'tool_calls'})` : ' (calls read from the trace)';
  }
  return verdict;
}
