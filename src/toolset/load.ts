import { isAbsolute, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../core/package-root.js';
import type { EnvSource } from '../types/env.js';
import { ToolsetError } from '../errors.js';
import type { Toolset } from '../types/toolset.js';
import { loadToolsetFile } from './file.js';
import { WORKSPACE_TOOLSET } from './workspace.js';
import { OPERATIONS_SYSTEM_PROMPT } from '../core/system-prompts.js';
import { importOptionalPeer } from '../core/optional-peer.js';

/** Path of the bundled fleet toolset. */
export const FLEET_TOOLSET_FILE = join(PACKAGE_ROOT, 'fixtures', 'toolsets', 'fleet.toml');

/** The names `builtin:<name>` accepts. */
export const BUILTIN_TOOLSETS = ['fleet', 'workspace'] as const;

export interface LoadToolsetOptions {
  /** Relative toolset paths and MCP server working directories resolve against it. */
  projectDir: string;
  /** Environment (the CLI passes process.env); an MCP stdio server gets only its safe default variables. */
  env: EnvSource;
  /** Connect + list limit for MCP servers. @default 30000 */
  timeoutMs?: number;
}

/**
 * Load a toolset from a spec:
 * - a path to our toolset file (`.toml` / `.json`) or to an OpenAI `tools` JSON array (auto-detected);
 * - `builtin:workspace` (the trajectory file-system tools) or `builtin:fleet` (the bundled fleet);
 * - `mcp:<command line>` (stdio) or `mcp:http(s)://...` (streamable HTTP): a live MCP server's tools.
 *
 * @example await loadToolset('builtin:fleet', { projectDir: process.cwd(), env: process.env })
 */
export async function loadToolset(spec: string, opts: LoadToolsetOptions): Promise<Toolset> {
  const s = spec.trim();
  if (s.startsWith('builtin:')) {
    const name = s.slice('builtin:'.length);
    if (name === 'workspace') return WORKSPACE_TOOLSET;
    if (name === 'fleet') return { ...loadToolsetFile(FLEET_TOOLSET_FILE), source: 'builtin:fleet', systemPrompt: OPERATIONS_SYSTEM_PROMPT };
    throw new ToolsetError('TOOLSET', `toolset "${spec}": unknown built-in toolset`, {
      hint: `use one of ${BUILTIN_TOOLSETS.map((b) => `builtin:${b}`).join(', ')}`,
    });
  }
  // The MCP SDK (and its JSON Schema validator) loads only for an mcp: toolset.
  if (s.startsWith('mcp:'))
    return (await importOptionalPeer('@modelcontextprotocol/sdk', 'an mcp: toolset', () => import('./mcp.js'))).loadMcpToolset(
      s.slice('mcp:'.length).trim(),
      opts,
    );
  if (s === '') throw new ToolsetError('TOOLSET', 'empty toolset spec', { hint: 'pass a file, builtin:fleet, builtin:workspace or mcp:<command>' });
  return loadToolsetFile(isAbsolute(s) ? s : resolve(opts.projectDir, s));
}
