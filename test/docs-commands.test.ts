import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeModelServer } from './helpers/fake-openai.js';
import { REPO_ROOT, runCli } from './helpers/run-cli.js';
import { tempProject } from './e2e/_helpers.js';

// Every `runspec-eval` / `npx runspec-eval` line of a fenced shell block in README.md and examples/**/*.md
// runs here, in a throwaway project holding the examples (a link to examples/), evals/, rules.toml and
// traces/, with every provider pointed at a scripted server (RUNSPEC_BASE_URL). A documented command must
// not end in bad input (2) or trouble (3); verdicts (0 or 1) are the model's business.

/** Lines that cannot run here, and why. Keyed by file and the command as written. */
const SKIP: Record<string, string> = {
  // Long-running OTLP endpoints (they serve until stopped); test/traces/receiver*.test.ts covers serve.
  'README.md: runspec-eval serve --port 4318 --rules rules.toml': 'serves until stopped',
  'examples/collector/README.md: runspec-eval serve --host 0.0.0.0 --grpc 4317 --token-env OTLP_TOKEN --cases evals/ --rules rules.toml --export --otlp-endpoint http://gateway:4319/v1/traces --out /var/log/runspec/verdicts.jsonl':
    'serves until stopped (OTLP/gRPC on all interfaces), exports to a gateway host',
  // A collector's archive on that machine; README's `score traces/ --cases evals/ --rules rules.toml` runs the same command.
  'examples/collector/README.md: runspec-eval score /var/lib/otelcol/archive/ --cases evals/ --rules rules.toml --shard 1/4 --output jsonl > s1.jsonl':
    "a collector host's archive path",
  // Needs the agent server of the line above running on its fixed port; test/e2e/target-http.test.ts runs an http target end to end.
  'docs/targets.md: runspec-eval run cases.toml --target service': 'needs the example agent server running',
};

/** Docs whose commands run in a copy of an example project (their cwd), keyed by file. */
const PROJECT_DOCS: Record<string, string> = { 'docs/targets.md': 'examples/targets' };

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

interface DocCommand {
  file: string;
  line: number;
  /** As written, continuation lines joined, comment removed. */
  text: string;
  argv: string[];
  env: Record<string, string>;
  stdoutTo?: string;
}

function docFiles(): string[] {
  const out = ['README.md', ...Object.keys(PROJECT_DOCS)];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })) {
      const rel = join(dir, name.name);
      if (name.isDirectory()) walk(rel);
      else if (name.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('examples');
  return out;
}

/** Shell words of one line: quotes group, `#` at a word start begins a comment, `>` redirects stdout. */
function words(line: string): { words: string[]; stdoutTo?: string } {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: string | undefined;
  let stdoutTo: string | undefined;
  let redirect = false;
  const push = (): void => {
    if (!has) return;
    if (redirect) stdoutTo = cur;
    else out.push(cur);
    redirect = false;
    cur = '';
    has = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (/\s/.test(c)) push();
    else if (c === '#' && !has) break;
    else if (c === '>' && !has) redirect = true;
    else {
      cur += c;
      has = true;
    }
  }
  push();
  return { words: out, stdoutTo };
}

function docCommands(file: string): DocCommand[] {
  const lines = readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
  const found: DocCommand[] = [];
  let inShell = false;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*```(\w*)/.exec(lines[i]!);
    if (fence) {
      inShell = !inFence && SHELL_LANGS.has(fence[1]!);
      inFence = !inFence;
      continue;
    }
    if (!inShell) continue;
    const start = i;
    let text = lines[i]!.replace(/^\s*\$\s+/, '');
    while (text.trimEnd().endsWith('\\') && i + 1 < lines.length) text = `${text.trimEnd().slice(0, -1)} ${lines[++i]!.trim()}`;
    const parsed = words(text);
    const env: Record<string, string> = {};
    let w = parsed.words;
    while (w[0] && /^[A-Z_][A-Z0-9_]*=/.test(w[0])) {
      const [k, ...v] = w[0].split('=');
      env[k!] = v.join('=');
      w = w.slice(1);
    }
    if (w[0] === 'npx') w = w.slice(1);
    if (w[0] !== 'runspec-eval') continue;
    const written = [...w, ...(parsed.stdoutTo ? ['>', parsed.stdoutTo] : [])].join(' ');
    found.push({ file, line: start + 1, text: written, argv: w.slice(1), env, ...(parsed.stdoutTo ? { stdoutTo: parsed.stdoutTo } : {}) });
  }
  return found;
}

const ALL = docFiles().flatMap(docCommands);
const key = (c: DocCommand): string => `${c.file}: ${c.text}`;
const RUNNABLE = ALL.filter((c) => !(key(c) in SKIP));

const project = tempProject('runspec-docs-');
/** Where an example project's copy lives (examples/ itself is a link to the repository). */
const copyOf = (dir: string): string => join(project.dir, 'copies', dir);
let model: FakeModelServer;

beforeAll(async () => {
  model = await startFakeOpenAI({ text: 'done' });
  symlinkSync(join(REPO_ROOT, 'examples'), join(project.dir, 'examples'));
  cpSync(join(REPO_ROOT, 'examples/toolset.toml'), join(project.dir, 'toolset.toml'));
  cpSync(join(REPO_ROOT, 'examples/rules.toml'), join(project.dir, 'rules.toml'));
  mkdirSync(join(project.dir, 'evals'));
  for (const f of ['smoke.toml', 'count-lines.json', 'edits.json']) cpSync(join(REPO_ROOT, 'examples/fixtures', f), join(project.dir, 'evals', f));
  // Example projects run as copies (nothing is written into the repository); their agents import the
  // frameworks from the repository's node_modules.
  for (const dir of Object.values(PROJECT_DOCS)) {
    cpSync(join(REPO_ROOT, dir), copyOf(dir), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(copyOf(dir), 'node_modules'));
  }
  // traces/: what a run writes by default (OTLP JSON lines), as production traces to score.
  const demo = await runCli(['--path', project.dir, 'demo'], { cwd: project.dir, env: { HOME: project.dir } });
  expect([0, 1]).toContain(demo.exitCode);
  cpSync(join(project.dir, '.runspec/traces'), join(project.dir, 'traces'), { recursive: true });
  // A baseline and a head results file for the documented `diff` / `run --baseline` lines: the demo's own.
  const results = join(project.dir, '.runspec/results');
  const demoDoc = readdirSync(results).find((f) => f.endsWith('.json'))!;
  for (const name of ['main.json', 'pr.json']) cpSync(join(results, demoDoc), join(results, name));
}, 120_000);
afterAll(async () => {
  await model.close();
  project.cleanup();
});

describe('documented commands', { timeout: 120_000 }, () => {
  it('finds the commands of the README and the examples, and skips only the listed ones', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(10);
    expect(ALL.filter((c) => c.file === 'README.md').length).toBeGreaterThanOrEqual(5);
    // A skip entry that matches no documented line is stale.
    const keys = new Set(ALL.map(key));
    expect(Object.keys(SKIP).filter((k) => !keys.has(k))).toEqual([]);
  });

  it.each(RUNNABLE.map((c) => ({ name: `${c.file}:${c.line}: ${c.text}`, c })))('$name', async ({ c }) => {
    const cli = await runCli(c.argv, {
      cwd: PROJECT_DOCS[c.file] ? copyOf(PROJECT_DOCS[c.file]!) : project.dir,
      env: { HOME: project.dir, OPENAI_API_KEY: 'sk-docs-test', ANTHROPIC_API_KEY: 'sk-docs-test', ...c.env, RUNSPEC_BASE_URL: model.url },
      timeoutMs: 120_000,
    });
    expect([0, 1], `${relative(REPO_ROOT, join(REPO_ROOT, c.file))}:${c.line} exited ${cli.exitCode}: ${cli.stderr.slice(0, 500)}`).toContain(cli.exitCode);
    // The ground tier must hold on the bundled data: validate is clean, not just "ran".
    if (c.argv[0] === 'validate') expect(cli.exitCode, cli.stdout).toBe(0);
    if (c.stdoutTo) {
      writeFileSync(join(project.dir, c.stdoutTo), cli.stdout);
      expect(cli.stdout.length).toBeGreaterThan(0);
    }
  });
});
