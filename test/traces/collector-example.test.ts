// The example Collector configs stay wired up: every pipeline names defined components, and the pieces
// the README promises (file archive, trace-id routing, verdict metrics, loopback serve) are there.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/run-cli.js';

type Config = Record<string, Record<string, unknown>> & {
  service: { pipelines: Record<string, { receivers: string[]; processors?: string[]; exporters: string[] }> };
};

function load(name: string): Config {
  return parse(readFileSync(join(REPO_ROOT, 'examples/collector', name), 'utf8')) as Config;
}

function checkWiring(c: Config): string[] {
  const problems: string[] = [];
  const defined = (kind: string, id: string) => (c[kind] ?? {})[id] !== undefined || (c.connectors ?? {})[id] !== undefined;
  for (const [name, p] of Object.entries(c.service.pipelines)) {
    for (const r of p.receivers) if (!defined('receivers', r)) problems.push(`${name}: receiver ${r}`);
    for (const x of p.processors ?? []) if (!defined('processors', x)) problems.push(`${name}: processor ${x}`);
    for (const e of p.exporters) if (!defined('exporters', e)) problems.push(`${name}: exporter ${e}`);
  }
  return problems;
}

describe('examples/collector', () => {
  it('gateway: archives with the file exporter, routes by trace id, turns verdicts into metrics', () => {
    const c = load('gateway.yaml');
    expect(checkWiring(c)).toEqual([]);
    expect(c.exporters!['file/traces']).toMatchObject({ format: '${env:GATEWAY_ARCHIVE_FORMAT:-json}' });
    expect(c.exporters!['load_balancing/scorers']).toMatchObject({ routing_key: 'traceID' });
    const dims = (c.connectors!['span_metrics/verdicts'] as { dimensions: Array<{ name: string }> }).dimensions.map((d) => d.name);
    expect(dims).toContain('runspec.eval.category');
    expect(c.service.pipelines['traces/in']!.exporters).toContain('load_balancing/scorers');
    expect(c.service.pipelines['logs/in']!.exporters).toContain('load_balancing/scorers');
    expect(c.service.pipelines['metrics/verdicts']!.receivers).toEqual(['span_metrics/verdicts']);
    // Verdict spans must not be routed back to the scorers.
    expect(c.service.pipelines['traces/verdicts']!.receivers).toEqual(['otlp/verdicts']);
  });

  it('every address, path and interval is an ${env:NAME:-default} placeholder (nothing binds or writes by fixed value)', () => {
    const text = readFileSync(join(REPO_ROOT, 'examples/collector/gateway.yaml'), 'utf8');
    const fixed = text
      .split('\n')
      .filter((l) => !/^\s*#/.test(l))
      .filter(
        (l) =>
          /^\s*-?\s*(endpoint|path|flush_interval|metrics_flush_interval|timeout|max_megabytes|initial_interval|max_interval|max_elapsed_time|queue_size|port|host)\s*:/.test(
            l,
          ) || /^\s*- [a-z0-9.-]+:\d+/.test(l),
      )
      .filter((l) => !l.includes('${env:'));
    expect(fixed).toEqual([]);
  });

  it('routes straight to `serve --grpc` replicas on 4317 (no sidecar)', () => {
    const c = load('gateway.yaml');
    const lb = c.exporters!['load_balancing/scorers'] as { resolver: { static: { hostnames: string[] } } };
    expect(lb.resolver.static.hostnames.every((h) => /^\$\{env:GATEWAY_SCORER_\d:-scorer-\d:4317\}$/.test(h))).toBe(true);
    expect(readFileSync(join(REPO_ROOT, 'examples/collector/README.md'), 'utf8')).toContain('serve --host 0.0.0.0 --grpc 4317');
  });
});
