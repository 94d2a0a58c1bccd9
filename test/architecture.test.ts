import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/run-cli.js';

// Dependency direction (STYLE.md "Which way imports point"): a module may import only modules of a
// strictly lower rank (or itself). Nothing imports cli/.
const RANK: Record<string, number> = {
  types: 0,
  errors: 0,
  semconv: 0,
  // core/ is a leaf under every layer: it imports only types/ and errors.
  core: 0.5,
  config: 1,
  fixtures: 2,
  toolset: 2,
  scoring: 3,
  providers: 3,
  telemetry: 4,
  report: 4,
  engine: 5,
  traces: 5,
  optimize: 6,
  cli: 7,
  index: 8,
};

function moduleOf(file: string): string {
  const rel = relative(join(REPO_ROOT, 'src'), file);
  const first = rel.split('/')[0]!;
  return first.replace(/\.ts$/, '');
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('architecture', () => {
  const files = walk(join(REPO_ROOT, 'src'));

  it('places every source file in a known module', () => {
    const unknown = files.map(moduleOf).filter((m) => !(m in RANK));
    expect(unknown).toEqual([]);
  });

  it('has no upward or sideways imports between modules', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = moduleOf(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
        const target = resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'));
        const to = moduleOf(target);
        if (to === from) continue;
        if (!(RANK[to]! < RANK[from]!)) violations.push(`${relative(REPO_ROOT, file)} imports ${to}/ (${m[1]})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps library code on the OpenTelemetry API: only telemetry/ and cli/ touch the SDK', () => {
    const offenders = files.filter((f) => {
      const m = moduleOf(f);
      if (m === 'telemetry' || m === 'cli' || m === 'traces') return false;
      return /from\s+['"]@opentelemetry\/(sdk-|exporter-)/.test(readFileSync(f, 'utf8'));
    });
    expect(offenders.map((f) => relative(REPO_ROOT, f))).toEqual([]);
  });

  it('never uses process.exit outside cli/', () => {
    const offenders = files.filter((f) => moduleOf(f) !== 'cli' && /process\.exit\(/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(REPO_ROOT, f))).toEqual([]);
  });
});
