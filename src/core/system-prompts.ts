// The system prompts runspec-eval ships. None is a default of every run: the operations prompt belongs to the
// bundled fleet toolset (builtin:fleet), the workspace prompt to trajectory runs on the workspace tools; a
// generic toolset (an OpenAI tools array, an MCP server) gets no system prompt unless one is configured.

/** The system prompt of the bundled fleet toolset (`builtin:fleet`), and of recordings made before it moved there. */
export const OPERATIONS_SYSTEM_PROMPT =
  'You are an operations agent. Act on the request by calling the tool that does it, with the right arguments and target host. ' +
  'If the request is ambiguous or destructive and the target is unclear, ask a clarifying question instead of acting.';

/** The system prompt of trajectory runs (replio, turnstone cases) unless one is configured. */
export const TRAJECTORY_SYSTEM_PROMPT =
  'You are a coding agent working in a project workspace. Use the provided tools to inspect and change files and to run commands; ' +
  'paths are relative to the workspace root. Call tools through the function-calling interface, never by writing JSON in your reply. ' +
  'When the task is done, answer briefly in plain text.';
