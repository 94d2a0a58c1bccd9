#!/usr/bin/env node
// Re-make test/traces/fixtures/zstd/*.zst with Debian's `zstd` tool (npm run build first: the proto layout
// is encoded by dist/traces/otlp-proto.js). Inputs are the producer fixtures (test/traces/fixtures/producers/).
//
//   whole.jsonl.zst        JSON lines compressed whole (`zstd file`)
//   frames.jsonl.zst       two zstd frames with a skippable frame between them (`cat a.zst skip b.zst`)
//   skippable-first.jsonl.zst  the same frames after a leading skippable frame
//   native-proto.zst       the Collector file exporter's native compression (exporter.file.nativeCompression):
//                          4-byte big-endian length-prefixed protobuf requests, the stream compressed whole
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeTraceRequest } from '../dist/traces/otlp-proto.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'test/traces/fixtures/producers/ai-sdk-6-content-on.jsonl');
const OUT = join(ROOT, 'test/traces/fixtures/zstd');
mkdirSync(OUT, { recursive: true });
const zstd = (input) => execFileSync('zstd', ['-q', '-c', '-19', '--no-check'], { input });

const text = readFileSync(SRC);
writeFileSync(join(OUT, 'whole.jsonl.zst'), zstd(text));

const lines = text.toString('utf8').split('\n').filter(Boolean);
const half = Math.ceil(lines.length / 2);
const first = zstd(Buffer.from(lines.slice(0, half).join('\n') + '\n'));
const second = zstd(Buffer.from(lines.slice(half).join('\n') + '\n'));
const payload = Buffer.from('runspec-eval skippable frame');
const skippable = Buffer.alloc(8 + payload.length);
skippable.writeUInt32LE(0x184d2a50, 0);
skippable.writeUInt32LE(payload.length, 4);
payload.copy(skippable, 8);
writeFileSync(join(OUT, 'frames.jsonl.zst'), Buffer.concat([first, skippable, second]));
writeFileSync(join(OUT, 'skippable-first.jsonl.zst'), Buffer.concat([skippable, first, second]));

const framed = Buffer.concat(
  lines.map((l) => {
    const body = Buffer.from(encodeTraceRequest(JSON.parse(l)));
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length, 0);
    return Buffer.concat([len, body]);
  }),
);
writeFileSync(join(OUT, 'native-proto.zst'), zstd(framed));
process.stdout.write(`wrote ${OUT}\n`);
