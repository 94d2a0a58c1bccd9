// A CLI run's telemetry on a worker thread. A zero-latency run keeps one core busy with its own loop; loading
// the OpenTelemetry SDK and exporter, rendering spans and serialising them to protobuf then ran on that same
// core. Here the main thread only assigns the ids (so verdicts, trace links and the results file get them at
// once, as before) and posts each case's render input; the worker (telemetry-worker.ts) renders it with
// render.ts through the SDK and exports it with the official exporter. This module does not load the SDK.
//
// On one core, on two for runs of fewer than MIN_TRACES_FOR_WORKER traces, without a built worker file (the
// TypeScript sources under vitest), or with `worker: false`, the pipeline stays in process (createTelemetry),
// which is also what library callers get.
import { randomFillSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { TelemetryConfig } from '../config/telemetry.js';
import { PACKAGE_ROOT } from '../core/package-root.js';
import { traceLink } from '../core/trace-link.js';
import type { ModelCallRecord, Run } from '../types/run.js';
import type { Toolset } from '../types/toolset.js';
import { resolveExporterSpec } from './exporter-spec.js';
import type { RenderedTrace, RenderInput } from './render.js';
import type { CapturedTrace } from './agent-trace.js';
import type { TelemetryOptions } from './telemetry.js';
import type { FromWorker, ModelTools, ToWorker, WorkerInit } from './worker-protocol.js';

/** The run's telemetry: emitCase may wait (a promise) while the worker is this far behind. */
export interface RunTelemetry {
  readonly enabled: boolean;
  readonly destination: string | undefined;
  emitCase(input: Omit<RenderInput, 'captureContent'>): RenderedTrace | undefined | Promise<RenderedTrace | undefined>;
  /** An agent target's case, its captured spans exported as they are (in process only: telemetry.ts). */
  emitAgentCase?(input: Omit<RenderInput, 'captureContent'>, captured: CapturedTrace): RenderedTrace | undefined;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface RunTelemetryOptions extends TelemetryOptions {
  /**
   * Render and export on a worker thread (true) or on this one (false). @default true with
   * MIN_CORES_FOR_WORKER cores or more, and on two cores for `traces` ≥ MIN_TRACES_FOR_WORKER; always false
   * without the built worker file.
   */
  worker?: boolean;
  /** How many traces the run will emit (case samples), when known. */
  traces?: number;
  /** The machine's cores, for the choice above. @default os.availableParallelism() */
  cores?: number;
}

/**
 * From this many cores the pipeline always runs on a worker thread: with a core to spare it takes most of
 * telemetry's CPU off the run's loop (16 cores, 1,000 cases: 0.1–7 % of wall instead of ~35 %).
 */
export const MIN_CORES_FOR_WORKER = 3;
/**
 * On two cores the second core is shared with V8's own threads (GC, compilation), so the worker pays for its
 * start-up (a second isolate loading the SDK) only over enough traces. Measured in pairs on 2 cores, wall of
 * a zero-latency run with telemetry, in process vs worker: 200 cases 605 vs 567 ms, 1,000 cases 1,335 vs
 * 1,189 ms, 10,000 cases 5,470 vs 4,545 ms (CPU about the same, +10 % at 200).
 */
export const MIN_TRACES_FOR_WORKER = 200;

const wantsWorker = (worker: boolean | undefined, traces = 0, cores = availableParallelism()): boolean => {
  if (worker !== undefined) return worker;
  return cores >= MIN_CORES_FOR_WORKER || (cores === 2 && traces >= MIN_TRACES_FOR_WORKER);
};

/** Case samples posted to the worker and not yet handled, beyond which emitCase waits. */
export const MAX_IN_FLIGHT = 256;
/** Messages per postMessage at most. */
const BATCH_SIZE = 32;
/** Distinct tool lists posted once and kept by the worker; more are sent inline. */
const MAX_TOOL_LISTS = 64;
/** How long past the in-process bound a flush waits for the worker before giving it up. */
const WORKER_GRACE_MS = 5000;

/**
 * Build a run's telemetry: on a worker thread when the built worker file is next to this module, else in
 * process. Never throws; problems reach `onWarning` as with createTelemetry.
 */
export async function createRunTelemetry(config: TelemetryConfig, opts: RunTelemetryOptions = {}): Promise<RunTelemetry> {
  const early = prewarmed;
  prewarmed = undefined;
  const file = wantsWorker(opts.worker, opts.traces, opts.cores) ? workerFile() : undefined;
  if (!config.enabled || !file) {
    void early?.terminate();
    return (await import('./telemetry.js')).createTelemetry(config, opts);
  }
  return createWorkerTelemetry(config, opts, file, early);
}

let prewarmed: Worker | undefined;
let located: URL | null | undefined;

/**
 * The built worker script: beside this module (dist/telemetry/), or, from the bundled CLI (this code in
 * dist/cli/chunks/), in the package's dist/telemetry/. None from the TypeScript sources: a worker cannot
 * load a .ts file, so tests of the sources run the pipeline in process.
 */
function workerFile(): URL | undefined {
  if (located === undefined) {
    located = null;
    if (import.meta.url.endsWith('.js')) {
      const beside = new URL('./telemetry-worker.js', import.meta.url);
      const packaged = pathToFileURL(join(PACKAGE_ROOT, 'dist', 'telemetry', 'telemetry-worker.js'));
      located = existsSync(beside) ? beside : existsSync(packaged) ? packaged : null;
    }
  }
  return located ?? undefined;
}

/**
 * Start the telemetry worker now, so that it loads the SDK while the run loads its cases; the next
 * createRunTelemetry takes it (or stops it when telemetry turns out off). Idempotent; never throws.
 */
export function prewarmTelemetryWorker(opts: { worker?: boolean } = {}): void {
  const file = wantsWorker(opts.worker) ? workerFile() : undefined;
  if (prewarmed || !file) return;
  try {
    const worker = new Worker(file);
    worker.unref();
    // A worker that failed before anyone took it is dropped; createRunTelemetry then starts a fresh one.
    const drop = (): void => {
      if (prewarmed === worker) prewarmed = undefined;
    };
    worker.on('error', drop);
    worker.on('exit', drop);
    prewarmed = worker;
  } catch {
    prewarmed = undefined;
  }
}

/**
 * The worker-backed pipeline with a given worker script (createRunTelemetry's; tests pass a stand-in), or a
 * worker of that script already started. The worker's first message is its WorkerInit, then batches.
 */
export function createWorkerTelemetry(config: TelemetryConfig, opts: TelemetryOptions, workerUrl: URL, started?: Worker): RunTelemetry {
  const warned = new Set<string>();
  const warn = (key: string, msg: string): void => {
    if (key !== '' && warned.has(key)) return;
    warned.add(key);
    try {
      opts.onWarning?.(msg);
    } catch {
      // a failing warning sink must not break the run either
    }
  };
  let exporter: WorkerInit['exporter'];
  try {
    exporter = resolveExporterSpec(config, opts.fileName);
  } catch (err) {
    warn('setup', `disabled: ${(err as Error).message}`);
    return { enabled: false, destination: undefined, emitCase: () => undefined, flush: async () => undefined, shutdown: async () => undefined };
  }
  const { destination } = exporter;
  const init: WorkerInit = { config, exporter, ...(opts.version !== undefined ? { version: opts.version } : {}) };
  let worker: Worker;
  try {
    worker = started ?? new Worker(workerUrl);
    worker.postMessage(init);
  } catch (err) {
    void started?.terminate();
    warn('setup', `disabled: could not start the telemetry worker (${(err as Error).message})`);
    return { enabled: false, destination: undefined, emitCase: () => undefined, flush: async () => undefined, shutdown: async () => undefined };
  }
  let inFlight = 0;
  let gone = false;
  let closed = false;
  let seq = 0;
  const waiting: Array<() => void> = [];
  const requests = new Map<number, () => void>();
  const toolsetIds = new WeakMap<Toolset, number>();
  let lastResult: RenderInput['result'];

  // The worker must not keep a finished process alive: it is referenced only while cases posted to it are
  // not handled yet or a flush waits for it (an awaited emitCase or flush must not see the process exit).
  worker.unref();
  if (started) {
    started.removeAllListeners('error');
    started.removeAllListeners('exit');
  }
  let held = false;
  let waitingOn = 0;
  const hold = (): void => {
    const want = inFlight > 0 || waitingOn > 0;
    if (want === held || gone) return;
    held = want;
    if (want) worker.ref();
    else worker.unref();
  };

  const release = (): void => {
    while (waiting.length > 0 && (gone || inFlight < MAX_IN_FLIGHT)) waiting.shift()!();
  };
  const stop = (why: string): void => {
    if (gone) return;
    gone = true;
    if (!closed) warn('worker', `the telemetry worker stopped (${why}); traces not yet exported were dropped, the eval run is unaffected`);
    for (const done of requests.values()) done();
    requests.clear();
    release();
  };
  worker.on('message', (msg: FromWorker) => {
    if (msg.type === 'ack') {
      inFlight -= msg.count;
      release();
      hold();
    } else if (msg.type === 'warning') warn('', msg.message);
    else {
      requests.get(msg.seq)?.();
      requests.delete(msg.seq);
    }
  });
  worker.on('error', (err) => stop(err.message));
  worker.on('exit', (code) => stop(`exit code ${code}`));

  // Messages go in batches, one per event-loop turn or BATCH_SIZE messages: a MessagePort message costs the
  // sender several times what serialising a case does.
  let queue: ToWorker[] = [];
  let sendScheduled = false;
  const send = (): void => {
    sendScheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0 || gone) return;
    try {
      worker.postMessage(batch);
    } catch {
      // Something in the batch cannot be cloned: send the rest, and say which case was left out.
      for (const msg of batch) {
        try {
          worker.postMessage([msg]);
        } catch (err) {
          if (msg.type === 'case') {
            inFlight--;
            hold();
            warn('render', `could not render case ${msg.input.case.id}: ${(err as Error).message}`);
          }
        }
      }
    }
  };
  const post = (msg: ToWorker): void => {
    queue.push(msg);
    if (queue.length >= BATCH_SIZE) send();
    else if (!sendScheduled) {
      sendScheduled = true;
      setImmediate(send);
    }
  };

  // A call's tool list is most of a case's message (the toolset's schemas), and every call of a run shares
  // the layout's one array: post each array once. A bounded number, in case lists are ever built per call.
  const toolsIdOf = new WeakMap<ModelTools, number>();
  let toolLists = 0;
  const withoutTools = (run: Run): { run: Run; toolsIds: number[] } => {
    const toolsIds: number[] = [];
    const modelCalls = run.modelCalls.map((call) => {
      let id = toolsIdOf.get(call.request.tools);
      if (id === undefined && toolLists < MAX_TOOL_LISTS) {
        id = ++seq;
        toolLists++;
        post({ type: 'tools', id, tools: call.request.tools });
        toolsIdOf.set(call.request.tools, id);
      }
      toolsIds.push(id ?? 0);
      if (id === undefined) return call;
      const { tools: _sent, ...request } = call.request;
      return { ...call, request: request as ModelCallRecord['request'] };
    });
    return { run: { ...run, modelCalls }, toolsIds };
  };

  // In process, a flush takes at most the export timeout, plus LangSmith's own wait for ingest.
  const waitMs = config.timeoutMs + (config.langsmith ? config.langsmith.maxWaitMs : 0) + WORKER_GRACE_MS;
  const request = async (type: 'flush' | 'shutdown'): Promise<void> => {
    if (gone) return;
    const id = ++seq;
    waitingOn++;
    hold();
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve) => {
        requests.set(id, resolve);
        timer = setTimeout(() => {
          warn('worker', `the telemetry worker did not finish the ${type} within ${waitMs} ms (${destination}); spans not yet exported were dropped, the eval run is unaffected`);
          requests.delete(id);
          resolve();
        }, waitMs);
        post({ type, seq: id });
        send();
      });
    } finally {
      clearTimeout(timer);
      waitingOn--;
      hold();
    }
  };

  return {
    enabled: true,
    destination,
    emitCase(input) {
      if (closed || gone) return undefined;
      const { toolset, result, ...rest } = input;
      const modelCalls = input.run?.modelCalls.length ?? 0;
      const toolCalls = input.run?.toolCalls.length ?? 0;
      const traceId = randomId(16);
      const spanIds = Array.from({ length: 1 + modelCalls + toolCalls }, () => randomId(8));
      try {
        let toolsetId: number | undefined;
        if (toolset) {
          toolsetId = toolsetIds.get(toolset);
          if (toolsetId === undefined) {
            toolsetId = ++seq;
            post({ type: 'toolset', id: toolsetId, toolset });
            toolsetIds.set(toolset, toolsetId);
          }
        }
        // Samples of a case come one after another with the same aggregate, which holds every sample's
        // verdict: post it once per case, not once per sample (n samples would post it n times).
        if (result && result !== lastResult) {
          post({ type: 'result', result });
          lastResult = result;
        }
        const slim = rest.run ? withoutTools(rest.run) : undefined;
        inFlight++;
        hold();
        post({
          type: 'case',
          input: slim ? { ...rest, run: slim.run } : rest,
          ...(toolsetId !== undefined ? { toolsetId } : {}),
          ...(result ? { lastResult: true as const } : {}),
          ...(slim ? { toolsIds: slim.toolsIds } : {}),
          traceId,
          spanIds,
        });
      } catch (err) {
        warn('render', `could not render case ${input.case.id}: ${(err as Error).message}`);
        return undefined;
      }
      const rendered: RenderedTrace = { traceId, rootSpanId: spanIds[0]!, llmSpanIds: spanIds.slice(1, 1 + modelCalls), toolSpanIds: spanIds.slice(1 + modelCalls) };
      const url = traceLink(config.traceUrl, { traceId, spanId: rendered.rootSpanId, ...(config.project !== undefined ? { project: config.project } : {}) });
      if (url) rendered.url = url;
      if (inFlight < MAX_IN_FLIGHT) return rendered;
      return new Promise((resolve) => waiting.push(() => resolve(rendered)));
    },
    async flush() {
      if (closed) return;
      await request('flush');
    },
    async shutdown() {
      if (closed) return;
      await request('shutdown');
      closed = true;
      // A terminating worker does not keep the event loop alive until its exit event (Node 20), so an
      // awaited shutdown could see the process exit under it (code 13, an unsettled top-level await) when
      // nothing else is pending: a timer holds the loop, and bounds the wait.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        worker.terminate().catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, WORKER_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

// Trace and span ids as the SDK's RandomIdGenerator makes them (lowercase hex, never all zeros), drawn from
// a pooled random buffer.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomId(bytes: 8 | 16): string {
  for (;;) {
    if (poolAt + bytes > pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const id = pool.toString('hex', poolAt, poolAt + bytes);
    poolAt += bytes;
    if (!/^0+$/.test(id)) return id;
  }
}
