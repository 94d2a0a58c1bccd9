// The floor of `score -`: read JSON lines from stdin and JSON.parse each, nothing else.
let carry = '';
let lines = 0;
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) {
  const text = carry + chunk;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    if (JSON.parse(text.slice(start, nl)).resourceSpans) lines++;
    start = nl + 1;
  }
  carry = text.slice(start);
}
process.stderr.write(`lines ${lines}\n`);
