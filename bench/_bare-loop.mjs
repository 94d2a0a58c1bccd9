// The floor of a run: an undici loop that sends the same requests as `runspec-eval run` (same body,
// serialised per request, response parsed) with CONCURRENCY in flight, and nothing else.
//   node bench/_bare-loop.mjs URL REQUESTS.json CONCURRENCY
// REQUESTS.json: { template: body without messages, system, prompts: [...] }.
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';

const [url, bodiesFile, conc] = process.argv.slice(2);
const { template, system, prompts } = JSON.parse(readFileSync(bodiesFile, 'utf8'));
const concurrency = Number(conc ?? 8);
const origin = new URL(url);
const pool = new Pool(origin.origin, { connections: concurrency });
let next = 0;
let calls = 0;
const lane = async () => {
  while (next < prompts.length) {
    const body = { ...template, messages: [{ role: 'system', content: system }, { role: 'user', content: prompts[next++] }] };
    const res = await pool.request({ path: `${origin.pathname.replace(/\/$/, '')}/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: JSON.stringify(body) });
    const json = await res.body.json();
    if (json.choices[0].message.tool_calls.length > 0) calls++;
  }
};
await Promise.all(Array.from({ length: concurrency }, lane));
await pool.close();
if (calls !== prompts.length) throw new Error(`bare loop: ${calls} of ${prompts.length}`);
