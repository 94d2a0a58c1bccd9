// The ceiling of `serve` ingest: the floor (bench/_receiver.mjs: node:http, gunzip, the same protobufjs
// decoder) plus the least work that writes the lines `serve` writes for the bench's traces
// (bench/_ceiling-lines.mjs, hand-written, nothing from dist/ or src/): each request's spans grouped by trace,
// two verdict lines per trace group (a final line each: none of the provisional ones `serve` writes first),
// queued on the stream of the file named by argv[2] before the 200 goes out. It keeps
// nothing across requests, so a trace that a 512-span batch cuts in two gets lines for each part. Prints
// `PORT <n>`; on SIGTERM ends the file (flushed and closed), then prints `SPANS <n>` (spans decoded) and
// `LINES <n>` (lines written) and exits.
import { createWriteStream } from 'node:fs';
import { verdictLines } from './_ceiling-lines.mjs';
import { receive } from './_receiver.mjs';

const file = createWriteStream(process.argv[2], { flags: 'a' });
// protobufjs decodes bytes as Buffers, and an absent field (a root's parent) as its default, an empty array.
const hex = (id) => (id.length === 0 ? '' : id.toString('hex'));
let lines = 0;
receive(
  (request) => {
    const out = [];
    verdictLines(request, hex, out);
    lines += out.length;
    file.write(out.join(''));
  },
  (spans) =>
    new Promise((resolve) =>
      file.end(() => {
        process.stdout.write(`SPANS ${spans}\nLINES ${lines}\n`);
        resolve();
      }),
    ),
);
