// The floor of a run: an undici loop that sends the same request bodies as `runspec-eval run` (the body
// `run` sent, captured by the fake model, with each case's prompt put in its user message; serialised per
// request, the answer parsed) with CONCURRENCY in flight, and nothing else.
//   node bench/_bare-loop.mjs URL TEMPLATE.json CASES CONCURRENCY
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { caseOf } from './_cases.mjs';

const [url, templateFile, n, conc] = process.argv.slice(2);
const template = JSON.parse(readFileSync(templateFile, 'utf8'));
const user = template.messages.findIndex((m) => m.role === 'user');
if (user < 0 || typeof template.messages[user].content !== 'string') throw new Error('bare loop: the template has no user message');
const cases = Number(n);
const concurrency = Number(conc ?? 8);
const origin = new URL(url);
const path = `${origin.pathname.replace(/\/$/, '')}/chat/completions`;
const pool = new Pool(origin.origin, { connections: concurrency });
let next = 0;
let calls = 0;
const lane = async () => {
  while (next < cases) {
    template.messages[user].content = caseOf(next++).prompt;
    const res = await pool.request({
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify(template),
    });
    const json = await res.body.json();
    if (json.choices[0].message.tool_calls.length > 0) calls++;
  }
};
await Promise.all(Array.from({ length: concurrency }, lane));
await pool.close();
if (calls !== cases) throw new Error(`bare loop: ${calls} tool calls for ${cases} cases`);
