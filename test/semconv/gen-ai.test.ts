// The gen_ai.* constants are vendored (upstream deprecates them in its incubating entry point while they
// move to their own package). Pin every value to the installed package, and keep src/ off that entry point.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import * as vendored from '../../src/semconv/gen-ai.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('vendored gen_ai semantic conventions', () => {
  it('every vendored constant has the value of the upstream registry', () => {
    const upstream = incubating as unknown as Record<string, unknown>;
    for (const [name, value] of Object.entries(vendored)) expect(upstream[name], name).toBe(value);
    expect(Object.keys(vendored).length).toBeGreaterThan(40);
  });

  it('no module of src/ imports the incubating entry point', () => {
    const offenders = tsFiles(join(REPO_ROOT, 'src')).filter((f) => readFileSync(f, 'utf8').includes("from '@opentelemetry/semantic-conventions/incubating'"));
    expect(offenders).toEqual([]);
  });
});
