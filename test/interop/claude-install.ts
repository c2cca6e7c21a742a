import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Finding, or installing on demand, the Claude Code release the interop suite runs.
 *
 * The pin lives in claude-version.json and nowhere else: moving it is a one-line change,
 * after which the suite installs that release and checks that the binary it runs reports
 * that version. `$TASKS_INTEROP_CLAUDE_VERSION` runs another release instead: an exact
 * version, or a dist-tag such as `latest`, resolved through the npm registry once per run
 * (`.ci/run` runs the suite against the pin and against `latest`). Claude Code is never a
 * dependency of this package (users' `npm install` stays small); it goes into a cache
 * folder of its own with `npm install --no-save --prefix`.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

interface Pin {
  package: string;
  version: string;
}

export const PIN: Pin = JSON.parse(fs.readFileSync(path.join(HERE, 'claude-version.json'), 'utf8')) as Pin;

const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/**
 * The release under test: `$TASKS_INTEROP_CLAUDE_VERSION` if set (an exact version, or a
 * dist-tag like `latest` that the registry resolves), else the pin. Throws InstallError
 * when a tag cannot be resolved.
 */
export function versionUnderTest(env: NodeJS.ProcessEnv = process.env): string {
  const wanted = (env.TASKS_INTEROP_CLAUDE_VERSION ?? '').trim();
  if (wanted === '') return PIN.version;
  if (EXACT.test(wanted)) return wanted;
  const r = spawnSync('npm', ['view', `${PIN.package}@${wanted}`, 'version'], { encoding: 'utf8', timeout: 120_000 });
  const resolved = (r.stdout ?? '').trim().split('\n').at(-1)?.trim() ?? '';
  if (r.status !== 0 || !EXACT.test(resolved)) {
    throw new InstallError(
      `cannot resolve ${PIN.package}@${wanted} (TASKS_INTEROP_CLAUDE_VERSION) through the npm registry: ${npmErrorSummary(`${r.stderr ?? ''}`) || r.error?.message || 'no version'}`,
    );
  }
  return resolved;
}

/**
 * The cache this suite installs into: `$TASKS_INTEROP_CACHE`, else `.interop-cache/` in the
 * repository (git-ignored). One folder per version, so moving the pin never mixes releases.
 */
export function ownCacheDir(version: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.TASKS_INTEROP_CACHE || path.join(ROOT, '.interop-cache');
  return path.join(path.resolve(base), `claude-code-${version}`);
}

/**
 * npm prefixes that may already hold the pinned release, looked at read-only before
 * installing anything: `$TASKS_INTEROP_SHARED_CACHES` (path-delimited), for a machine that
 * keeps one copy for several checkouts. A prefix with another version is passed over.
 */
export function sharedPrefixes(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env.TASKS_INTEROP_SHARED_CACHES ?? '';
  return raw.split(path.delimiter).filter((p) => p.length > 0);
}

/** The optional-dependency package that carries the native binary for this machine. */
export function platformPackage(): { name: string; bin: string } {
  const { platform, arch } = process;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const musl = platform === 'linux' && report?.header?.glibcVersionRuntime === undefined;
  const name = `${PIN.package}-${platform}-${arch}${musl ? '-musl' : ''}`;
  return { name, bin: platform === 'win32' ? 'claude.exe' : 'claude' };
}

function readVersion(packageJson: string): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** The binary under `prefix` if it holds exactly `version` for this platform. */
export function binaryIn(prefix: string, version: string): string | undefined {
  const { name, bin } = platformPackage();
  const dir = path.join(prefix, 'node_modules', ...name.split('/'));
  const file = path.join(dir, bin);
  if (readVersion(path.join(dir, 'package.json')) !== version) return undefined;
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    return undefined;
  }
  return file;
}

/** What `claude --version` says, e.g. "2.1.328 (Claude Code)"; throws when it cannot run. */
export function reportedVersion(bin: string): string {
  // A throwaway home and config folder: nothing of the developer's, nothing left in the cache.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-claude-version-'));
  const r = spawnSync(bin, ['--version'], {
    encoding: 'utf8',
    timeout: 60_000,
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: home,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  });
  fs.rmSync(home, { recursive: true, force: true });
  if (r.status !== 0) {
    throw new Error(`${bin} --version failed (exit ${r.status ?? r.signal}): ${(r.stderr || r.error?.message || '').trim()}`);
  }
  return r.stdout.trim();
}

export class InstallError extends Error {
  override name = 'InstallError';
}

/**
 * The binary of `version`: found in our cache or a shared one, else installed into our cache.
 * Throws InstallError with what to do when npm cannot install it (offline, no registry,
 * no build for this platform). `log` receives progress for the person waiting.
 */
export function ensureClaude(version: string, log: (line: string) => void = () => {}): string {
  const own = ownCacheDir(version);
  for (const prefix of [own, ...sharedPrefixes()]) {
    const found = binaryIn(prefix, version);
    if (found) return checked(found, version);
  }
  const spec = `${PIN.package}@${version}`;
  log(`interop: installing ${spec} into ${own} (about 370 MB, once per version)`);
  try {
    fs.mkdirSync(own, { recursive: true });
  } catch (err) {
    throw new InstallError(
      `cannot create the cache folder ${own}: ${(err as Error).message}; set TASKS_INTEROP_CACHE to a writable folder`,
    );
  }
  // Node 20 makes npm warn about the package's engines field; it installs all the same.
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', own, spec], {
    encoding: 'utf8',
    timeout: 15 * 60_000,
    cwd: own,
  });
  const installed = binaryIn(own, version);
  if (r.status !== 0 || !installed) {
    const why = r.error ? r.error.message : `npm exited with ${r.status ?? r.signal}`;
    const tail = npmErrorSummary(`${r.stderr ?? ''}\n${r.stdout ?? ''}`);
    const missing =
      r.status === 0
        ? `; npm succeeded but ${platformPackage().name} (the native binary) is not there: no build of this release for ${process.platform}-${process.arch}?`
        : '';
    throw new InstallError(
      `cannot install ${spec} into ${own}: ${why}${missing}\n  ${tail}\n` +
        'The interop suite needs the real Claude Code. Check access to the npm registry, or set ' +
        'TASKS_INTEROP_CACHE (a writable cache) or TASKS_INTEROP_SHARED_CACHES (an npm prefix that already holds it).',
    );
  }
  return checked(installed, version);
}

/** The lines of npm's error output that say what went wrong, without its stack trace. */
function npmErrorSummary(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.replace(/^npm (error|ERR!) ?/, '').trimEnd())
    .filter((l) => l.trim() !== '' && !/^(\s|syscall |errno )/.test(l) && !/^[{}]/.test(l) && !l.startsWith('A complete log'));
  return lines.slice(0, 5).join('\n  ');
}

/** The binary must say it is the release under test, whatever its package.json claims. */
function checked(bin: string, version: string): string {
  const said = reportedVersion(bin);
  if (!said.startsWith(`${version} `) && said !== version) {
    throw new InstallError(`${bin} reports "${said}", not ${version}, the release under test`);
  }
  return bin;
}
