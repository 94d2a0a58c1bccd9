// The ceiling of `score -`: the least program that writes the lines `score` writes for the bench's traces
// (bench/_ceiling-lines.mjs, hand-written, nothing from dist/ or src/). It reads stdin as the floor does
// (bench/_bare-parse.mjs: the same chunks, the same line splitting, one JSON.parse per line), writes two
// verdict lines per trace in one write per chunk read, and waits for stdout to drain when it asks to.
// Prints `TRACES <n>` and `LINES <n>` on stderr.
import { verdictLines } from './_ceiling-lines.mjs';

const hex = (id) => id ?? '';
let carry = '';
let traces = 0;
let lines = 0;
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) {
  const text = carry + chunk;
  const out = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    traces += verdictLines(JSON.parse(text.slice(start, nl)), hex, out);
    start = nl + 1;
  }
  carry = text.slice(start);
  lines += out.length;
  if (out.length > 0 && !process.stdout.write(out.join(''))) await new Promise((resolve) => process.stdout.once('drain', resolve));
}
process.stderr.write(`TRACES ${traces}\nLINES ${lines}\n`);
