import fs from 'node:fs';

/** Set by the build in the bundle (scripts/build-cli.mjs); undeclared anywhere else. */
declare const TASKS_VERSION: string | undefined;

/** From package.json, so there is one version number: built in, else read next to dist/. */
function readVersion(): string {
  if (typeof TASKS_VERSION !== 'undefined') return TASKS_VERSION;
  try {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export const VERSION = readVersion();
