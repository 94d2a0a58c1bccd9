import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/run-cli.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { peerDependenciesMeta: Record<string, unknown>; devDependencies: Record<string, string> };

/** The optional peers at the versions our tests pin (`name@x.y.z`). */
export const OPTIONAL_PEER_SPECS: string[] = Object.keys(pkg.peerDependenciesMeta).map((name) => `${name}@${pkg.devDependencies[name]}`);
