// An http target: one POST per case to the team's agent endpoint. The request comes from a JSON template
// whose string values may hold placeholders: `{{prompt}}`, `{{system}}`, `{{case_id}}`, `{{messages}}` (the
// conversation in OpenAI chat form: system, history, prompt), `{{history}}`, `{{vars.NAME}}` and
// `{{env.NAME}}`. A placeholder that is a whole string value inserts the JSON value (an array, a number);
// one inside a longer string inserts its text, JSON-escaped when the body is written. A W3C `traceparent`
// joins the agent's spans to the case's trace. Values of `{{env.NAME}}` never appear in any output.
//
// The POST goes through the one HTTP client (core/http-client.ts): the response body is read up to
// `maxResponseBytes` and no further, redirects are not followed (a 3xx is the agent's error, naming where it
// pointed), the URL is redacted wherever it is printed, the target's TLS files are used, and the run's signal
// (its timeout, an interrupt) cancels the request. One attempt: a POST to an agent is not safe to repeat.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, FixtureError } from '../../errors.js';
import { createHttpClient, HttpSetupError, type HttpClient, type HttpFailure, type TlsFiles } from '../../core/http-client.js';
import { isRecord } from '../../core/is-record.js';
import { fillPlaceholders, lineAt, placeholdersIn, wholePlaceholder } from '../../core/placeholders.js';
import type { Case } from '../../types/case.js';
import type { ToolCall } from '../../types/run.js';
import type { AgentInput, AgentReply, AgentTarget } from './types.js';

export interface HttpTargetOptions {
  name: string;
  url: string;
  /** Template file as written in runspec.toml (relative to the project); absent: `{ "messages": "{{messages}}" }`. */
  template?: string;
  /** Dot path of the tool calls in the response (`output.calls`, `choices.0.message.tool_calls`). */
  responseToolCalls?: string;
  projectDir: string;
  /** The run's environment, for `{{env.NAME}}`. */
  env: Readonly<Record<string, string | undefined>>;
  defaults: AgentTarget['defaults'];
  quietMs: number;
  traceTimeoutMs: number;
  /** Largest response body read; a bigger one is the sample's error, never read whole. @default 8388608 (8 MiB) */
  maxResponseBytes?: number;
  /** PEM files for an https agent (paths as given; the caller resolves them against the project). */
  tls?: TlsFiles;
  /** Longest wait for the agent's answer (headers and body). @default 120000 */
  timeoutMs?: number;
}

/** @default 8388608 */
export const DEFAULT_AGENT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

interface Template {
  file: string;
  text: string;
  headers: Record<string, string>;
  body: unknown;
}

const FIXED = new Set(['prompt', 'system', 'case_id', 'messages', 'history']);
/** Where an OpenAI-style reply keeps its calls, tried in order when no path is configured. */
const DEFAULT_CALL_PATHS = ['tool_calls', 'choices.0.message.tool_calls', 'message.tool_calls'];

function loadTemplate(o: HttpTargetOptions): Template {
  if (o.template === undefined) return { file: 'runspec.toml', text: '', headers: {}, body: { messages: '{{messages}}' } };
  const file = resolve(o.projectDir, o.template);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError('CONFIG', `runspec.toml: targets.${o.name}.template: cannot read ${file}`, {
      hint: 'give a JSON file { "headers": {...}, "body": ... } relative to the project',
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    throw new ConfigError('CONFIG', `${file}:${at ? lineAt(text, Number(at[1])) : 1}: not valid JSON (${(err as Error).message})`);
  }
  if (!isRecord(data) || Object.keys(data).some((k) => k !== 'headers' && k !== 'body')) {
    throw new ConfigError('CONFIG', `${file}:1: expected an object with "body" and optional "headers"`, {
      hint: '{ "headers": { "x-team": "{{vars.team}}" }, "body": { "input": "{{prompt}}" } }',
    });
  }
  const headers = data.headers ?? {};
  if (!isRecord(headers) || Object.values(headers).some((v) => typeof v !== 'string'))
    throw new ConfigError('CONFIG', `${file}:${lineOfKey(text, 'headers')}: headers: expected an object of strings`);
  return { file, text, headers: headers as Record<string, string>, body: data.body ?? {} };
}

function lineOfKey(text: string, key: string): number {
  const i = text.indexOf(`"${key}"`);
  return i < 0 ? 1 : lineAt(text, i);
}

/** The conversation in OpenAI chat form: the system prompt, the history, the prompt. */
function chatMessages(input: AgentInput): Array<{ role: string; content: string }> {
  return [...(input.system !== undefined ? [{ role: 'system', content: input.system }] : []), ...input.messages, { role: 'user', content: input.prompt }];
}

/** A placeholder's JSON value for one case; undefined when the name is unknown to it. */
function valueOf(name: string, c: Case, input: AgentInput, env: HttpTargetOptions['env']): unknown {
  switch (name) {
    case 'prompt':
      return input.prompt;
    case 'system':
      return input.system ?? null;
    case 'case_id':
      return c.id;
    case 'messages':
      return chatMessages(input);
    case 'history':
      return input.messages;
  }
  if (name.startsWith('vars.')) return input.vars[name.slice(5)];
  if (name.startsWith('env.')) return env[name.slice(4)];
  return undefined;
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Open an http target: the template is read and its placeholders checked (an unknown one is bad input,
 * with the template's file and line).
 */
export function openHttpTarget(o: HttpTargetOptions): AgentTarget {
  const tpl = loadTemplate(o);
  const secrets = new Set<string>();
  const where = (name: string): string => {
    const hit = placeholdersIn(tpl.text).find((p) => p.name === name);
    return hit ? `${tpl.file}:${lineAt(tpl.text, hit.index)}` : tpl.file;
  };
  for (const p of placeholdersIn(tpl.text)) {
    const known = FIXED.has(p.name) || p.name.startsWith('vars.') || p.name.startsWith('env.');
    if (!known) {
      throw new ConfigError('CONFIG', `${tpl.file}:${lineAt(tpl.text, p.index)}: unknown placeholder {{${p.name}}}`, {
        hint: 'use {{prompt}}, {{system}}, {{case_id}}, {{messages}}, {{history}}, {{vars.NAME}} or {{env.NAME}}',
      });
    }
    if (p.name.startsWith('env.')) {
      const v = o.env[p.name.slice(4)];
      if (v === undefined)
        throw new ConfigError('CONFIG', `${tpl.file}:${lineAt(tpl.text, p.index)}: {{${p.name}}}: the environment variable ${p.name.slice(4)} is not set`, {
          hint: `export ${p.name.slice(4)}=...`,
        });
      if (v.length >= 4) secrets.add(v);
    }
  }
  const redact = (text: string): string => {
    let out = text;
    for (const s of secrets) out = out.split(s).join('***');
    return out;
  };
  const render = (c: Case, input: AgentInput, place: (name: string) => string): { headers: Record<string, string>; body: string } => {
    const unknown = (name: string): never => {
      throw new FixtureError('FIXTURE_SCHEMA', `${place(name)}: case ${c.id}: unknown placeholder {{${name}}}`, {
        hint: name.startsWith('vars.') ? `add vars.${name.slice(5)} to the case, its suite or targets.${o.name}.vars` : undefined,
      });
    };
    const fillText = (s: string): string =>
      fillPlaceholders(
        s,
        (n) => {
          const v = valueOf(n, c, input, o.env);
          return v === undefined ? undefined : asText(v);
        },
        (n) => unknown(n),
      );
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') {
        const whole = wholePlaceholder(v);
        if (whole !== undefined) {
          const value = valueOf(whole, c, input, o.env);
          return value === undefined ? unknown(whole) : value;
        }
        return fillText(v);
      }
      if (Array.isArray(v)) return v.map(walk);
      if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(tpl.headers)) headers[k.toLowerCase()] = fillText(v);
    for (const [k, v] of Object.entries(c.headers ?? {})) headers[k.toLowerCase()] = fillText(v);
    return { headers, body: JSON.stringify(walk(tpl.body)) };
  };
  const templatePlace = (name: string): string => where(name);
  const endpoint = splitCredentials(o.url, o.name);
  if (endpoint.authorization) secrets.add(endpoint.authorization.slice('Basic '.length));
  if (endpoint.password !== undefined && endpoint.password.length >= 4) secrets.add(endpoint.password);
  let http: HttpClient;
  try {
    http = createHttpClient({
      label: `target ${o.name}`,
      // The run's signal ends the call at the target's timeout_ms (run.ts); this limit only backs it up.
      timeoutMs: (o.timeoutMs ?? 120_000) + 1000,
      attempts: 1,
      maxConcurrent: 64,
      maxResponseBytes: o.maxResponseBytes ?? DEFAULT_AGENT_MAX_RESPONSE_BYTES,
      ...(o.tls ? { tls: o.tls } : {}),
      secrets: [...secrets],
    });
  } catch (err) {
    // The target config carries no line numbers (config/targets.ts), so the field names the place.
    if (err instanceof HttpSetupError) {
      const field = { caFile: 'ca_file', certFile: 'cert_file', keyFile: 'key_file' }[err.file];
      throw new ConfigError('CONFIG', `runspec.toml: targets.${o.name}.${field}: ${err.detail}`, {
        hint: `fix ${field} of [targets.${o.name}] (relative paths start at the project directory)`,
      });
    }
    throw err;
  }
  return {
    name: o.name,
    kind: 'http',
    defaults: o.defaults,
    quietMs: o.quietMs,
    traceTimeoutMs: o.traceTimeoutMs,
    prepare(cases) {
      // Every case renders before anything is sent: a missing var fails the run up front (exit 2).
      const input = (c: Case): AgentInput => ({
        prompt: c.prompt,
        messages: c.messages ?? [],
        vars: { ...o.defaults.vars, ...c.vars },
        files: {},
        ...(c.system ? { system: c.system } : {}),
      });
      for (const c of cases) render(c, input(c), templatePlace);
    },
    async invoke({ case: c, input, traceparent, signal }): Promise<AgentReply> {
      const req = render(c, input, templatePlace);
      const headers = {
        'content-type': 'application/json',
        ...(endpoint.authorization && !('authorization' in req.headers) ? { authorization: endpoint.authorization } : {}),
        ...req.headers,
        traceparent,
      };
      const answer = await http.send({ method: 'POST', url: endpoint.url, headers, body: req.body, signal });
      if (!answer.ok) {
        // The run's own signal (its timeout, an interrupt) decides how a cancelled request is reported.
        if (answer.kind === 'cancelled' && signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
        return { error: { code: 'TARGET', message: redact(failureText(o.name, answer, http)) } };
      }
      let output: unknown = answer.text;
      try {
        output = JSON.parse(answer.text);
      } catch {
        // A text reply is the agent's final answer.
      }
      const reply: AgentReply = { output };
      const found = callsIn(output, o.responseToolCalls);
      if (found) {
        reply.replyCalls = found.calls;
        reply.replyCallsPath = found.path;
      }
      return reply;
    },
    close: () => http.close(),
  };
}

/** The agent's URL without its user and password, which go in a Basic authorization header instead. */
function splitCredentials(url: string, name: string): { url: string; authorization?: string; password?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url };
  }
  if (!u.username && !u.password) return { url };
  let user: string;
  let password: string;
  try {
    user = decodeURIComponent(u.username);
    password = decodeURIComponent(u.password);
  } catch {
    // A bare `%` (URIError): the message names the field, never the password.
    throw new ConfigError('CONFIG', `runspec.toml: targets.${name}.url: the user or password is not valid percent-encoding (write % as %25)`);
  }
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  u.username = '';
  u.password = '';
  return { url: u.toString(), authorization, ...(password ? { password } : {}) };
}

/** One line for a failed POST, the URL redacted, with what to change when there is one thing to change. */
function failureText(name: string, f: HttpFailure, http: HttpClient): string {
  const line = `target ${name}: ${http.describe(f)}`;
  switch (f.kind) {
    case 'too-large':
      return `${line}; raise targets.${name}.max_response_bytes or have the agent answer less`;
    case 'redirect':
      return `${line}; set targets.${name}.url to the address it redirects to`;
    case 'connection':
      return /CERT|SSL|TLS|VERIFY/.test(f.code)
        ? `${line}; trust its certificate's CA with targets.${name}.ca_file`
        : `${line}; is the agent running at targets.${name}.url?`;
    default:
      return line;
  }
}

function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split('.')) {
    if (Array.isArray(cur) && /^\d+$/.test(part)) cur = cur[Number(part)];
    else if (isRecord(cur)) cur = cur[part];
    else return undefined;
  }
  return cur;
}

/**
 * The tool calls of a reply: at `path`, or at the first OpenAI-style place that holds a list. Entries may be
 * `{ id, function: { name, arguments } }` (arguments a JSON string or an object) or `{ name, arguments }`.
 * @example callsIn({ tool_calls: [{ name: 'lookup', arguments: { q: 'x' } }] })?.calls[0].name // 'lookup'
 */
export function callsIn(output: unknown, path?: string): { calls: ToolCall[]; path: string } | undefined {
  for (const p of path !== undefined ? [path] : DEFAULT_CALL_PATHS) {
    const list = at(output, p);
    if (!Array.isArray(list)) continue;
    const calls: ToolCall[] = [];
    list.forEach((entry, i) => {
      if (!isRecord(entry)) return;
      const fn = isRecord(entry.function) ? entry.function : entry;
      if (typeof fn.name !== 'string') return;
      const raw = fn.arguments ?? fn.args ?? {};
      let args: Record<string, unknown>;
      if (typeof raw === 'string') {
        try {
          const parsed: unknown = JSON.parse(raw);
          args = isRecord(parsed) ? parsed : { _raw: raw };
        } catch {
          args = { _raw: raw };
        }
      } else args = isRecord(raw) ? raw : {};
      calls.push({ id: typeof entry.id === 'string' ? entry.id : `call_${i}`, name: fn.name, arguments: args });
    });
    return { calls, path: p };
  }
  return undefined;
}
