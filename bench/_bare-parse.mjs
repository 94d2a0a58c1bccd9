// The floor of `score -`: read JSON lines from stdin and JSON.parse each, nothing else. Prints
// `TRACES <n>` (the traces in the parsed requests) on stderr.
let carry = '';
let traces = 0;
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) {
  const text = carry + chunk;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    traces += JSON.parse(text.slice(start, nl)).resourceSpans[0].scopeSpans[0].spans.length / 3;
    start = nl + 1;
  }
  carry = text.slice(start);
}
process.stderr.write(`TRACES ${traces}\n`);
