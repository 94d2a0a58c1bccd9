// Redaction: the one rule for keeping credentials out of what we print, store and publish.

/** Names of environment variables (and query parameters) whose values are secrets. */
export function isSecretName(name: string): boolean {
  return /(KEY|TOKEN|SECRET|PASSWORD|AUTHORIZATION|HEADERS)/i.test(name);
}

/**
 * A URL fit to print or store: user-info (`user:pass@`) and secret-looking query parameters
 * (`?api-key=`, `?token=`, `?sig=`, `?code=`) become `***`. Anything that is not an absolute URL is
 * returned as it is, and an untouched URL keeps its exact spelling.
 *
 * @example redactUrl('https://bob:s3cret@llm.example.com/v1?api-key=k&v=1') // 'https://***:***@llm.example.com/v1?api-key=***&v=1'
 */
export function redactUrl(url: string): string;
export function redactUrl(url: string | undefined): string | undefined;
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  if (parsed.username && parsed.username !== '***') [parsed.username, changed] = ['***', true];
  if (parsed.password && parsed.password !== '***') [parsed.password, changed] = ['***', true];
  for (const key of [...parsed.searchParams.keys()]) {
    if ((isSecretName(key.replace(/-/g, '_')) || /^(sig|signature|code)$/i.test(key)) && parsed.searchParams.get(key) !== '***') {
      parsed.searchParams.set(key, '***');
      changed = true;
    }
  }
  // Untouched URLs keep their exact spelling (URL.toString would add a trailing slash).
  return changed ? parsed.toString().replace(/%2A%2A%2A/g, '***') : url;
}

/**
 * Every URL inside free text (an error, a status or warning line), redacted as `redactUrl` does.
 * @example redactUrlsInText('POST https://u:pw@h/v1 failed.') // 'POST https://***:***@h/v1 failed.'
 */
export function redactUrlsInText(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi, (m) => {
    // Keep trailing punctuation of the sentence out of the URL.
    const tail = /[).,;:!?\]]+$/.exec(m)?.[0] ?? '';
    return redactUrl(m.slice(0, m.length - tail.length)) + tail;
  });
}

/** Replace every secret value of the environment (a secret-named variable, 4+ characters) in `text` by `***`. */
export function redactSecrets(text: string, env: Readonly<Record<string, string | undefined>>): string {
  let out = text;
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < 4 || !isSecretName(name)) continue;
    out = out.split(value).join('***');
  }
  return out;
}

/**
 * Blank out what looks like a credential in text a server sent back (error bodies echo requests):
 * Bearer tokens, `sk-...` keys, `key=`/`api-key=`/`token=` query values, URL passwords.
 * @example redactEchoedSecrets('bad key Bearer sk-abc123456789') // 'bad key Bearer ***'
 */
export function redactEchoedSecrets(text: string): string {
  return text
    .replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, '$1 ***')
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, '$1-***')
    .replace(/([?&;\s"']((?:x-)?api[-_]?key|key|token|access_token|secret|password|sig)=)[^&\s"'#]+/gi, '$1***')
    .replace(/("(?:api[-_]?key|authorization|x-api-key|token|secret|password)"\s*:\s*")[^"]*"/gi, '$1***"')
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)[^@\s/]*@/gi, '$1***@');
}
