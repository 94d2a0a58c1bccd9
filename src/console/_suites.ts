// Suites for the console: what discovery finds (with its source and case count), the text of one suite,
// validation with the loader the CLI uses, and Save / Delete into the project's runspec_evals.toml.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import type { EnvSource } from '../config/env.js';
import { isRunspecError } from '../errors.js';
import { discoverFixtures, SUITES_FILE } from '../fixtures/discover.js';
import { loadFixtureText } from '../fixtures/load.js';
import { removeSuite, replaceSuite, suiteEditorText, validateSuiteText } from '../fixtures/suites-file.js';
import { writeFileAtomic } from '../core/atomic-write.js';
import { escapesBase } from '../core/path-inside.js';
import type { Suite } from '../types/case.js';
import { HttpProblem } from './_http.js';

export interface SuiteSummaryJson {
  name: string;
  source: string;
  /** Where it was found: relative to the project when inside it, else the file name only. */
  file: string;
  cases: number;
  /** Saved in the project's runspec_evals.toml (Save and Delete allowed). */
  editable: boolean;
}

export interface ValidationJson {
  ok: boolean;
  cases: number;
  errors: Array<{ line: number | null; field: string | null; message: string; hint?: string }>;
}

export interface SuitesOptions {
  projectDir: string;
  env: EnvSource;
  onWarning?: (msg: string) => void;
}

function suitesFile(projectDir: string): string {
  return join(projectDir, SUITES_FILE);
}

function shownPath(projectDir: string, file: string): string {
  const rel = relative(projectDir, file);
  // Files outside the project (bundled, global, sync) show their name only: no home paths in the page.
  return rel === '' || escapesBase(rel) ? basename(file) : rel;
}

function isEditable(projectDir: string, s: Suite): boolean {
  return s.source.source === 'local' && s.source.file === suitesFile(projectDir);
}

async function discover(opts: SuitesOptions): Promise<Suite[]> {
  const catalog = await discoverFixtures({ projectDir: opts.projectDir, env: opts.env, onWarning: opts.onWarning ?? (() => {}) });
  return catalog.suites;
}

/** The file of a suite, or "N files" when its cases come from several (replio: one file per case). */
function fileLabel(projectDir: string, s: Suite): string {
  const files = new Set(s.cases.map((c) => c.source.file));
  return files.size > 1 ? `${files.size} files` : shownPath(projectDir, s.source.file);
}

export async function listSuites(opts: SuitesOptions): Promise<SuiteSummaryJson[]> {
  return (await discover(opts)).map((s) => ({
    name: s.name,
    source: s.source.source,
    file: fileLabel(opts.projectDir, s),
    cases: s.cases.length,
    editable: isEditable(opts.projectDir, s),
  }));
}

/** The text of one suite: `[[eval]]` TOML for runspec suites, the fixture files otherwise. */
export async function suiteText(opts: SuitesOptions, name: string): Promise<SuiteSummaryJson & { text: string }> {
  const suite = (await discover(opts)).find((s) => s.name === name);
  if (!suite) throw new HttpProblem(404, `no suite named ${JSON.stringify(name)}`);
  const summary = {
    name,
    source: suite.source.source,
    file: fileLabel(opts.projectDir, suite),
    cases: suite.cases.length,
    editable: isEditable(opts.projectDir, suite),
  };
  const file = suite.source.file;
  let text: string;
  if (file.endsWith('.toml') && file.split(/[\\/]/).pop() === SUITES_FILE) {
    text = suiteEditorText(readFileSync(file, 'utf8'), name, file);
  } else {
    // A dialect-file suite (replio fixtures are one file per case): show each file of its cases.
    const files = [...new Set(suite.cases.map((c) => c.source.file))];
    text =
      files.length === 1 ? readFileSync(files[0]!, 'utf8') : files.map((f) => `// ${shownPath(opts.projectDir, f)}\n${readFileSync(f, 'utf8')}`).join('\n');
  }
  return { ...summary, text };
}

const LOCATED = /^([^:\n]+?):(\d+)(?::\d+)?: (?:([\w.[\]"-]+|\(root\)|\(document\)): )?(.*)$/;

/** A loader error as the editor shows it: its line in the editor text and the field. */
function errorJson(err: unknown): ValidationJson['errors'][number] {
  if (!isRunspecError(err)) return { line: null, field: null, message: err instanceof Error ? err.message : String(err) };
  const m = LOCATED.exec(err.message);
  const out: ValidationJson['errors'][number] = m
    ? { line: Number(m[2]), field: m[3] ?? null, message: m[3] ? `${m[3]}: ${m[4]}` : m[4]! }
    : { line: null, field: null, message: err.message };
  if (err.hint) out.hint = err.hint;
  return out;
}

export function validateText(name: string, text: string): ValidationJson {
  try {
    const suites = validateSuiteText(text, name);
    return { ok: true, cases: suites.reduce((n, s) => n + s.cases.length, 0), errors: [] };
  } catch (err) {
    return { ok: false, cases: 0, errors: [errorJson(err)] };
  }
}

function checkName(name: string): void {
  if (name.trim() === '' || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new HttpProblem(400, 'suite name: expected 1 to 200 characters, no control characters');
  }
}

/**
 * Save suite `name` into the project's runspec_evals.toml (a new suite is appended). Suites that come from
 * elsewhere (bundled, plugin, global, sync) are read-only here.
 */
export async function saveSuite(opts: SuitesOptions, name: string, text: string): Promise<ValidationJson> {
  checkName(name);
  const existing = (await discover(opts)).find((s) => s.name === name);
  if (existing && !isEditable(opts.projectDir, existing))
    throw new HttpProblem(409, `suite ${JSON.stringify(name)} comes from ${existing.source.source} fixtures and is read-only here`);
  const check = validateText(name, text);
  if (!check.ok) return check;
  const file = suitesFile(opts.projectDir);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let after: string;
  try {
    after = replaceSuite(before, name, text, file);
    // The whole file must still load (ids unique across its suites, and so on).
    loadFixtureText(after, { file });
  } catch (err) {
    return { ok: false, cases: 0, errors: [errorJson(err)] };
  }
  writeFileAtomic(file, after);
  return check;
}

export async function deleteSuite(opts: SuitesOptions, name: string): Promise<void> {
  const existing = (await discover(opts)).find((s) => s.name === name);
  if (!existing) throw new HttpProblem(404, `no suite named ${JSON.stringify(name)}`);
  if (!isEditable(opts.projectDir, existing))
    throw new HttpProblem(409, `suite ${JSON.stringify(name)} comes from ${existing.source.source} fixtures and is read-only here`);
  const file = suitesFile(opts.projectDir);
  writeFileAtomic(file, removeSuite(readFileSync(file, 'utf8'), name, file));
}
