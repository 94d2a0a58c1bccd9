// The telemetry worker: owns the OpenTelemetry SDK pipeline of a CLI run (private provider, batch processor,
// official exporter, Phoenix annotations, LangSmith feedback: createSdkTelemetry, as in process) so that
// loading it, rendering spans and serialising them run beside the run's main thread. The main thread has
// already handed the verdicts their trace and span ids; the id generator below makes the SDK use them.
import { randomBytes } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import type { Run } from '../types/run.js';
import type { Toolset } from '../types/toolset.js';
import type { CaseResult } from '../types/verdict.js';
import type { RenderInput } from './render.js';
import { createSdkTelemetry, type Telemetry } from './telemetry.js';
import type { FromWorker, ModelTools, ToWorker, WorkerInit } from './worker-protocol.js';

// Long enough that no run takes this long between starting it and configuring it (loading cases, toolsets).
const UNCLAIMED_MS = 10 * 60_000;

/** Hands out the ids assigned on the main thread for the trace being rendered. */
class AssignedIds implements IdGenerator {
  private traceId = '';
  private spanIds: string[] = [];
  private next = 0;

  assign(traceId: string, spanIds: string[]): void {
    this.traceId = traceId;
    this.spanIds = spanIds;
    this.next = 0;
  }

  generateTraceId(): string {
    return this.traceId || randomBytes(16).toString('hex');
  }

  generateSpanId(): string {
    return this.spanIds[this.next++] ?? randomBytes(8).toString('hex');
  }
}

const port = parentPort;
if (!port) throw new Error('telemetry-worker.js runs as a worker thread only');
const post = (msg: FromWorker): void => port.postMessage(msg);
const ids = new AssignedIds();
// Set by the first message: the worker may be started (and load the SDK) before the run's config is known.
let telemetry: Telemetry | undefined;

// Started early and never taken (the run found no cases, say): go away rather than linger in a long-lived
// process (the console). Closing the port leaves this thread nothing to do, so it ends.
const unclaimed = setTimeout(() => port.close(), UNCLAIMED_MS);

function start(init: WorkerInit): void {
  clearTimeout(unclaimed);
  telemetry = createSdkTelemetry(
    init.config,
    { onWarning: (message) => post({ type: 'warning', message }), ...(init.version !== undefined ? { version: init.version } : {}) },
    { exporter: init.exporter, idGenerator: ids },
  );
  // The exporter loads on first export; start loading it now, beside the run.
  const spec = init.exporter.spec;
  if (spec.kind === 'otlp' && spec.protocol === 'http/protobuf') void import('@opentelemetry/exporter-trace-otlp-proto').catch(() => undefined);
  else if (spec.kind === 'otlp' && spec.protocol === 'http/json') void import('@opentelemetry/exporter-trace-otlp-http').catch(() => undefined);
}
const toolsets = new Map<number, Toolset>();
const toolLists = new Map<number, ModelTools>();
let lastResult: CaseResult | undefined;
let unacked = 0;
let ackScheduled = false;
let mismatchWarned = false;

/** Put back the tool lists the main thread left out of each model call (the same array object, as there). */
function restoreTools(run: Run, toolsIds: number[]): void {
  run.modelCalls.forEach((call, i) => {
    const id = toolsIds[i] ?? 0;
    if (id !== 0) call.request.tools = toolLists.get(id) ?? [];
  });
}

const ack = (): void => {
  ackScheduled = false;
  const count = unacked;
  unacked = 0;
  if (count > 0) post({ type: 'ack', count });
};

port.on('message', (msg: WorkerInit | ToWorker[]) => {
  if (!Array.isArray(msg)) start(msg);
  else if (telemetry) for (const m of msg) handle(telemetry, m);
});

function handle(telemetry: Telemetry, msg: ToWorker): void {
  switch (msg.type) {
    case 'toolset':
      toolsets.set(msg.id, msg.toolset);
      return;
    case 'tools':
      toolLists.set(msg.id, msg.tools);
      return;
    case 'result':
      lastResult = msg.result;
      return;
    case 'case': {
      const input = msg.input;
      const toolset = msg.toolsetId === undefined ? undefined : toolsets.get(msg.toolsetId);
      if (toolset) (input as RenderInput).toolset = toolset;
      if (msg.lastResult && lastResult) input.result = lastResult;
      if (input.run && msg.toolsIds) restoreTools(input.run, msg.toolsIds);
      ids.assign(msg.traceId, msg.spanIds);
      const rendered = telemetry.emitCase(input);
      ids.assign('', []);
      // In process, the run loop writes the trace ids into the verdict once emitCase returns (suite-runner)
      // and Phoenix annotations carry them (metadata.trace_id); this copy may have been cloned before that.
      if (rendered && input.verdict && !input.verdict.trace) {
        input.verdict.trace = { traceId: rendered.traceId, rootSpanId: rendered.rootSpanId, ...(rendered.url !== undefined ? { url: rendered.url } : {}) };
      }
      if (rendered && !mismatchWarned && (rendered.traceId !== msg.traceId || rendered.rootSpanId !== msg.spanIds[0])) {
        // Would mean render.ts started spans in another order than the main thread counted them.
        mismatchWarned = true;
        post({ type: 'warning', message: `case ${msg.input.case.id}: exported span ids differ from the ids in the results` });
      }
      unacked++;
      if (!ackScheduled) {
        ackScheduled = true;
        setImmediate(ack);
      }
      return;
    }
    case 'flush':
    case 'shutdown': {
      ack();
      const seq = msg.seq;
      void (msg.type === 'flush' ? telemetry.flush() : telemetry.shutdown()).finally(() => post({ type: 'done', seq }));
      return;
    }
  }
}
