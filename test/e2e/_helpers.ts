import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

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

/** Environment for a spawned CLI: HOME inside the project so no global fixtures leak in. */
export function cliEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: dir, OPENAI_API_KEY: SECRET, ...extra };
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

const VOLATILE = new Set(['started', 'finished', 'timestamp', 'run_id', 'elapsed', 'elapsed_ms', 'shard']);

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
