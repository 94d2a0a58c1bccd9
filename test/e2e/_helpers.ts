import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isolatedEnv } from '../helpers/run-cli.js';

export const SECRET = 'sk-test-secret';

/** A throwaway project directory; `cleanup()` removes it. */
export function tempProject(prefix = 'runspec-e2e-'): { dir: string; write(rel: string, text: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    write(rel, text) {
      const p = join(dir, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, text);
      return p;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Environment for the CLI under test: fresh empty XDG_* and TMPDIR, HOME inside the project, so nothing of the machine's leaks in. */
export function cliEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...isolatedEnv(), HOME: dir, OPENAI_API_KEY: SECRET, ...extra };
}

/** Every file under `dir`, concatenated (for secret greps). */
export function allText(dir: string): string {
  let out = '';
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out += readFileSync(p, 'utf8') + '\n';
    }
  };
  walk(dir);
  return out;
}

export function readJson<T = any>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

// A sample's trace timeline (start, offsets, durations) is wall-clock time too.
const VOLATILE = new Set(['started', 'finished', 'timestamp', 'run_id', 'elapsed', 'elapsed_ms', 'shard', 'start_ms', 'offset_ms', 'duration_ms']);

/** A results document with time, ids and shard markers blanked, for equality checks. */
export function stable(doc: unknown): unknown {
  if (Array.isArray(doc)) return doc.map(stable);
  if (doc && typeof doc === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(doc)) out[k] = VOLATILE.has(k) ? '<volatile>' : stable(v);
    return out;
  }
  return doc;
}

/** The case entries of the (only) iteration of a results document. */
export function casesOf(doc: any): Record<string, any> {
  return doc.iterations[doc.iterations.length - 1].cases;
}

// ---- fixtures shared by the end-to-end tests ----

/** A runspec case that targets web-01 and one that must only check status (forbids the restart). */
export const RUNSPEC_RESTART_AND_STATUS = `
[[eval]]
id          = "restart-nginx"
prompt      = "restart nginx on web-01"
expect_tool = "restart-service"
expect_host = "web-01"
expect_args = { service = "nginx" }

[[eval]]
id           = "status-check"
prompt       = "is nginx running on web-02?"
expect_tool  = "service-status"
forbid_tools = ["restart-service"]
`;

/** A replio fixture whose verifier checks the file_read arguments. */
export const REPLIO_READ_APP = {
  id: 'read-app',
  task: 'Read src/app.py and report how many lines it has.',
  files: { 'src/app.py': 'import sys\n\ndef main():\n    return 0\n' },
  expected: ['file_read'],
  verifier: { must_include: ['file_read'], avoid: ['run_command'], max_calls: 2, args: { file_read: { path: 'src/app.py' } } },
};

/** A turnstone suite with one exact-match case run twice. */
export const TURNSTONE_CREATE_HELLO = {
  defaults: { n_runs: 2 },
  cases: [
    {
      id: 'create-hello',
      user_prompt: 'Create a file hello.txt that contains exactly: hello world',
      expected_actions: [{ tool: 'write_file', args: { path: 'hello.txt' }, args_pattern: { content: '^hello world\\n?$' } }],
      match_mode: 'exact',
    },
  ],
};

/** Scripted model answers (by first user prompt) that pass the replio and turnstone fixtures above. */
export const TRAJECTORY_ANSWERS = {
  'Read src/app.py and report how many lines it has.': [
    { toolCalls: [{ id: 'call_r', name: 'file_read', arguments: { path: 'src/app.py' } }] },
    { text: 'src/app.py has 4 lines.' },
  ],
  'Create a file hello.txt that contains exactly: hello world': [
    { toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello world\n' } }] },
    { text: 'Created hello.txt.' },
  ],
};

/** One `restart service svc<i> on web-01` case per id. */
export function restartSuite(ids: readonly string[]): string {
  return ids
    .map(
      (id, i) => `
[[eval]]
id          = "${id}"
prompt      = "restart service svc${i} on web-01"
expect_tool = "restart-service"
expect_args = { service = "svc${i}" }
`,
    )
    .join('');
}
