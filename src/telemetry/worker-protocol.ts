// Messages between the run's main thread (off-thread.ts) and the telemetry worker (telemetry-worker.ts).
// Everything here is structured-clonable plain data.
import type { TelemetryConfig } from '../config/telemetry.js';
import type { ModelCallRecord } from '../types/run.js';
import type { Toolset } from '../types/toolset.js';
import type { CaseResult } from '../types/verdict.js';
import type { ExporterSpec } from './exporter-spec.js';
import type { RenderInput } from './render.js';

export type ModelTools = ModelCallRecord['request']['tools'];

export interface WorkerInit {
  config: TelemetryConfig;
  exporter: { spec: ExporterSpec; destination: string };
  version?: string;
}

/** To the worker, in order; the worker handles one at a time. */
export type ToWorker =
  /** A toolset, sent once and then named by id (every case of a suite shares it). */
  | { type: 'toolset'; id: number; toolset: Toolset }
  /** A model call's tool list, sent once and then named by id (the layout hands every call the same array). */
  | { type: 'tools'; id: number; tools: ModelTools }
  /** A case's aggregate, sent once for all its samples (it holds every sample's verdict). Replaces the last one. */
  | { type: 'result'; result: CaseResult }
  /**
   * Render and export one case sample with these ids: the trace id and the span ids in the order render.ts
   * starts spans (root, one per model call, one per tool call).
   */
  | {
      type: 'case';
      input: Omit<RenderInput, 'captureContent' | 'toolset'>;
      toolsetId?: number;
      /** The input's `result` is the last 'result' message's. */
      lastResult?: true;
      /** Per model call of `input.run`: the id of its tool list, left out of the call; 0 when sent inline. */
      toolsIds?: number[];
      traceId: string;
      spanIds: string[];
    }
  | { type: 'flush' | 'shutdown'; seq: number };

export type FromWorker =
  /** This many more case messages were handled (coalesced). */
  | { type: 'ack'; count: number }
  | { type: 'warning'; message: string }
  /** The flush or shutdown request `seq` finished. */
  | { type: 'done'; seq: number };
