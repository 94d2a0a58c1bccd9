import type { ArgSpec, Runnable, Toolset } from '../types/toolset.js';

// The built-in workspace toolset for trajectory cases. Names cover the dialects' fixtures: replio's fs tools
// (file_read with offset/limit paging, glob, grep, list_directory, file_edit, file_write, run_command) and
// turnstone's (read_file, write_file, edit_file, bash). The implementations live in engine/.

const str = (name: string, description: string, required = true): ArgSpec => ({ name, type: 'string', description, required });
const int = (name: string, description: string, min?: number): ArgSpec => ({
  name,
  type: 'int',
  description,
  required: false,
  ...(min !== undefined ? { min } : {}),
});

const tool = (name: string, category: Runnable['category'], description: string, args: ArgSpec[]): Runnable => ({
  name,
  description,
  category,
  args,
  autonomy: category === 'read' || category === 'list' ? 'autonomous' : 'confirm',
  ownHostArg: false,
});

export const WORKSPACE_RUNNABLES: Runnable[] = [
  tool('file_read', 'read', 'Read a text file from the workspace. Large files are paged: pass offset (first line, 1-based) and limit (number of lines).', [
    str('path', 'File path relative to the workspace root'),
    int('offset', 'First line to return, 1-based', 1),
    int('limit', 'Maximum number of lines to return', 1),
  ]),
  tool('glob', 'list', 'Find files whose path matches a glob pattern such as "**/*.py".', [
    str('pattern', 'Glob pattern, relative to the workspace root'),
    str('path', 'Directory to search in (default: the workspace root)', false),
  ]),
  tool('grep', 'read', 'Search file contents for a regular expression; returns path:line: text rows.', [
    str('pattern', 'Regular expression to search for'),
    str('path', 'File or directory to search (default: the workspace root)', false),
    str('glob', 'Only search files matching this glob', false),
  ]),
  tool('list_directory', 'list', 'List the files and directories under a directory, as a tree.', [
    str('path', 'Directory relative to the workspace root (default: the root)', false),
    int('depth', 'How many levels to descend (default 2)', 1),
  ]),
  tool('file_edit', 'edit', 'Replace an exact string in a file with another.', [
    str('path', 'File path relative to the workspace root'),
    str('old_string', 'Exact text to replace (must occur once)'),
    str('new_string', 'Replacement text'),
  ]),
  tool('file_write', 'edit', 'Create or overwrite a file with the given content.', [
    str('path', 'File path relative to the workspace root'),
    str('content', 'Full file content'),
  ]),
  tool('run_command', 'bash', 'Run a shell command in the workspace root and return its output.', [
    str('command', 'Shell command line'),
    int('timeout_ms', 'Time limit in milliseconds', 1),
  ]),
  tool('read_file', 'read', 'Read a file from the workspace.', [str('path', 'File path relative to the workspace root')]),
  tool('write_file', 'edit', 'Create or overwrite a file.', [str('path', 'File path relative to the workspace root'), str('content', 'Full file content')]),
  tool('edit_file', 'edit', 'Replace an exact string in a file.', [
    str('path', 'File path relative to the workspace root'),
    str('old_string', 'Exact text to replace'),
    str('new_string', 'Replacement text'),
  ]),
  tool('bash', 'bash', 'Run a bash command in the workspace root.', [str('command', 'Command line')]),
];

export const WORKSPACE_TOOLSET: Toolset = {
  name: 'workspace',
  runnables: WORKSPACE_RUNNABLES,
  hosts: [],
  groups: {},
  source: 'builtin:workspace',
};
