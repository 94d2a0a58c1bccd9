// A real Prometheus (Debian's `prometheus` package; .ci/run installs it) for the integration tier: its own
// temp storage, a free loopback port, 1 s scrape and rule evaluation, the rule files given loaded as they
// are. Read back through its HTTP API (/api/v1/alerts, /api/v1/query).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { freePort, pollUntil, startProc, type Proc } from './collector.js';

const run = promisify(execFile);

export interface ScrapeTarget {
  job: string;
  /** host:port */
  target: string;
  metricsPath?: string;
  /** Sent as `Authorization: Bearer …`. */
  bearerToken?: string;
}

export interface PrometheusAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  value: string;
}

export interface RunningPrometheus extends Proc {
  url: string;
  alerts(): Promise<PrometheusAlert[]>;
  /** An instant query's vector: labels and value per series. */
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: number }>>;
}

/** The version line of `prometheus --version` (e.g. "prometheus, version 2.42.0+ds …"). */
export async function prometheusVersion(): Promise<string> {
  const { stdout, stderr } = await run('prometheus', ['--version']);
  return (stdout || stderr).split('\n')[0]!.trim();
}

export async function startPrometheus(opts: { dir: string; ruleFiles: string[]; targets: ScrapeTarget[] }): Promise<RunningPrometheus> {
  mkdirSync(opts.dir, { recursive: true });
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
    rule_files: opts.ruleFiles,
    scrape_configs: opts.targets.map((t) => ({
      job_name: t.job,
      metrics_path: t.metricsPath ?? '/metrics',
      static_configs: [{ targets: [t.target] }],
      ...(t.bearerToken ? { authorization: { type: 'Bearer', credentials: t.bearerToken } } : {}),
    })),
  };
  const file = join(opts.dir, 'prometheus.yml');
  writeFileSync(file, stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = startProc(
    'prometheus',
    [`--config.file=${file}`, `--storage.tsdb.path=${join(opts.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { env: { PATH: process.env.PATH ?? '', HOME: opts.dir } },
  );
  await pollUntil(
    'Prometheus to be ready',
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`prometheus exited:\n${proc.output()}`);
      const r = await fetch(`${url}/-/ready`);
      return r.ok ? true : undefined;
    },
    30_000,
  ).catch(async (err: Error) => {
    await proc.stop('SIGKILL');
    throw new Error(`${err.message}\n${proc.output()}`);
  });
  const api = async <T>(path: string): Promise<T> => {
    const r = await fetch(`${url}${path}`);
    const body = (await r.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${path}: ${body.error ?? r.status}`);
    return body.data;
  };
  return {
    ...proc,
    url,
    alerts: async () => (await api<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts,
    query: async (expr) => {
      const data = await api<{ result: Array<{ metric: Record<string, string>; value: [number, string] }> }>(`/api/v1/query?query=${encodeURIComponent(expr)}`);
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
  };
}
