// What a case sends before the model (or the team's agent) answers: its system prompt, its history and its
// prompt, with `{{vars.NAME}}` filled in. One owner for the model loop and the agent targets, so a case
// reads the same whatever it runs against.
import { FixtureError } from '../errors.js';
import type { Case, CaseMessage, CaseVars } from '../types/case.js';
import { fillPlaceholders } from './placeholders.js';

export interface CaseInputText {
  /** The case's own system prompt, else the given default; undefined: none. */
  system?: string;
  /** History before the prompt. */
  messages: CaseMessage[];
  prompt: string;
  /** The vars used: the defaults' merged under the case's. */
  vars: CaseVars;
}

/**
 * The case's input with vars filled in. A `{{vars.NAME}}` the case (or its target) does not define is
 * bad input, reported with the case's file and line.
 * @example caseInputOf({ ...c, prompt: 'restart {{vars.svc}}', vars: { svc: 'api' } }).prompt // 'restart api'
 */
export function caseInputOf(
  c: Pick<Case, 'id' | 'prompt' | 'system' | 'messages' | 'vars' | 'source'>,
  defaults: { system?: string | undefined; vars?: CaseVars | undefined } = {},
): CaseInputText {
  const vars: CaseVars = { ...defaults.vars, ...c.vars };
  const place = c.source?.line ? `${c.source.file}:${c.source.line}` : (c.source?.file ?? c.id);
  const fill = (text: string, field: string): string =>
    fillPlaceholders(
      text,
      (name) => {
        if (!name.startsWith('vars.')) return undefined;
        const v = vars[name.slice(5)];
        return v === undefined ? undefined : String(v);
      },
      (name) => {
        throw new FixtureError('FIXTURE_SCHEMA', `${place}: case ${c.id}: ${field}: unknown placeholder {{${name}}} (cases take {{vars.NAME}})`, {
          hint: name.startsWith('vars.')
            ? `add vars.${name.slice(5)} to the case, its suite or its target`
            : 'write {{vars.NAME}} and set vars.NAME on the case',
        });
      },
    );
  const system = c.system ?? defaults.system;
  const out: CaseInputText = {
    messages: (c.messages ?? []).map((m, i) => ({ role: m.role, content: fill(m.content, `messages[${i}].content`) })),
    prompt: fill(c.prompt, 'prompt'),
    vars,
  };
  if (system !== undefined) out.system = fill(system, 'system');
  return out;
}
