import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/run-cli.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  peerDependenciesMeta: Record<string, unknown>;
  devDependencies: Record<string, string>;
};

/**
 * The optional peers a `full` install adds, at the versions our tests pin (`name@x.y.z`): gRPC and the MCP SDK.
 * vitest and tsx are optional peers of their own features (runspec-eval/vitest, .ts module targets); the
 * vitest sample project installs vitest itself.
 */
export const OPTIONAL_PEER_SPECS: string[] = Object.keys(pkg.peerDependenciesMeta)
  .filter((name) => name !== 'vitest' && name !== 'tsx')
  .map((name) => `${name}@${pkg.devDependencies[name]}`);
