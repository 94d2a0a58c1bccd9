// Credentials inside URLs quoted in free text (an error, a status or warning line) must not reach the
// terminal or a CI log. The rule for one URL is core/redact.ts; this finds the URLs in a line.

import { redactUrl } from './redact.js';

/**
 * Every URL inside free text, redacted as `redactUrl` does.
 * @example redactUrlsInText('POST https://u:pw@h/v1 failed.') // 'POST https://***:***@h/v1 failed.'
 */
export function redactUrlsInText(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi, (m) => {
    // Keep trailing punctuation of the sentence out of the URL.
    const tail = /[).,;:!?\]]+$/.exec(m)?.[0] ?? '';
    return redactUrl(m.slice(0, m.length - tail.length)) + tail;
  });
}
