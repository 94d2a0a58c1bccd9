// The gateway's load_balancing exporter (examples/collector/gateway.yaml as shipped, only environment
// variables set) routing by trace id to three `runspec-eval serve --grpc` replicas (the built CLI, as
// processes): their verdicts together equal one `score` of the same traces; and with a replica restarted
// mid-stream, no trace gets two final verdicts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { request } from '../traces/_otlp.js';
import type { OtlpTraceRequest } from '../../src/traces/otlp-types.js';
import { GATEWAY, ensureCollector, freePort, pollUntil, startCollector, type CollectorBuild, type RunningCollector } from './setup/collector.js';
import { agentSpans, makeProject, mixedCorpus, postTraces, scoreCli, startServe, traceId, verdictSet, type ServeProc } from './setup/verdict-corpus.js';

let build: CollectorBuild;
let project: { dir: string; env: Record<string, string> };
let sink: OtlpSink;

beforeAll(async () => {
  build = await ensureCollector();
  project = makeProject('runspec-it-lb-');
  sink = await startOtlpSink();
});

afterAll(async () => {
  await sink?.close();
  if (project) rmSync(project.dir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;

/** The key a final verdict is unique by: trace, and the case or rule that judged it. */
const keyOf = (l: Line): string => `${String(l.traceId)} ${l.rule !== undefined ? `rule:${String(l.rule)}` : `case:${String(l.case)}`}`;

/**
 * The final verdict lines of one replica's output. With the revision model a line says `final`; before it,
 * a line with `supersedes` replaces that trace's earlier lines, so the last judgement of a trace is final.
 * `late` lines are never verdicts.
 */
function finalLines(lines: Line[]): Line[] {
  if (lines.some((l) => 'final' in l)) return lines.filter((l) => l.final === true && l.kind !== 'late');
  const byTrace = new Map<string, Line[]>();
  for (const l of lines) {
    const t = String(l.traceId);
    if (l.supersedes === true || !byTrace.has(t)) byTrace.set(t, []);
    byTrace.get(t)!.push(l);
  }
  return [...byTrace.values()].flat();
}

async function startGateway(replicas: number[], extra: Record<string, string> = {}): Promise<{ collector: RunningCollector; http: string }> {
  const [grpc, http, verdicts, prom] = await Promise.all(Array.from({ length: 4 }, () => freePort()));
  const collector = await startCollector(build.binary, GATEWAY, {
    HOME: project.env.HOME!,
    GATEWAY_OTLP_GRPC_ENDPOINT: `127.0.0.1:${grpc}`,
    GATEWAY_OTLP_HTTP_ENDPOINT: `127.0.0.1:${http}`,
    GATEWAY_VERDICTS_ENDPOINT: `127.0.0.1:${verdicts}`,
    GATEWAY_PROMETHEUS_ENDPOINT: `127.0.0.1:${prom}`,
    GATEWAY_ARCHIVE_DIR: join(project.dir, `archive-${http}`),
    GATEWAY_SCORER_1: `127.0.0.1:${replicas[0]}`,
    GATEWAY_SCORER_2: `127.0.0.1:${replicas[1]}`,
    GATEWAY_SCORER_3: `127.0.0.1:${replicas[2]}`,
    GATEWAY_BACKEND_ENDPOINT: sink.url,
    GATEWAY_SCORER_RETRY_INITIAL: '200ms',
    GATEWAY_SCORER_RETRY_MAX: '1s',
    ...extra,
  });
  return { collector, http: `http://127.0.0.1:${http}` };
}

const grpcPort = (s: ServeProc): number => Number(new URL(s.grpcUrl!.replace('grpc:', 'http:')).port);

describe('load_balancing by trace id to three serve --grpc replicas', () => {
  it('the replicas together give the verdicts of one score', async () => {
    const corpus = mixedCorpus(1, 24);
    writeFileSync(join(project.dir, 'lb.jsonl'), corpus.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const direct = await scoreCli(project.dir, project.env, ['lb.jsonl']);
    const expected = verdictSet(direct.stdout);
    const replicas = await Promise.all([0, 1, 2].map(() => startServe(project.dir, project.env, ['--port', '0', '--grpc', '0', '--quiet-ms', '300'])));
    let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
    try {
      gateway = await startGateway(replicas.map(grpcPort));
      for (const r of corpus) await postTraces(gateway.http, r);
      await pollUntil(
        'every final verdict on some replica',
        () => (replicas.reduce((n, r) => n + finalLines(r.lines()).length, 0) >= expected.length ? true : undefined),
        60_000,
      );
    } finally {
      await gateway?.collector.stop();
      await Promise.all(replicas.map((r) => r.stop()));
    }
    expect(gateway!.collector.deprecations()).toEqual([]);
    const perReplica = replicas.map((r) => finalLines(r.lines()));
    // Routing spread the traces (24 trace ids over three replicas) and kept each trace whole on one replica.
    expect(perReplica.filter((ls) => ls.length > 0).length).toBe(3);
    const owners = new Map<string, Set<number>>();
    perReplica.forEach((ls, i) => ls.forEach((l) => owners.set(String(l.traceId), (owners.get(String(l.traceId)) ?? new Set()).add(i))));
    expect([...owners.values()].filter((s) => s.size > 1)).toEqual([]);
    expect(
      verdictSet(
        perReplica
          .flat()
          .map((l) => JSON.stringify(l))
          .join('\n'),
      ),
    ).toEqual(expected);
  });

  it('a replica restarted mid-stream: every trace gets at most one final verdict, whole ones exactly one', async () => {
    const replicas: ServeProc[] = await Promise.all(
      [0, 1, 2].map(() => startServe(project.dir, project.env, ['--port', '0', '--grpc', '0', '--quiet-ms', '300'])),
    );
    const ports = replicas.map(grpcPort);
    const outputs: Line[][] = [];
    let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
    const before = mixedCorpus(100, 12);
    const during = mixedCorpus(200, 12);
    const after = mixedCorpus(300, 12);
    // Straddling traces: children exported before the kill, the root (it ends last) after the restart.
    // 18 of them, so some land on the restarted replica whatever the ring (all miss it with p = (2/3)^18 < 0.1%).
    const straddling = Array.from({ length: 18 }, (_, i) => 400 + i);
    try {
      gateway = await startGateway(ports);
      const total = (): number => replicas.reduce((n, r) => n + finalLines(r.lines()).length, 0);
      for (const r of before) await postTraces(gateway.http, r);
      await pollUntil('verdicts of the traces before the restart', () => (total() >= before.length * 2 ? true : undefined), 60_000);
      for (const t of straddling) {
        const spans = agentSpans({
          t,
          prompt: 'look for todo markers',
          calls: [{ name: 'grep', args: { pattern: 'TODO' } }],
          root: { 'runspec.eval.case_id': 'find-todos' },
        });
        await postTraces(gateway.http, request(spans.slice(1)));
      }
      // Let the gateway deliver the children, then restart replica 2 (SIGTERM: it judges what it holds).
      await new Promise((r) => setTimeout(r, 1000));
      const old = replicas[1]!;
      await old.stop('SIGTERM');
      outputs.push(old.lines());
      for (const r of during) await postTraces(gateway.http, r);
      for (const t of straddling) {
        const spans = agentSpans({
          t,
          prompt: 'look for todo markers',
          calls: [{ name: 'grep', args: { pattern: 'TODO' } }],
          root: { 'runspec.eval.case_id': 'find-todos' },
        });
        await postTraces(gateway.http, request(spans.slice(0, 1)));
      }
      replicas[1] = await startServe(project.dir, project.env, ['--port', '0', '--grpc', String(ports[1]), '--quiet-ms', '300']);
      for (const r of after) await postTraces(gateway.http, r);
      const wholeIds = new Set([...before, ...during, ...after].map((r) => rootTraceId(r)));
      await pollUntil(
        'verdicts of every whole trace',
        () => {
          const seen = new Set([...outputs, ...replicas.map((r) => r.lines())].flatMap(finalLines).map((l) => String(l.traceId)));
          return [...wholeIds].every((id) => seen.has(id)) ? true : undefined;
        },
        90_000,
      );
    } finally {
      await gateway?.collector.stop();
      await Promise.all(replicas.map((r) => r.stop()));
    }
    for (const r of replicas) outputs.push(r.lines());
    const [killed, , restarted] = [outputs[0]!, outputs[1]!, outputs[2]!];
    // The restart was exercised: the stopped replica held straddling traces (judged at shutdown), and the
    // share routed to it while it was down reached the restarted process (queued and retried).
    const straddlingIds = new Set(straddling.map((t) => traceId(t)));
    expect(killed.some((l) => straddlingIds.has(String(l.traceId)))).toBe(true);
    const duringIds = new Set(during.map(rootTraceId));
    expect(restarted.some((l) => duringIds.has(String(l.traceId)))).toBe(true);
    expect(gateway!.collector.output()).toContain('Exporting failed. Will retry');
    const finals = outputs.flatMap(finalLines);
    const count = new Map<string, number>();
    for (const l of finals) count.set(keyOf(l), (count.get(keyOf(l)) ?? 0) + 1);
    const twice = [...count].filter(([, n]) => n > 1).map(([k]) => k);
    expect(twice, 'traces with two final verdicts').toEqual([]);
    // Whole traces: exactly the verdicts one `score` gives them.
    const whole = [...before, ...during, ...after];
    writeFileSync(join(project.dir, 'restart.jsonl'), whole.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const direct = verdictSet((await scoreCli(project.dir, project.env, ['restart.jsonl'])).stdout);
    const wholeIds = new Set(whole.map((r) => rootTraceId(r)));
    const got = verdictSet(
      finals
        .filter((l) => wholeIds.has(String(l.traceId)))
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    expect(got).toEqual(direct);
    // A straddling trace: one final verdict, or none (its parts judged nowhere as a whole), never two.
    for (const t of straddling) {
      const lines = finals.filter((l) => l.traceId === traceId(t));
      const keys = new Set(lines.map(keyOf));
      expect(keys.size).toBe(lines.length);
    }
  });
});

/** The trace id of a one-trace request. */
function rootTraceId(r: OtlpTraceRequest): string {
  return r.resourceSpans?.[0]?.scopeSpans?.[0]?.spans?.[0]?.traceId ?? '';
}
