// `[telemetry] trace_url`: a verdict's trace id and root span id made into a link. One owner in core
// because both `app/` (score output) and `telemetry/` (the live run's verdicts) fill it in.

/** What a link template can name. */
export interface TraceLinkInput {
  traceId: string;
  spanId?: string;
  project?: string;
}

/**
 * LangSmith's run UUID of an OTel span: the 8 span-id bytes right-aligned in 16 zero bytes
 * (langsmith-sdk `langsmith_run_id_from_otel_span_id`).
 * @example langsmithRunId('1a2b3c4d5e6f7a8b') // '00000000-0000-0000-1a2b-3c4d5e6f7a8b'
 */
export function langsmithRunId(spanId: string): string {
  const s = spanId.toLowerCase().padStart(16, '0');
  return `00000000-0000-0000-${s.slice(0, 4)}-${s.slice(4)}`;
}

/**
 * Fill a `trace_url` template: `{trace_id}`, `{span_id}`, `{langsmith_run_id}`, `{project}` (each URL-encoded).
 * Returns undefined without a template, or when it names a span and the verdict has none.
 * @example traceLink('http://localhost:6006/projects/{project}/traces/{trace_id}', { traceId: 'ab', project: 'p' })
 */
export function traceLink(template: string | undefined, input: TraceLinkInput): string | undefined {
  if (!template) return undefined;
  const values: Record<string, string | undefined> = {
    trace_id: input.traceId.toLowerCase(),
    span_id: input.spanId?.toLowerCase(),
    langsmith_run_id: input.spanId ? langsmithRunId(input.spanId) : undefined,
    project: input.project ?? 'default',
  };
  let missing = false;
  const url = template.replace(/\{(trace_id|span_id|langsmith_run_id|project)\}/g, (_, key: string) => {
    const v = values[key];
    if (v === undefined) missing = true;
    return encodeURIComponent(v ?? '');
  });
  return missing ? undefined : url;
}
