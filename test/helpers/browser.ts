/**
 * Headless Chromium for tests, with nothing installed by hand.
 *
 * - `RUNSPEC_CHROMIUM` (or `CHROME_PATH`) names a system Chrome/Chromium executable: used as is, on any platform.
 * - Otherwise, on Linux x64, the Chromium shipped (brotli-compressed) in the `@sparticuz/chromium` devDependency is
 *   unpacked once into `<tmpdir>/runspec-eval-chromium-<version>-<uid>/` and reused. Unpacking goes to a private
 *   staging folder that is renamed into place, so parallel test workers (and parallel checkouts) never see a
 *   half-written binary.
 * - Anywhere else without the variable: a one-line error saying what to set.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Pinned in package.json (143 is the last line that supports Node 20). */
const SPARTICUZ_VERSION = '143.0.0';

const BASE_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'];

/** Launch headless Chromium; the caller closes it (`await browser.close()` in `afterAll`). */
export async function launchBrowser(): Promise<Browser> {
  const fromEnv = process.env.RUNSPEC_CHROMIUM || process.env.CHROME_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`RUNSPEC_CHROMIUM/CHROME_PATH names ${fromEnv}, which does not exist`);
    return chromium.launch({ executablePath: fromEnv, headless: true, args: BASE_ARGS });
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `no bundled Chromium for ${process.platform}/${process.arch}: set RUNSPEC_CHROMIUM to a Chrome or Chromium executable`,
    );
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

async function unpack(): Promise<string> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const root = tmpdir();
  const dir = join(root, `runspec-eval-chromium-${SPARTICUZ_VERSION}-${uid}`);
  const done = join(dir, '.complete');
  if (existsSync(done)) return dir;

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
  writeFileSync(join(stage, '.complete'), SPARTICUZ_VERSION);
  try {
    renameSync(stage, dir);
  } catch (err) {
    // Another worker got there first (the folder exists and is complete): use theirs.
    rmSync(stage, { recursive: true, force: true });
    if (!existsSync(done)) throw err;
  }
  return dir;
}
