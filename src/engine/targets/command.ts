// A command target: one process per case, in any language. The prompt goes on stdin (or in an environment
// variable), the whole input as JSON in RUNSPEC_INPUT, and the process is told where its spans go:
// TRACEPARENT (the case's root span) and OTEL_EXPORTER_OTLP_ENDPOINT (the run's receiver on loopback).
// The argv runs without a shell.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { AgentReply, AgentTarget } from './types.js';
import { redactEchoedSecrets, redactSecrets } from '../../core/redact.js';

export interface CommandTargetOptions {
  name: string;
  command: string[];
  /** @default 'stdin' */
  prompt?: 'stdin' | 'env';
  /** @default 'RUNSPEC_PROMPT' */
  promptEnv?: string;
  cwd?: string;
  projectDir: string;
  /** The run's environment: the process inherits it, plus the variables above. */
  env: Readonly<Record<string, string | undefined>>;
  otlpEndpoint: string;
  defaults: AgentTarget['defaults'];
  quietMs: number;
  traceTimeoutMs: number;
  /** Largest stdout kept (the rest is dropped). @default 1 MiB */
  maxOutputBytes?: number;
}

/** @example openCommandTarget({ name: 'py', command: ['python', 'agent.py'], projectDir, env, otlpEndpoint, defaults: {}, quietMs: 500, traceTimeoutMs: 30_000 }) */
export function openCommandTarget(o: CommandTargetOptions): AgentTarget {
  const maxOut = o.maxOutputBytes ?? 1024 * 1024;
  const scrub = (text: string): string => redactEchoedSecrets(redactSecrets(text, o.env));
  return {
    name: o.name,
    kind: 'command',
    defaults: o.defaults,
    quietMs: o.quietMs,
    traceTimeoutMs: o.traceTimeoutMs,
    invoke({ case: c, sample, input, traceparent, signal }) {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(o.env)) if (v !== undefined) env[k] = v;
      Object.assign(env, {
        TRACEPARENT: traceparent,
        OTEL_EXPORTER_OTLP_ENDPOINT: o.otlpEndpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        RUNSPEC_CASE_ID: c.id,
        RUNSPEC_SAMPLE: String(sample),
        RUNSPEC_INPUT: JSON.stringify(input),
      });
      // Exporters given our endpoint must not also send to a traces-specific one the user set.
      delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
      if (o.prompt === 'env') env[o.promptEnv ?? 'RUNSPEC_PROMPT'] = input.prompt;
      return new Promise<AgentReply>((done, fail) => {
        const child = spawn(o.command[0]!, o.command.slice(1), { cwd: resolve(o.projectDir, o.cwd ?? '.'), env, stdio: ['pipe', 'pipe', 'pipe'], signal });
        const out: Buffer[] = [];
        let outBytes = 0;
        let errTail = '';
        child.stdout.on('data', (b: Buffer) => {
          if (outBytes < maxOut) out.push(b.subarray(0, maxOut - outBytes));
          outBytes += b.length;
        });
        child.stderr.on('data', (b: Buffer) => {
          errTail = (errTail + b.toString('utf8')).slice(-2000);
        });
        child.on('error', (err) => {
          if (signal.aborted) fail(err);
          else done({ error: { code: 'TARGET', message: scrub(`${o.command[0]}: ${err.message}`) } });
        });
        child.on('close', (code, sig) => {
          const output = Buffer.concat(out).toString('utf8');
          if (code === 0) return done({ output });
          const last = errTail.trim().split('\n').pop() ?? '';
          // The command line and the agent's stderr may hold a key: both are redacted like any printed value.
          done({ output, error: { code: 'TARGET', message: scrub(`${o.command.join(' ')} exited with ${code ?? sig}${last ? `: ${last}` : ''}`) } });
        });
        child.stdin.on('error', () => {});
        child.stdin.end(o.prompt === 'env' ? '' : input.prompt);
      });
    },
  };
}
