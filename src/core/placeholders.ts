// `{{name}}` placeholders: case prompts, messages and system prompts take `{{vars.NAME}}`; http target
// templates also take `{{prompt}}`, `{{messages}}`, `{{system}}`, `{{case_id}}` and `{{env.NAME}}`.
// One grammar for both: a name of letters, digits, `_` and `.`, spaces inside the braces allowed. Text
// that is not a placeholder (a lone `{{`, a `}}` in a prompt) is left as it is.

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*\}\}/g;

/** Every placeholder name in `text`, with its offset, in order. */
export function placeholdersIn(text: string): Array<{ name: string; index: number }> {
  const out: Array<{ name: string; index: number }> = [];
  for (const m of text.matchAll(PLACEHOLDER)) out.push({ name: m[1]!, index: m.index });
  return out;
}

/** The placeholder name when `text` is exactly one placeholder (a whole-value placeholder), else undefined. */
export function wholePlaceholder(text: string): string | undefined {
  const m = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*\}\}$/.exec(text);
  return m?.[1];
}

/**
 * Replace every placeholder of `text` by `lookup(name)`. Values are inserted as they are, once: a value
 * that itself contains `{{...}}` is not expanded again. A name `lookup` does not know is reported
 * through `onUnknown` and left in place.
 * @example fillPlaceholders('Hi {{vars.who}}', (n) => (n === 'vars.who' ? 'Ada' : undefined), () => {}) // 'Hi Ada'
 */
export function fillPlaceholders(text: string, lookup: (name: string) => string | undefined, onUnknown: (name: string, index: number) => void): string {
  if (!text.includes('{{')) return text;
  return text.replace(PLACEHOLDER, (whole: string, name: string, index: number) => {
    const v = lookup(name);
    if (v === undefined) {
      onUnknown(name, index);
      return whole;
    }
    return v;
  });
}

/** 1-based line of offset `index` in `text`. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
