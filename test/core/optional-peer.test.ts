import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importOptionalPeer, isMissingPackage } from '../../src/core/optional-peer.js';
import { exitCodeFor, RunspecError } from '../../src/errors.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };

/** What Node throws for `import('name')` when the package is not installed. */
function notFound(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/runspec-eval/dist/cli/chunks/x.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

describe('optional peers', () => {
  it('turn a missing peer into exit 2 and the one install line with our range', async () => {
    const err = await importOptionalPeer('@grpc/grpc-js', 'the OTLP/gRPC receiver', () => Promise.reject(notFound('@grpc/grpc-js'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunspecError);
    expect(exitCodeFor(err)).toBe(2);
    expect((err as Error).message).toBe(
      `the OTLP/gRPC receiver needs @grpc/grpc-js, an optional peer dependency that is not installed: npm install -D @grpc/grpc-js@${pkg.peerDependencies['@grpc/grpc-js']}`,
    );
    expect((err as Error).message).not.toContain('\n');
  });

  it('pass on a missing dependency of the peer itself, and any other failure, unchanged', async () => {
    const inner = notFound('@grpc/proto-loader');
    await expect(importOptionalPeer('@grpc/grpc-js', 'x', () => Promise.reject(inner))).rejects.toBe(inner);
    const other = new Error('boom');
    await expect(importOptionalPeer('@modelcontextprotocol/sdk', 'x', () => Promise.reject(other))).rejects.toBe(other);
  });

  it('return the module when it loads', async () => {
    await expect(importOptionalPeer('@modelcontextprotocol/sdk', 'x', () => Promise.resolve({ ok: 1 }))).resolves.toEqual({ ok: 1 });
  });

  it.each([
    ["Cannot find package '@modelcontextprotocol/sdk' imported from /a.js", 'ERR_MODULE_NOT_FOUND', true],
    ["Cannot find module '@modelcontextprotocol/sdk/client/index.js'", 'MODULE_NOT_FOUND', true],
    ["Cannot find package '@modelcontextprotocol/sdk-extra' imported from /a.js", 'ERR_MODULE_NOT_FOUND', false],
    ["Cannot find package '@modelcontextprotocol/sdk' imported from /a.js", 'ERR_SOMETHING', false],
  ])('isMissingPackage(%s, %s) is %s', (message, code, missing) => {
    expect(isMissingPackage(Object.assign(new Error(message), { code }), '@modelcontextprotocol/sdk')).toBe(missing);
  });
});
