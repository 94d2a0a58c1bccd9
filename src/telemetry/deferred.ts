// `run`'s telemetry, loaded off the run's critical path. The SDK and the exporter take tens of milliseconds of
// one thread to load: awaited before the first request they delay every request, and left to the first
// export they block the loop in the middle of the run. Here they load when the first case finishes: its trace
// (and the traces of the cases that finish meanwhile) wait for them, while the model requests already sent
// and those the freed slots send go on. Each trace is rendered after the loop turn's I/O callbacks, so a
// model answer sends its slot's next request before the previous case is rendered. Every case's trace is
// still rendered, whole and in the order the cases finished. The exporter is resolved when the run starts,
// so a bad setup is reported then, as before. Shutdown waits for the traces still being rendered; a failed
// load warns once and the run goes on without traces. Nothing here imports the SDK.
import type { TelemetryConfig } from '../config/telemetry.js';
import { errorText } from '../core/error-text.js';
import { resolveExporterSpec, setupWarning, type ResolvedExporter } from './exporter-spec.js';
import type { RenderedTrace, RenderInput } from './render.js';
import type { Telemetry, TelemetryOptions } from './telemetry.js';

/** The suite runner's sink, over a telemetry that loads on first use. */
export interface DeferredTelemetry {
  /** Render one case sample once the telemetry is loaded. */
  emitCase(input: Omit<RenderInput, 'captureContent'>): Promise<RenderedTrace | undefined>;
  /** The telemetry, loading it now if no case did; undefined (after one warning) if it could not load. */
  loaded(): Promise<Telemetry | undefined>;
  /**
   * Wait for the cases being rendered, then flush and close what was loaded (Telemetry.shutdown); nothing was
   * rendered if nothing loaded. A case handed over after this is not rendered.
   */
  shutdown(): Promise<void>;
}

/** After the I/O callbacks of this loop turn: the answers that arrived send their slots' next requests first. */
const idle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * createTelemetry for `run`, loaded when the first case finishes. Undefined, after one warning, when the
 * exporter cannot be set up (createTelemetry would return a disabled telemetry).
 *
 * @example
 * const telemetry = deferTelemetry(config, { onWarning: (w) => ctx.warn(`telemetry: ${w}`) });
 * await telemetry?.emitCase({ case: c, run, verdict, result, runId });
 * await telemetry?.shutdown();
 */
export function deferTelemetry(config: TelemetryConfig, opts: TelemetryOptions = {}): DeferredTelemetry | undefined {
  const warn = (msg: string): void => {
    try {
      opts.onWarning?.(msg);
    } catch {
      // a failing warning sink must not break the run either (as in createTelemetry)
    }
  };
  let resolved: ResolvedExporter;
  try {
    resolved = resolveExporterSpec(config, opts.fileName);
  } catch (err) {
    warn(setupWarning(err));
    return undefined;
  }
  // A failed load (a module that cannot be imported) warns once and leaves the run without traces, as a
  // failed export does: it never changes a verdict or the exit code, and is not repeated per case.
  let loading: Promise<Telemetry | undefined> | undefined;
  const load = (): Promise<Telemetry | undefined> =>
    (loading ??= import('./telemetry.js')
      .then((m) => m.openTelemetry(config, resolved, opts))
      .catch((err: unknown) => {
        warn(`disabled: ${errorText(err)}`);
        return undefined;
      }));
  // Emits not yet rendered: shutdown waits for them, so none loads or exports after it.
  const pending = new Set<Promise<RenderedTrace | undefined>>();
  let closed = false;
  return {
    emitCase(input) {
      if (closed) return Promise.resolve(undefined);
      const emitted = idle()
        .then(load)
        .then((t) => t?.emitCase(input));
      pending.add(emitted);
      const forget = (): void => void pending.delete(emitted);
      emitted.then(forget, forget);
      return emitted;
    },
    loaded: load,
    async shutdown() {
      closed = true;
      await Promise.allSettled(pending);
      const t = loading ? await loading : undefined;
      await t?.shutdown();
    },
  };
}
