import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM script without type declarations
import { generate, loadRegistry, prefixViolations, REGISTRY_PATH } from '../../scripts/semconv-gen.mjs';
import * as semconv from '../../src/semconv/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const REQUIRED = [
  'pass',
  'category',
  'reason',
  'pass_rate',
  'pass_rate_low',
  'pass_rate_high',
  'threshold',
  'samples',
  'sample',
  'case_id',
  'suite',
  'run_id',
  'expected_tool',
  'observed_tool',
  'expected_command',
  'observed_command',
  'expected_host',
  'observed_host',
  'expected_autonomy',
  'observed_autonomy',
  'tool_mode',
  'score',
  'match_mode',
  'accuracy',
  'calls',
  'redundant',
  'errors',
  'json_dump',
  'status',
  'executed',
];

describe('semconv registry', () => {
  it('generated files match semconv/registry.yaml (run `npm run semconv` after editing it)', () => {
    const files = generate(ROOT) as Record<string, string>;
    for (const [rel, content] of Object.entries(files)) {
      expect(readFileSync(join(ROOT, rel), 'utf8'), rel).toBe(content);
    }
  });

  it('defines every promised runspec.eval.* attribute with a generated constant', () => {
    const exported = semconv as unknown as Record<string, unknown>;
    for (const name of REQUIRED) {
      const constant = `ATTR_RUNSPEC_EVAL_${name.toUpperCase()}`;
      expect(exported[constant], constant).toBe(`runspec.eval.${name}`);
    }
  });

  it('has no key that is a dotted prefix of another key', () => {
    const registry = loadRegistry(readFileSync(join(ROOT, REGISTRY_PATH), 'utf8'));
    const ids = registry.attributes.map((a: { id: string }) => a.id);
    expect(prefixViolations(ids)).toEqual([]);
    expect(ids.every((id: string) => id.startsWith('runspec.eval.'))).toBe(true);
  });

  it('detects a key that is a prefix of another key', () => {
    expect(prefixViolations(['runspec.eval', 'runspec.eval.score', 'runspec.eval.pass_rate'])).toEqual([
      'runspec.eval is a prefix of runspec.eval.score',
      'runspec.eval is a prefix of runspec.eval.pass_rate',
    ]);
  });

  it('rejects a registry whose attribute lacks a type, naming the field', () => {
    const yaml =
      'groups:\n  - id: g\n    type: attribute_group\n    attributes:\n      - id: runspec.eval.x\n        stability: development\n        brief: b\n        examples: [1]\n';
    expect(() => loadRegistry(yaml)).toThrow(/groups\[0\]\.attributes\[0\]\.type/);
  });

  it('rejects a span group that references an unknown attribute', () => {
    const yaml = [
      'groups:',
      '  - id: g',
      '    type: attribute_group',
      '    attributes:',
      '      - {id: runspec.eval.x, type: int, stability: development, brief: b, examples: [1]}',
      '  - id: s',
      '    type: span',
      '    attributes:',
      '      - ref: runspec.eval.y',
    ].join('\n');
    expect(() => loadRegistry(yaml)).toThrow(/runspec\.eval\.y/);
  });
});
