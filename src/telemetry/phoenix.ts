// Phoenix span annotations: POST {base}/v1/span_annotations?sync=false with {data:[...]}
// (Arize-ai/phoenix src/phoenix/server/api/routers/v1/annotations.py).
// sync=false because the spans were exported moments ago: Phoenix queues annotations for span ids it has
// not ingested yet and retries them for ~10 minutes. Best effort: never throws, returns a warning.
import { readFileSync } from 'node:fs';
import type { Agent } from 'undici';
import type { RunError } from '../types/run.js';
import type { Verdict } from '../types/verdict.js';
import { evaluationIdentifier, summarizeVerdict } from './conventions/runspec.js';
import { redactUrl } from '../core/redact.js';
import { isRetryableStatus, retryDelayMs } from '../core/retry.js';

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
}

export interface PostAnnotationsResult {
  posted: number;
  /** One line describing the first failure; absent when everything was accepted. */
  warning?: string;
}


/** POST the annotations in chunks with retries and backoff; never throws. */
export async function postSpanAnnotations(opts: PostAnnotationsOptions): Promise<PostAnnotationsResult> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const attempts = Math.max(1, opts.attempts ?? 3);
  const chunkSize = Math.min(100, Math.max(1, opts.chunkSize ?? 100));
  const deadline = Date.now() + timeoutMs;
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/v1/span_annotations?sync=false`;
  // Loaded on first use: only runs with annotations pay for the HTTP client.
  const { Agent: UndiciAgent, request } = await import('./undici.js');
  let dispatcher: Agent;
  try {
    dispatcher = new UndiciAgent({
      connect: {
        ...(opts.caFile ? { ca: readFileSync(opts.caFile) } : {}),
        ...(opts.clientCertFile ? { cert: readFileSync(opts.clientCertFile) } : {}),
        ...(opts.clientKeyFile ? { key: readFileSync(opts.clientKeyFile) } : {}),
      },
      keepAliveTimeout: 1000,
    });
  } catch (err) {
    return { posted: 0, warning: `phoenix annotations: cannot read a TLS file (CA, client certificate or key): ${(err as Error).message}` };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  let posted = 0;
  try {
    for (let i = 0; i < opts.annotations.length; i += chunkSize) {
      const chunk = opts.annotations.slice(i, i + chunkSize);
      const body = JSON.stringify({ data: chunk });
      let lastProblem = '';
      let ok = false;
      for (let attempt = 1; attempt <= attempts && !ok; attempt++) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) break;
        try {
          const res = await request(url, {
            method: 'POST',
            headers,
            body,
            dispatcher,
            headersTimeout: remaining,
            bodyTimeout: remaining,
            signal: AbortSignal.timeout(remaining),
          });
          await res.body.text().catch(() => '');
          if (res.statusCode >= 200 && res.statusCode < 300) {
            ok = true;
            break;
          }
          lastProblem = `HTTP ${res.statusCode}`;
          if (!isRetryableStatus(res.statusCode)) break;
        } catch (err) {
          lastProblem = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err as Error).message;
        }
        if (attempt < attempts) {
          const backoffMs = retryDelayMs(attempt, { baseMs: 200, maxMs: Math.max(0, deadline - Date.now()) });
          await new Promise((r) => setTimeout(r, backoffMs));
        }
      }
      if (!ok) {
        return {
          posted,
          warning: `phoenix annotations: POST ${redactUrl(url)} failed (${lastProblem || 'deadline passed'}); ${opts.annotations.length - posted} verdict annotation(s) not sent`,
        };
      }
      posted += chunk.length;
    }
    return { posted };
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}
