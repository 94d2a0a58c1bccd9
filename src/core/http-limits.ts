// The HTTP client's limits as plain numbers, for settings that show them without loading the client.

/** Default limit on a response body (32 MiB): an endless 200 is cut there, never buffered whole. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Characters of a reply quoted in a failure (after redaction and whitespace folding). */
export const SNIPPET_CHARS = 200;
