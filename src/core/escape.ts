// Escaping for the markup renderers, the one owner: the report/ renderers (which also render `score`
// output: it is a results document) escape XML and Markdown one way.

import { safeText } from './safe-text.js';

/** Characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF). */
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Escape text for XML/HTML element content and double-quoted attributes. */
export function escapeXml(text: string): string {
  return text.replace(XML_INVALID, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Escape an XML attribute value: newlines and tabs become character references so they survive. */
export function escapeAttr(text: string): string {
  return escapeXml(text).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

/** Escape a Markdown table cell: control characters, newlines, pipes, entities and inline HTML. */
export function escapeCell(text: string): string {
  return safeText(text).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').trim();
}

/**
 * Inline code in a Markdown table cell: the text stays literal (code spans decode no entities), so
 * only pipes (which end a table cell even inside code) and newlines are escaped.
 */
export function mdCode(text: string): string {
  if (text === '') return '';
  const body = safeText(text).replace(/\|/g, '\\|');
  const runs = body.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}
