// A run as a Phoenix experiment (Arize-ai/phoenix src/phoenix/server/api/routers/v1: datasets.py,
// experiments.py, experiment_runs.py, experiment_evaluations.py; checked live against Phoenix 20.26.1):
//   POST /v1/datasets/upload?sync=true  action "append", example_ids = case ids: a re-run patches examples by id
//                                       instead of adding copies, and deletes none (a filtered run keeps the rest)
//   GET  /v1/datasets/{id}/examples     maps each case id (the example's `id`) to its `node_id`, the only id
//                                       the runs route takes (a case id there answers 500 in 20.26.1)
//   POST /v1/datasets/{id}/experiments  one per run; Phoenix names the experiment's project itself
//   POST /v1/experiments/{id}/runs      one per sample: repetition_number = sample + 1, trace_id
//   POST /v1/experiment_evaluations     one per sample, the same name / label / score / explanation as its
//                                       span annotation (errored and unscorable: no score)
// Best effort, like annotations: never throws; the first failure is one warning line.
import type { Case } from '../types/case.js';
import type { CaseResult } from '../types/verdict.js';
import { buildSpanAnnotations, type AnnotationTarget } from './phoenix.js';
import { createHttpClient, type TlsFiles } from '../core/http-client.js';

export interface PhoenixExperimentOptions {
  /** Phoenix base URL (no /v1). */
  baseUrl: string;
  apiKey?: string;
  /** The dataset: one per suite. */
  datasetName: string;
  /** e.g. "openai/gpt-4o-mini · ops" (provider, model and target). */
  experimentName: string;
  /** Run id and settings. */
  metadata: Record<string, unknown>;
  cases: Case[];
  results: CaseResult[];
  /** Observed arguments go into run outputs only with content capture. */
  captureContent: boolean;
  /** Deadline for everything. @default 30000 */
  timeoutMs?: number;
  /** The export's TLS files (one trust setting for traces, annotations and experiments). */
  tls?: TlsFiles;
}

export interface PhoenixExperimentResult {
  datasetId?: string;
  experimentId?: string;
  runs: number;
  evaluations: number;
  warning?: string;
}

/** What a case is expected to do, for the example's output and metadata (snake_case, as in the results file). */
export function caseExpectation(c: Case): Record<string, unknown> {
  const r = c.runspec;
  const out: Record<string, unknown> = {};
  if (r) {
    for (const [k, v] of Object.entries({
      tool: r.tool,
      command: r.command,
      args: r.args,
      host: r.host,
      autonomy: r.autonomy,
      no_run: r.noRun,
      forbid_tools: r.forbidTools,
    })) {
      if (v !== undefined) out[k] = v;
    }
  }
  if (c.replio) out.replio = { expected: c.replio.expected, verifier: c.replio.verifier };
  if (c.turnstone) out.turnstone = { expected_actions: c.turnstone.actions, match_mode: c.turnstone.matchMode };
  return out;
}

class PhoenixCallError extends Error {}

/** Record the run in Phoenix as dataset + experiment + runs + evaluations. */
export async function recordPhoenixExperiment(opts: PhoenixExperimentOptions): Promise<PhoenixExperimentResult> {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) };
  let http;
  try {
    // One attempt per call: a retried run or evaluation POST could record it twice.
    http = createHttpClient({
      label: 'phoenix experiment',
      timeoutMs: opts.timeoutMs ?? 30_000,
      attempts: 1,
      secrets: [opts.apiKey],
      ...(opts.tls ? { tls: opts.tls } : {}),
    });
  } catch (err) {
    return { runs: 0, evaluations: 0, warning: `phoenix experiment: ${(err as Error).message}` };
  }
  const client = http;
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    if (deadline - Date.now() <= 0) throw new PhoenixCallError(`${method} ${path}: no time left`);
    const r = await client.json({
      method,
      url: `${base}${path}`,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      deadlineMs: deadline,
    });
    if (!r.ok) throw new PhoenixCallError(client.describe(r));
    return r.json as T;
  };
  const result: PhoenixExperimentResult = { runs: 0, evaluations: 0 };
  try {
    const byId = new Map(opts.cases.map((c) => [c.id, c]));
    const ran = opts.results.filter((r) => byId.has(r.caseId));
    const cases = ran.map((r) => byId.get(r.caseId)!);
    const upload = await call<{ data: { dataset_id: string; version_id: string } }>('POST', '/v1/datasets/upload?sync=true', {
      action: 'append',
      name: opts.datasetName,
      description: `runspec-eval suite ${opts.datasetName}`,
      inputs: cases.map((c) => ({ prompt: c.prompt })),
      outputs: cases.map((c) => ({ expected: caseExpectation(c) })),
      metadata: cases.map((c) => ({
        case_id: c.id,
        dialect: c.dialect,
        ...(c.suite !== undefined ? { suite: c.suite } : {}),
        tags: c.tags,
        expected: caseExpectation(c),
      })),
      example_ids: cases.map((c) => c.id),
    });
    result.datasetId = upload.data.dataset_id;
    const examples = await call<{ data: { examples: Array<{ id: string; node_id: string }> } }>(
      'GET',
      `/v1/datasets/${encodeURIComponent(upload.data.dataset_id)}/examples?version_id=${encodeURIComponent(upload.data.version_id)}`,
    );
    const nodeIds = new Map(examples.data.examples.map((e) => [e.id, e.node_id]));
    const repetitions = Math.max(1, ...ran.map((r) => r.samples.length));
    const experiment = await call<{ data: { id: string } }>('POST', `/v1/datasets/${encodeURIComponent(upload.data.dataset_id)}/experiments`, {
      name: opts.experimentName,
      description: `runspec-eval run ${String(opts.metadata.run_id ?? '')}`.trim(),
      metadata: opts.metadata,
      version_id: upload.data.version_id,
      repetitions,
    });
    result.experimentId = experiment.data.id;
    for (const r of ran) {
      const exampleId = nodeIds.get(r.caseId);
      if (exampleId === undefined) throw new PhoenixCallError(`dataset ${opts.datasetName} has no example ${r.caseId} after the upload`);
      for (const s of r.samples) {
        const traceRef = s.status === 'scored' ? s.verdict.trace : s.traceRef;
        const startMs = s.trace?.startTimeMs ?? Date.now() - s.elapsedMs;
        const start = new Date(startMs).toISOString();
        const end = new Date(startMs + (s.trace?.durationMs ?? s.elapsedMs)).toISOString();
        const target: AnnotationTarget = {
          spanId: traceRef?.rootSpanId ?? '0000000000000000',
          caseId: r.caseId,
          sample: s.sample,
          captureContent: opts.captureContent,
          ...(s.status === 'scored' ? { verdict: s.verdict } : { error: s.error }),
        };
        const [annotation] = buildSpanAnnotations([target]);
        const run = await call<{ data: { id: string } }>('POST', `/v1/experiments/${encodeURIComponent(experiment.data.id)}/runs`, {
          dataset_example_id: exampleId,
          output: s.status === 'scored' ? { decision: annotation!.metadata.observed, category: annotation!.result.label } : null,
          repetition_number: s.sample + 1,
          start_time: start,
          end_time: end,
          ...(traceRef ? { trace_id: traceRef.traceId } : {}),
          ...(s.status === 'errored' ? { error: `${s.error.code}: ${s.error.message}` } : {}),
        });
        result.runs++;
        await call('POST', '/v1/experiment_evaluations', {
          experiment_run_id: run.data.id,
          name: annotation!.name,
          annotator_kind: 'CODE',
          start_time: end,
          end_time: end,
          result: annotation!.result,
          metadata: { case_id: r.caseId, sample: s.sample },
          ...(traceRef ? { trace_id: traceRef.traceId } : {}),
        });
        result.evaluations++;
      }
    }
    return result;
  } catch (err) {
    const why = err instanceof PhoenixCallError ? err.message : `unexpected answer (${(err as Error).message})`;
    return { ...result, warning: `phoenix experiment: ${why}; ${result.runs} run(s) and ${result.evaluations} evaluation(s) recorded` };
  } finally {
    await client.close();
  }
}
