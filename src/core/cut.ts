// Cutting text short for a message, a table cell or a log line: the one rule (the mark counts in the limit).

/**
 * `text` as it is when it fits in `maxChars`, else its first `maxChars - 1` characters and `…`: never longer
 * than `maxChars`.
 * @example cutText('abcdef', 4) // 'abc…'
 */
export function cutText(text: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
