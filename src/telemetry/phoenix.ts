// Phoenix span annotations: POST {base}/v1/span_annotations?sync=false with {data:[...]}
// (Arize-ai/phoenix src/phoenix/server/api/routers/v1/annotations.py).
// sync=false because the spans were exported moments ago: Phoenix queues annotations for span ids it has
// not ingested yet and retries them for ~10 minutes. Best effort: never throws, returns a warning.
import type { TelemetryConfig } from '../config/telemetry.js';
import type { RunError } from '../types/run.js';
import type { Verdict } from '../types/verdict.js';
import { evaluationIdentifier, summarizeVerdict } from './conventions/runspec.js';
import { createHttpClient, type HttpClient, type RetryEvent } from '../core/http-client.js';
import { isRecord } from '../core/is-record.js';

/** One item of Phoenix's AnnotateSpansRequestBody.data. */
export interface SpanAnnotation {
  /** Lowercase 16-hex OTel span id. */
  span_id: string;
  name: string;
  annotator_kind: 'CODE' | 'LLM' | 'HUMAN';
  /** `score` is absent for errored and unscorable samples: they are not evaluations. */
  result: { label: string; score?: number; explanation: string };
  metadata: Record<string, unknown>;
  /** Upsert key with (name, span): the same (case, sample) overwrites on re-runs. */
  identifier: string;
}

/** A scored (or errored) sample whose root span should carry an annotation. */
export interface AnnotationTarget {
  spanId: string;
  caseId: string;
  sample: number;
  runId?: string;
  verdict?: Verdict;
  error?: RunError;
  /** Include observed arguments in the metadata (only with content capture). */
  captureContent?: boolean;
}

/** Build the annotation items for Phoenix (one per sample root span). */
export function buildSpanAnnotations(targets: AnnotationTarget[]): SpanAnnotation[] {
  return targets.map((t) => {
    const s = summarizeVerdict(t);
    const observed = t.verdict ? { ...t.verdict.observed } : {};
    if (!t.captureContent) delete observed.args;
    const e = t.verdict?.expected ?? {};
    // Metadata keys are snake_case throughout, as in the results file.
    const expected = Object.fromEntries(
      Object.entries({ tool: e.tool, command: e.command, host: e.host, autonomy: e.autonomy, no_run: e.noRun }).filter(([, v]) => v !== undefined),
    );
    const result: SpanAnnotation['result'] = { label: s.category, explanation: s.reason };
    if (s.judged) result.score = s.pass ? 1 : 0;
    return {
      span_id: t.spanId.toLowerCase(),
      name: s.name,
      annotator_kind: 'CODE',
      result,
      metadata: {
        case_id: t.caseId,
        sample: t.sample,
        ...(t.runId !== undefined ? { run_id: t.runId } : {}),
        ...(t.verdict?.trace ? { trace_id: t.verdict.trace.traceId } : {}),
        ...(s.errorType !== undefined ? { error_type: s.errorType } : {}),
        expected,
        observed,
      },
      identifier: evaluationIdentifier(t.caseId, t.sample),
    };
  });
}

export interface PostAnnotationsOptions {
  /** Phoenix base URL, e.g. http://127.0.0.1:6006 (no /v1). */
  baseUrl: string;
  annotations: SpanAnnotation[];
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** PEM CA file for https (the export's, so both trust the same servers). */
  caFile?: string;
  /** Client certificate and key (PEM) for mutual TLS, as the export uses them. */
  clientCertFile?: string;
  clientKeyFile?: string;
  /** Deadline for the whole post, retries included. @default 10000 */
  timeoutMs?: number;
  /** Attempts per chunk. @default 3 */
  attempts?: number;
  /** Items per request. @default 100 */
  chunkSize?: number;
  /** Largest answer read (core/http-client.ts). @default 33554432 */
  maxResponseBytes?: number;
  /** Called before each retry wait (core/http-client.ts `collapseRetries` folds them per cause). */
  onRetry?: (event: RetryEvent) => void;
}

export interface PostAnnotationsResult {
  posted: number;
  /** One line describing the first failure; absent when everything was accepted. */
  warning?: string;
  /** The HTTP status of the failure that made the warning, when there was one. */
  status?: number;
}

/** Phoenix answers an accepted post with `{"data": [...]}` (AnnotateSpansResponseBody). */
const isAnnotateResponse = (json: unknown): boolean => isRecord(json) && Array.isArray(json.data);

/** POST the annotations in chunks through the one HTTP client (retries, TLS, size limit); never throws. */
export async function postSpanAnnotations(opts: PostAnnotationsOptions): Promise<PostAnnotationsResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const chunkSize = Math.min(100, Math.max(1, opts.chunkSize ?? 100));
  const deadlineMs = Date.now() + timeoutMs;
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/v1/span_annotations?sync=false`;
  const notSent = (posted: number): string => `${opts.annotations.length - posted} verdict annotation(s) not sent`;
  let http: HttpClient;
  try {
    http = createHttpClient({
      label: 'phoenix annotations',
      timeoutMs,
      attempts: opts.attempts ?? 3,
      backoff: { baseMs: 200, maxMs: timeoutMs },
      maxConcurrent: 1,
      keepAliveMs: 1000,
      tls: { caFile: opts.caFile, certFile: opts.clientCertFile, keyFile: opts.clientKeyFile },
      secrets: [opts.apiKey],
      ...(opts.maxResponseBytes !== undefined ? { maxResponseBytes: opts.maxResponseBytes } : {}),
      ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
    });
  } catch (err) {
    return { posted: 0, warning: `phoenix annotations: ${(err as Error).message.replace(/^phoenix annotations: /, '')}; ${notSent(0)}` };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let posted = 0;
  try {
    for (let i = 0; i < opts.annotations.length; i += chunkSize) {
      const chunk = opts.annotations.slice(i, i + chunkSize);
      const reply = await http.json({ method: 'POST', url, headers, body: JSON.stringify({ data: chunk }), deadlineMs }, isAnnotateResponse);
      if (!reply.ok) {
        const status = reply.kind === 'status' || reply.kind === 'not-json' ? { status: reply.status } : {};
        return { posted, ...status, warning: `phoenix annotations: ${http.describe(reply)}; ${notSent(posted)}` };
      }
      posted += chunk.length;
    }
    return { posted };
  } finally {
    await http.close();
  }
}

/** The export's TLS files, for the annotation POST (one trust setting for both). */
export function annotationTls(config: TelemetryConfig): { caFile?: string; clientCertFile?: string; clientKeyFile?: string } {
  const e = config.exporter;
  if (e.kind !== 'otlp') return {};
  return {
    ...(e.caFile !== undefined ? { caFile: e.caFile } : {}),
    ...(e.clientCertFile !== undefined ? { clientCertFile: e.clientCertFile } : {}),
    ...(e.clientKeyFile !== undefined ? { clientKeyFile: e.clientKeyFile } : {}),
  };
}
