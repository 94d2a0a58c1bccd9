/**
 * Headless Chromium for tests, with nothing installed by hand.
 *
 * - `RUNSPEC_CHROMIUM` (or `CHROME_PATH`) names a system Chrome/Chromium executable: used as is, on any platform.
 * - Otherwise, on Linux x64, the Chromium shipped (brotli-compressed) in the `@sparticuz/chromium` devDependency is
 *   unpacked once per test run into `<run root>/chromium-<version>/` (the run root comes from vitest's global
 *   setup, test/setup/global-setup.ts) and reused by the run's workers. Unpacking goes to a private staging
 *   folder that is renamed into place, so parallel workers never see a half-written binary; a worker trusts the
 *   folder only when the binary's SHA-256 matches the one recorded beside it.
 * - Anywhere else without the variable: a one-line error saying what to set.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

/** Pinned in package.json (143 is the last line that supports Node 20). */
const SPARTICUZ_VERSION = '143.0.0';

/** A hook that launches the browser may take this long: the first one of a run unpacks it (~10 s idle, more under load). */
export const BROWSER_SETUP_TIMEOUT_MS = 180_000;

const BASE_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'];

/** Launch headless Chromium; the caller closes it (`await browser.close()` in `afterAll`). */
export async function launchBrowser(): Promise<Browser> {
  const fromEnv = process.env.RUNSPEC_CHROMIUM || process.env.CHROME_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`RUNSPEC_CHROMIUM/CHROME_PATH names ${fromEnv}, which does not exist`);
    return chromium.launch({ executablePath: fromEnv, headless: true, args: BASE_ARGS });
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`no bundled Chromium for ${process.platform}/${process.arch}: set RUNSPEC_CHROMIUM to a Chrome or Chromium executable`);
  }
  const dir = await bundledChromium();
  return chromium.launch({
    executablePath: join(dir, 'chromium'),
    headless: true,
    args: [...BASE_ARGS, '--no-zygote'],
    env: { ...process.env, FONTCONFIG_FILE: join(dir, 'fonts.conf'), HOME: process.env.HOME ?? dir },
  });
}

let unpacking: Promise<string> | undefined;

/** The folder holding the unpacked `chromium` binary (unpacked on first use). */
function bundledChromium(): Promise<string> {
  unpacking ??= unpack();
  return unpacking;
}

const sha256Of = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/** True when `dir` holds a binary whose hash is the one recorded when it was unpacked. */
function isComplete(dir: string): boolean {
  const marker = join(dir, '.sha256');
  const exe = join(dir, 'chromium');
  return existsSync(marker) && existsSync(exe) && readFileSync(marker, 'utf8').trim() === sha256Of(exe);
}

async function unpack(): Promise<string> {
  const dir = join(inject('runRoot'), `chromium-${SPARTICUZ_VERSION}`);
  if (isComplete(dir)) return dir;
  // One worker of the run unpacks (mkdir is atomic); the others wait for its folder instead of unpacking too.
  const lock = `${dir}.lock`;
  try {
    mkdirSync(lock);
  } catch {
    for (const deadline = Date.now() + BROWSER_SETUP_TIMEOUT_MS; Date.now() < deadline; await sleep(250)) {
      if (existsSync(join(dir, '.sha256'))) {
        if (isComplete(dir)) return dir;
        break;
      }
    }
    throw new Error(`another test worker did not finish unpacking Chromium into ${dir}, or its binary does not match the recorded SHA-256`);
  }
  try {
    return await unpackInto(dir);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function unpackInto(dir: string): Promise<string> {
  const stage = `${dir}.stage-${process.pid}-${Date.now()}`;
  mkdirSync(stage, { recursive: true });
  // @sparticuz/chromium unpacks into os.tmpdir(); point that at the staging folder for the duration of the call.
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = stage;
  try {
    const { default: sparticuz } = await import('@sparticuz/chromium');
    const exe = await sparticuz.executablePath();
    if (exe !== join(stage, 'chromium')) throw new Error(`@sparticuz/chromium unpacked to ${exe}, expected ${stage}`);
  } catch (err) {
    rmSync(stage, { recursive: true, force: true });
    throw err;
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  // The package's fonts.conf names /tmp/fonts; ours names the fonts unpacked next to the binary.
  writeFileSync(
    join(stage, 'fonts.conf'),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts')}</dir>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
  );
  writeFileSync(join(stage, '.sha256'), sha256Of(join(stage, 'chromium')));
  try {
    renameSync(stage, dir);
  } catch (err) {
    // Another worker got there first (the folder exists and is complete): use theirs.
    rmSync(stage, { recursive: true, force: true });
    if (!isComplete(dir)) throw err;
  }
  return dir;
}
