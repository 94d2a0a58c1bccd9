// Text from models, fixtures and traces shown on a terminal or in Markdown: control characters and
// escape sequences must not act (move the cursor, recolour, hide text, reorder it), and a newline must
// not split a table row. Owner: issue 12 (output safety).

const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029\u0085]/g;
/** C0 controls but tab, DEL, C1 controls (ESC, CSI...), and the bidirectional overrides and isolates. */
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * One line of inert text: line breaks become spaces, tabs a space, every other control character a
 * visible escape such as `\x1b`.
 * @example safeText('ok\x1b[31mred\nnext') // 'ok\\x1b[31mred next'
 */
export function safeText(text: string): string {
  return text
    .replace(LINE_BREAKS, ' ')
    .replace(/\t/g, ' ')
    .replace(CONTROLS, (c) => {
      const code = c.charCodeAt(0);
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    });
}
