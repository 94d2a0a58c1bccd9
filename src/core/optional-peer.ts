// The optional peer dependencies (package.json "peerDependenciesMeta"): gRPC and the MCP SDK are heavy, and
// most users never use OTLP/gRPC or MCP, so npm leaves them off an install. They load on use; when one is
// absent the command stops with exit 2 and the one line that installs the range we are built against.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunspecError } from '../errors.js';
import { PACKAGE_ROOT } from './package-root.js';

export type OptionalPeer = '@grpc/grpc-js' | '@opentelemetry/exporter-trace-otlp-grpc' | '@modelcontextprotocol/sdk';

/** The range package.json asks for (`^1.14.7`), or undefined when it names none. */
function peerRange(name: OptionalPeer): string | undefined {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
  return pkg.peerDependencies?.[name];
}

/** Node's "Cannot find package 'NAME' imported from …" for this package (a missing dependency of the package itself is not this). */
export function isMissingPackage(err: unknown, name: string): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || (e.code !== 'ERR_MODULE_NOT_FOUND' && e.code !== 'MODULE_NOT_FOUND')) return false;
  return typeof e.message === 'string' && (e.message.includes(`'${name}'`) || e.message.includes(`'${name}/`));
}

/**
 * Runs `load` (an `import()` of the peer, or of our module that imports it); a missing peer becomes a
 * ConfigError whose one line is the install command.
 * @example const grpc = await importOptionalPeer('@grpc/grpc-js', 'OTLP/gRPC', () => import('@grpc/grpc-js'));
 */
export async function importOptionalPeer<T>(name: OptionalPeer, use: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!isMissingPackage(err, name)) throw err;
    const range = peerRange(name);
    throw new RunspecError(
      'CONFIG',
      `${use} needs ${name}, an optional peer dependency that is not installed: npm install -D ${name}${range ? `@${range}` : ''}`,
      { cause: err },
    );
  }
}
