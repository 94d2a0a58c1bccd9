// Credentials inside URLs (a password in user:password@, a key in ?api-key=...) must not reach an
// error, warning, log line, report or results file. Owner: issue 12 (no secret in any artifact).

/** Query parameters whose values are credentials. */
const SECRET_PARAM = /^(?:x-)?(?:api[-_]?key|key|token|access[-_]?token|auth|authorization|secret|client[-_]?secret|password|passwd|pwd|sig|signature|code)$/i;

/**
 * A URL with its password and credential-like query values replaced by `***` (the user name stays, so
 * the message still says which account). Text that is not a URL comes back as it is.
 * @example redactUrl('https://u:pw@h/v1?api-key=k&x=1') // 'https://u:***@h/v1?api-key=***&x=1'
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  if (u.password) {
    u.password = '***';
    changed = true;
  }
  for (const k of [...u.searchParams.keys()]) {
    if (SECRET_PARAM.test(k)) {
      u.searchParams.set(k, '***');
      changed = true;
    }
  }
  return changed ? u.toString().replace(/%2A%2A%2A/g, '***') : url;
}

/** Every URL inside free text, redacted as `redactUrl` does. */
export function redactUrlsInText(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi, (m) => {
    // Keep trailing punctuation of the sentence out of the URL.
    const tail = /[).,;:!?\]]+$/.exec(m)?.[0] ?? '';
    return redactUrl(m.slice(0, m.length - tail.length)) + tail;
  });
}
