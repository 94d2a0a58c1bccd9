import { chmodSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

// Runs in the worker before each test file: HOME, XDG_* and TMPDIR point at fresh empty folders of this run
// (os.homedir() and os.tmpdir() read them), so the file sees none of the machine's files and the CLI it
// calls in-process sweeps and writes only there. Processes get their own again (test/helpers/run-cli.ts).
const fileRoot = mkdtempSync(join(inject('runRoot'), 'file-'));
// Modes as /tmp has them: as root the command sandbox drops to an unprivileged uid that must reach worktrees.
chmodSync(fileRoot, 0o755);
for (const [name, sub] of [
  ['HOME', 'home'],
  ['XDG_CONFIG_HOME', 'home/.config'],
  ['XDG_CACHE_HOME', 'home/.cache'],
  ['XDG_DATA_HOME', 'home/.local/share'],
  ['XDG_STATE_HOME', 'home/.local/state'],
  ['TMPDIR', 'tmp'],
] as const) {
  const dir = join(fileRoot, sub);
  mkdirSync(dir, { recursive: true });
  if (name === 'TMPDIR') chmodSync(dir, 0o1777);
  process.env[name] = dir;
}
// npm keeps its cache outside the run (see global-setup.ts) and does not ask the registry for a newer npm.
process.env.npm_config_cache = inject('npmCache');
process.env.npm_config_update_notifier = 'false';
