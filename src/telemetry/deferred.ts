// `run`'s telemetry, loaded off the run's critical path. The SDK and the exporter take tens of milliseconds of
// one thread to load: awaited before the first request they delay every request, and left to the first
// export they block the loop in the middle of the run. Here they load when the first case finishes: its trace
// (and the traces of the cases that finish meanwhile) wait for them, while the model requests already sent
// and those the freed slots send go on. Each trace is rendered after the loop turn's I/O callbacks, so a
// model answer sends its slot's next request before the previous case is rendered. Every case's trace is
// still rendered, whole and in the order the cases finished. No SDK import here: a run without telemetry
// never reaches the SDK.
import type { RenderedTrace, RenderInput } from './render.js';
import type { Telemetry } from './telemetry.js';

/** The suite runner's sink, over a telemetry that loads on first use. */
export interface DeferredTelemetry {
  /** Render one case sample once the telemetry is loaded (undefined when it turned out disabled). */
  emitCase(input: Omit<RenderInput, 'captureContent'>): Promise<RenderedTrace | undefined>;
  /** The telemetry, loading it now if no case did. */
  loaded(): Promise<Telemetry>;
  /** Load (a run without cases still reports a bad setup), flush and close (Telemetry.shutdown). */
  shutdown(): Promise<void>;
}

/** After the I/O callbacks of this loop turn: the answers that arrived send their slots' next requests first. */
const idle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * @example
 * const telemetry = deferTelemetry(async () => (await import('./telemetry.js')).openTelemetry(config, opts));
 * await telemetry.emitCase({ case: c, run, verdict, result, runId });
 * await telemetry.shutdown();
 */
export function deferTelemetry(load: () => Promise<Telemetry>): DeferredTelemetry {
  let loading: Promise<Telemetry> | undefined;
  const loaded = (): Promise<Telemetry> => (loading ??= load());
  return {
    async emitCase(input) {
      await idle();
      return (await loaded()).emitCase(input);
    },
    loaded,
    async shutdown() {
      await (await loaded()).shutdown();
    },
  };
}
