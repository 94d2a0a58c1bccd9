// Score the model answers gen.py wrote (with BFCL's own verdicts) through `import bfcl` + scoreRun, and
// report how often the two agree. Usage: BFCL_DIR=… node scripts/bfcl-crosscheck/ours.mjs crosscheck.jsonl
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = new URL('../../dist/', import.meta.url);
const { importBfcl } = await import(new URL('fixtures/bfcl.js', dist).href);
const { loadFixtureText } = await import(new URL('fixtures/load.js', dist).href);
const { parseToolsetText } = await import(new URL('toolset/file.js', dist).href);
const { scoreRun } = await import(new URL('scoring/verdict.js', dist).href);

const data = join(process.env.BFCL_DIR ?? '.', 'bfcl_eval', 'data');
const categories = ['simple_python', 'multiple', 'parallel', 'parallel_multiple', 'live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple'];
const cases = new Map();
for (const cat of categories) {
  const questions = join(data, `BFCL_v4_${cat}.json`);
  const answers = join(data, 'possible_answer', `BFCL_v4_${cat}.json`);
  const { suite } = importBfcl({
    questions: readFileSync(questions, 'utf8'),
    questionsFile: questions,
    answers: readFileSync(answers, 'utf8'),
    answersFile: answers,
  });
  for (const s of loadFixtureText(JSON.stringify(suite), { file: `${cat}.json` })) for (const c of s.cases) cases.set(c.id, c);
}

const byVariant = {};
const disagreements = [];
for (const line of readFileSync(process.argv[2] ?? 'crosscheck.jsonl', 'utf8')
  .split('\n')
  .filter(Boolean)) {
  const x = JSON.parse(line);
  if (x.bfcl === null) continue;
  const c = cases.get(x.id);
  const toolset = parseToolsetText(JSON.stringify(c.tools), `${x.id}: tools`, 'json');
  const records = x.calls.map(([name, args], i) => ({
    turn: 0,
    modelCallIndex: 0,
    call: { id: `c${i}`, name, arguments: args },
    startTimeMs: 0,
    endTimeMs: 0,
    executed: false,
  }));
  const run = {
    caseId: c.id,
    sample: 0,
    mode: 'decision',
    provider: 'crosscheck',
    startTimeMs: 0,
    endTimeMs: 0,
    modelCalls: [],
    toolCalls: records,
    status: 'ok',
    usage: {},
    terminal: records[0],
    toolMode: 'dedup',
  };
  const verdict = scoreRun(c, run, { toolset });
  const v = (byVariant[x.variant] ??= { n: 0, agree: 0 });
  v.n++;
  if (verdict.pass === x.bfcl) v.agree++;
  else disagreements.push(`${x.id} ${x.variant}: BFCL ${x.bfcl ? 'valid' : 'invalid'}, ours ${verdict.category}: ${verdict.reason}`);
}
const n = Object.values(byVariant).reduce((a, v) => a + v.n, 0);
const agree = Object.values(byVariant).reduce((a, v) => a + v.agree, 0);
process.stdout.write(`agreement ${agree}/${n} (${((100 * agree) / n).toFixed(2)}%)\n`);
for (const [k, v] of Object.entries(byVariant)) process.stdout.write(`  ${k}: ${v.agree}/${v.n}\n`);
for (const d of disagreements.slice(0, 50)) process.stdout.write(`${d}\n`);
