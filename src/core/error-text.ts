// An error as one line of a warning: the one rule, so no warning reads `failed (undefined)`.

/**
 * Whether an error is a time-out: an abort with a TimeoutError, undici's and Node's time-out codes, or the
 * OpenTelemetry SDK's own (`Timeout` from the batch processor, `Request timed out` from the OTLP exporters).
 */
export function isTimeout(err: unknown): boolean {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  return (
    e?.name === 'TimeoutError' ||
    (typeof e?.message === 'string' && /^(request )?tim(eout|ed out)$/i.test(e.message)) ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT' ||
    e?.code === 'UND_ERR_CONNECT_TIMEOUT' ||
    e?.code === 'ETIMEDOUT'
  );
}

/**
 * An error's text for a warning line, never `undefined` or empty: a time-out says so (with `timeoutMs` when
 * the caller knows it), an Error without a message gives its name or code, anything else is shown as text.
 *
 * @example errorText(new DOMException('', 'TimeoutError'), 5000) // 'no response within 5000 ms'
 */
export function errorText(err: unknown, timeoutMs?: number): string {
  // Promise.all-style rejections (a provider flushing several processors) carry one error per part.
  if (Array.isArray(err)) return [...new Set(err.map((e) => errorText(e, timeoutMs)))].join('; ') || 'unknown error (no message)';
  const e = err as { message?: unknown; name?: unknown; code?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0]!.trim() : '';
  if (isTimeout(err)) return timeoutMs !== undefined ? `no response within ${timeoutMs} ms` : message ? `timed out (${message})` : 'timed out';
  if (message) return message;
  if (typeof err === 'string' && err) return err;
  if (typeof e?.code === 'string' || typeof e?.code === 'number') return `error ${e.code}`;
  if (typeof e?.name === 'string' && e.name && e.name !== 'Error') return e.name;
  return 'unknown error (no message)';
}
