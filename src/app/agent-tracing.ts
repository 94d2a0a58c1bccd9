// The spans of an agent target's run: one tracer provider in this process (the case root spans, and a
// module's own instrumentation through the global registration) and one OTLP/HTTP receiver on loopback
// (http and command agents, and modules with a provider of their own), both feeding one store keyed by
// trace id. A case's trace is handed to the normalisers once its root has ended and no span arrived for
// the quiet window, or at the trace timeout (then marked incomplete).
import { context, diag, DiagLogLevel, trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { createOtlpReceiver, type OtlpReceiver } from '../traces/receiver.js';
import { createSummaryCollector } from '../traces/score-traces.js';
import type { TracePipeline } from '../traces/pipeline.js';
import { spansFromRequest, type LogRecordEntry, type SpanRecord } from '../traces/spans.js';
import { normaliseTrace } from '../traces/normalise.js';
import type { CollectedRun, TargetTracing } from '../engine/targets/types.js';
import { RunspecError } from '../errors.js';

interface Held {
  spans: SpanRecord[];
  logs: LogRecordEntry[];
  /** Called on every span or log that arrives for the trace (re-arms the quiet window). */
  onArrival?: () => void;
}

export interface AgentTracing extends TargetTracing {
  /**
   * Register the global context manager and the run's tracer provider (module targets, before the module
   * is imported, so instrumentation that takes its tracer at import, through any copy of
   * `@opentelemetry/api`, gets the run's). False when a provider was registered already.
   */
  registerGlobals(): boolean;
  /**
   * Run `work` (a module's import) and say whether it tried to register a global tracer provider of its own
   * (the API refuses it, as one is registered, and reports that through `diag`, whichever API copy it used).
   * The diag errors other than that refusal come back in `diagErrors`, to be warned about. The API has no way
   * to read the diag logger set before (a library caller's own), so it cannot be put back: diag is disabled
   * afterwards, and a caller that wants its logger sets it again once the target is open.
   */
  watchRegistrations<T>(work: () => Promise<T>): Promise<{ value: T; ownProvider: boolean; diagErrors: string[] }>;
  /**
   * Keep each collected trace's spans until `takeCaptured` (telemetry re-exports them as they are); off by
   * default, so a run without telemetry holds no trace after scoring it.
   */
  keepCaptured(): void;
  /** The spans of a collected trace, once (undefined when not kept, or already taken). */
  takeCaptured(traceId: string): SpanRecord[] | undefined;
  close(): Promise<void>;
}

export interface AgentTracingOptions {
  /** Port of the receiver on 127.0.0.1. @default 0 (a free port) */
  port?: number;
  /** Trace ids held at once; beyond it the oldest is dropped. @default 10000 */
  maxTraces?: number;
}

/** Hands each ended span to the store in the OTLP JSON form the trace readers take. */
class StoreProcessor implements SpanProcessor {
  constructor(private readonly add: (spans: SpanRecord[]) => void) {}
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    const bytes = JsonTraceSerializer.serializeRequest([span]);
    if (!bytes) return;
    this.add(spansFromRequest(JSON.parse(new TextDecoder().decode(bytes)), 'in-process').spans);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Start the run's span collection: the provider and the receiver (listening on 127.0.0.1, a free port).
 * `close` stops both and undoes `registerGlobals`.
 * @example const tracing = await startAgentTracing(); ...; await tracing.close();
 */
export async function startAgentTracing(options: AgentTracingOptions = {}): Promise<AgentTracing> {
  const held = new Map<string, Held>();
  const maxTraces = options.maxTraces ?? 10_000;
  const entry = (traceId: string): Held => {
    let h = held.get(traceId);
    if (!h) {
      if (held.size >= maxTraces) held.delete(held.keys().next().value!);
      h = { spans: [], logs: [] };
      held.set(traceId, h);
    }
    return h;
  };
  const addSpans = (spans: SpanRecord[]): void => {
    for (const s of spans) {
      const h = entry(s.traceId);
      h.spans.push(s);
      h.onArrival?.();
    }
  };
  const addLogs = (logs: LogRecordEntry[]): void => {
    for (const l of logs) {
      const h = entry(l.traceId);
      h.logs.push(l);
      h.onArrival?.();
    }
  };

  const provider = new BasicTracerProvider({ spanProcessors: [new StoreProcessor(addSpans)] });
  const tracer: Tracer = provider.getTracer('runspec-eval');
  let registeredGlobal = false;
  let contextManager: AsyncLocalStorageContextManager | undefined;
  const registerGlobals = (): boolean => {
    contextManager = new AsyncLocalStorageContextManager().enable();
    if (!context.setGlobalContextManager(contextManager)) {
      // The module's own registration keeps working: it is an async-hooks manager too, or context is lost anyway.
      contextManager.disable();
      contextManager = undefined;
    }
    registeredGlobal = trace.setGlobalTracerProvider(provider);
    return registeredGlobal;
  };

  // The receiver's pipeline only stores: the run judges each case's trace itself.
  const summary = createSummaryCollector();
  const pipeline: TracePipeline = {
    addSpans: (spans) => addSpans(spans),
    addLogs: (logs) => addLogs(logs),
    addProblem: (p) => summary.addProblem(p),
    addBadFile: () => {},
    tick: () => {},
    flush: () => {},
    summary: () => summary.summary(),
    openTraces: () => held.size,
  };
  const receiver: OtlpReceiver = createOtlpReceiver({ pipeline, port: options.port ?? 0, host: '127.0.0.1', tickMs: 60_000 });
  let otlpEndpoint: string;
  try {
    otlpEndpoint = await receiver.listen();
  } catch (err) {
    throw new RunspecError('COLLECTOR', `cannot start the run's OTLP receiver on 127.0.0.1:${options.port ?? 0} (${(err as Error).message})`, {
      hint: 'pick a free receiver_port, or leave it out for a free port',
    });
  }

  // Collected traces waiting for telemetry, oldest first; bounded like `held`.
  let captured: Map<string, SpanRecord[]> | undefined;
  const keep = (traceId: string, spans: SpanRecord[]): void => {
    if (!captured) return;
    if (captured.size >= maxTraces) captured.delete(captured.keys().next().value!);
    captured.set(traceId, spans);
  };

  const collect = (traceId: string, opts: { quietMs: number; timeoutMs: number; signal?: AbortSignal }): Promise<CollectedRun> =>
    new Promise((done) => {
      const h = entry(traceId);
      let quiet: NodeJS.Timeout | undefined;
      const finish = (complete: boolean): void => {
        clearTimeout(quiet);
        clearTimeout(deadline);
        opts.signal?.removeEventListener('abort', onAbort);
        h.onArrival = undefined;
        held.delete(traceId);
        keep(traceId, h.spans);
        done(normalised(traceId, h, complete));
      };
      const onAbort = (): void => finish(false);
      const arm = (): void => {
        clearTimeout(quiet);
        quiet = setTimeout(() => finish(true), opts.quietMs);
      };
      const deadline = setTimeout(() => finish(false), opts.timeoutMs);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      h.onArrival = arm;
      arm();
    });

  return {
    tracer,
    tracerProvider: provider as TracerProvider,
    otlpEndpoint,
    registerGlobals,
    async watchRegistrations(work) {
      let ownProvider = false;
      const diagErrors: string[] = [];
      const note = (...args: unknown[]): void => {
        const text = args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
        if (text.includes('duplicate registration of API: trace')) ownProvider = true;
        // A provider's register() also sets the context manager and propagator the run registered: expected.
        else if (!text.includes('duplicate registration of API:')) diagErrors.push(text.split('\n')[0]!.trim()); // no stack
      };
      const quiet = (): void => {};
      diag.setLogger({ error: note, warn: quiet, info: quiet, debug: quiet, verbose: quiet }, { logLevel: DiagLogLevel.ERROR, suppressOverrideMessage: true });
      try {
        return { value: await work(), ownProvider, diagErrors };
      } finally {
        diag.disable();
      }
    },
    collect,
    keepCaptured() {
      captured ??= new Map();
    },
    takeCaptured(traceId) {
      const spans = captured?.get(traceId);
      captured?.delete(traceId);
      return spans;
    },
    async close() {
      await receiver.close().catch(() => {});
      if (registeredGlobal) trace.disable();
      if (contextManager) context.disable();
      await provider.shutdown().catch(() => {});
      held.clear();
      captured?.clear();
    },
  };
}

function normalised(traceId: string, h: Held, complete: boolean): CollectedRun {
  if (h.spans.length === 0) return { status: 'unreadable', reason: 'no span arrived', complete };
  const n = normaliseTrace({ traceId, spans: h.spans, logs: h.logs, evicted: false, complete });
  if (!n.ok) return { status: 'unreadable', reason: n.reason, complete };
  return { status: 'ok', run: n.run, producers: n.info.producers, complete };
}
