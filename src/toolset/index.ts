// Not published (package.json "exports" leaves it out): one import for tests and bench/.
export { loadToolset, FLEET_TOOLSET_FILE, BUILTIN_TOOLSETS } from './load.js';
export type { LoadToolsetOptions } from './load.js';
export { loadToolsetFile, parseToolsetText, ToolsetFileSchema } from './file.js';
export { loadMcpToolset, mcpToolToRunnable } from './mcp.js';
export { createLayout, DISCOVERY_TOOLS } from './layout.js';
export type { Layout, CallTarget } from './layout.js';
export { searchRunnables, describeRunnable, describeTool } from './discovery.js';
export type { SearchRow } from './discovery.js';
export { effectiveAutonomy } from './autonomy.js';
export { validateCallArgs, coerceArgValue, runnableOf } from './validate-args.js';
export type { ArgProblem, CoerceResult } from './validate-args.js';
export { validateFixtures } from './validate-fixtures.js';
export type { FixtureProblem } from './validate-fixtures.js';
export { matchName, hostParamName, commandParamName, maxAutonomy } from './lookup.js';
export { closestName } from '../core/did-you-mean.js';
export type { NameMatch } from './lookup.js';
export { argToJsonSchema, argsToJsonSchema, jsonSchemaToArgs } from './json-schema.js';
export { WORKSPACE_TOOLSET, WORKSPACE_RUNNABLES } from './workspace.js';
