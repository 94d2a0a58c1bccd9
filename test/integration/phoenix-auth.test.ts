// `doctor` against a live Phoenix with authentication on (PHOENIX_ENABLE_AUTH, PHOENIX_SECRET, and
// PHOENIX_ADMIN_SECRET as the key that works): the good key passes end to end; a missing key, a key set but not
// sent with the export, and a wrong key each fail with their own fix, and no key ever appears in the output.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { PHOENIX_VERSION, startPhoenix, type PhoenixServer } from './setup/phoenix.js';

/** >= 32 characters with a digit and a lowercase letter, as Phoenix requires of both secrets. */
const secret = (tag: string): string => `${tag}-${randomBytes(24).toString('hex')}-9x`;

describe(`doctor against a live Phoenix ${PHOENIX_VERSION} with authentication on`, () => {
  const adminSecret = secret('admin');
  let phoenix: PhoenixServer;
  let dir: string;
  beforeAll(async () => {
    phoenix = await startPhoenix({ auth: { secret: secret('session'), adminSecret } });
    dir = mkdtempSync(join(tmpdir(), 'runspec-it-phoenix-auth-'));
    for (const d of ['home', 'config', 'tmp', 'with-annotations', 'export-only']) mkdirSync(join(dir, d));
    // With eval_annotations the key authenticates the export too (one Phoenix, one key).
    writeFileSync(join(dir, 'with-annotations', 'runspec.toml'), '[telemetry]\neval_annotations = true\nproject = "it-auth"\n');
    writeFileSync(join(dir, 'export-only', 'runspec.toml'), '[telemetry]\nproject = "it-auth"\n');
  });
  afterAll(async () => {
    await phoenix?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const doctor = async (sub: string, env: Record<string, string | undefined>) => {
    const r = await runCli(['doctor', '--timeout-ms', '30000'], {
      spawn: true,
      cwd: join(dir, sub),
      timeoutMs: 90_000,
      env: { HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config'), TMPDIR: join(dir, 'tmp'), OTEL_EXPORTER_OTLP_ENDPOINT: phoenix.url, ...env },
    });
    expect(r.stdout + r.stderr).not.toContain(adminSecret);
    return r;
  };

  it('refuses the REST API without a key (auth is really on)', async () => {
    const res = await fetch(`${phoenix.url}/v1/projects`);
    expect(res.status).toBe(401);
  });

  it('passes with the admin secret as PHOENIX_API_KEY', async () => {
    const r = await doctor('with-annotations', { PHOENIX_API_KEY: adminSecret });
    expect(r.stdout).toMatch(/✓ trace read-back: span [0-9a-f]{16} is in Phoenix project "it-auth"/);
    expect(r.stdout).toMatch(/✓ annotation read-back/);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
  });

  it.each([
    { name: 'no key at all', sub: 'with-annotations', env: {}, fix: /fix: Phoenix has authentication on and no key was sent: export PHOENIX_API_KEY=/ },
    {
      name: 'a key that the export does not send (annotations off)',
      sub: 'export-only',
      env: { PHOENIX_API_KEY: adminSecret },
      fix: /fix: PHOENIX_API_KEY is set but the trace export does not send it: set eval_annotations = true/,
    },
    {
      name: 'a wrong key',
      sub: 'with-annotations',
      env: { PHOENIX_API_KEY: secret('wrong') },
      fix: /fix: Phoenix refused the key sent as Authorization: Bearer \(not a key of this Phoenix/,
    },
  ])('fails with $name (HTTP 401) and names the fix', async ({ sub, env, fix }) => {
    const r = await doctor(sub, env);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/✗ canary trace: POST http:\/\/127\.0\.0\.1:\d+\/v1\/traces answered HTTP 401/);
    expect(r.stdout).toMatch(fix);
    if ('PHOENIX_API_KEY' in env) expect(r.stdout + r.stderr).not.toContain(env.PHOENIX_API_KEY);
  });
});
