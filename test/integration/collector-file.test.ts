// A real Collector (built from examples/collector/builder-config.yaml) running examples/collector/gateway.yaml
// as shipped, only environment variables set: OTLP in → the file exporter in every format a user can pick,
// with rotation → `runspec-eval score` (the built CLI, as a process) on the archive gives the verdicts that
// scoring the same traces directly gives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOtlpSink, type OtlpSink } from '../helpers/otlp-sink.js';
import { GATEWAY, ensureCollector, freePort, startCollector, type CollectorBuild } from './setup/collector.js';
import { makeProject, mixedCorpus, postTraces, scoreCli, verdictSet } from './setup/verdict-corpus.js';

let build: CollectorBuild;
let project: { dir: string; env: Record<string, string> };
let sink: OtlpSink;
let expected: string[];
// 12 traces, each carrying 150 KB of random bytes (base64): ~1.8 MB even compressed, so a 1 MB rotation
// limit rotates in every format. Each batch must stay under that limit: the exporter rejects (drops) a
// single write larger than max_megabytes, so the test sends one trace per batch.
const corpus = mixedCorpus(1, 12, { padEvery: 1, padBytes: 150_000 });

beforeAll(async () => {
  build = await ensureCollector();
  project = makeProject('runspec-it-file-');
  sink = await startOtlpSink();
  writeFileSync(join(project.dir, 'direct.jsonl'), corpus.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const direct = await scoreCli(project.dir, project.env, ['direct.jsonl']);
  expect(direct.stderr).toContain('traces: 12');
  expected = verdictSet(direct.stdout);
  expect(expected.length).toBe(12 * 2);
});

afterAll(async () => {
  await sink?.close();
  if (project) rmSync(project.dir, { recursive: true, force: true });
});

/** Every format the file exporter offers a user, each rotated at 1 MB. */
const FORMATS = [
  { name: 'JSON lines', format: 'json', compression: '', native: false },
  { name: 'JSON, zstd per message', format: 'json', compression: 'zstd', native: false },
  { name: 'protobuf (length-prefixed)', format: 'proto', compression: '', native: false },
  { name: 'protobuf, zstd per message', format: 'proto', compression: 'zstd', native: false },
  { name: 'JSON, native zstd stream (feature gate)', format: 'json', compression: 'zstd', native: true },
  { name: 'protobuf, native zstd stream (feature gate)', format: 'proto', compression: 'zstd', native: true },
];

describe('Collector file exporter → score', () => {
  it.each(FORMATS)('$name: the archive scores as the traces sent directly', async ({ format, compression, native }) => {
    const archive = join(project.dir, `archive-${format}-${compression || 'plain'}${native ? '-native' : ''}`);
    mkdirSync(archive);
    const [grpc, http, verdicts, prom, s1, s2, s3] = await Promise.all(Array.from({ length: 7 }, () => freePort()));
    const env: Record<string, string> = {
      HOME: project.env.HOME!,
      GATEWAY_OTLP_GRPC_ENDPOINT: `127.0.0.1:${grpc}`,
      GATEWAY_OTLP_HTTP_ENDPOINT: `127.0.0.1:${http}`,
      GATEWAY_VERDICTS_ENDPOINT: `127.0.0.1:${verdicts}`,
      GATEWAY_PROMETHEUS_ENDPOINT: `127.0.0.1:${prom}`,
      GATEWAY_ARCHIVE_DIR: archive,
      GATEWAY_ARCHIVE_FORMAT: format,
      GATEWAY_ARCHIVE_COMPRESSION: compression,
      GATEWAY_ARCHIVE_MAX_MEGABYTES: '1',
      GATEWAY_ARCHIVE_FLUSH_INTERVAL: '100ms',
      // Nothing listens there: the load balancer's share waits in its queue, which does not hold up the archive.
      GATEWAY_SCORER_1: `127.0.0.1:${s1}`,
      GATEWAY_SCORER_2: `127.0.0.1:${s2}`,
      GATEWAY_SCORER_3: `127.0.0.1:${s3}`,
      GATEWAY_BACKEND_ENDPOINT: sink.url,
      GATEWAY_BATCH_TIMEOUT: '10ms',
    };
    const collector = await startCollector(build.binary, GATEWAY, env, native ? ['--feature-gates=exporter.file.nativeCompression'] : []);
    try {
      // One request per trace, as agents send them: the exporter writes one message per batch.
      for (const r of corpus) {
        await postTraces(`http://127.0.0.1:${http}`, r);
        // Past the batch timeout, so each trace is its own batch (one write).
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
    } finally {
      // Shutdown drains the batch processor and flushes and closes the files.
      await collector.stop();
    }
    expect(collector.deprecations()).toEqual([]);
    expect(collector.output()).not.toContain('Rejecting data');
    const files = readdirSync(archive).filter((f) => f.startsWith('traces'));
    // Rotation happened: the live file and at least one rotated sibling.
    expect(files.length, `files: ${files.join(', ')}`).toBeGreaterThan(1);
    const scored = await scoreCli(project.dir, project.env, [archive]);
    expect(scored.stderr).toContain('traces: 12');
    expect(verdictSet(scored.stdout)).toEqual(expected);
  });
});
