// The CLI as one CommonJS file, dist/tasks.cjs, made after dist/ (build-dist.mjs) by `npm run build`, and
// run by bin/tasks.js with the V8 code cache trained below; and the most-run reads (list,
// get, lists) as a second, half the size, dist/tasks-read.cjs, which bin/tasks.js runs
// for those commands (a start reads and hands V8 the bundle and its cache: ~2 ms less);
// and their plain command lines (read-path/) as a third, dist/tasks-plain.cjs, 30% smaller again. Start-up is most of what a
// command costs: one CommonJS file skips the ES module loader's resolving, linking and
// per-module compiling (with the cache, 11-24 ms a command against the ES module bundle
// with lazy chunks it replaced; `npm run bench`). Modules that the code loads with
// `await import()` stay lazy: esbuild wraps them and runs them on first use
// (proper-lockfile only for writes, the watcher only for watch). The unbundled dist/cli
// stays as the fallback.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { specFile } from '../dist/cli/completion/spec-load.js';
import { writeMetafile } from './metafiles.mjs';
import { sharedNodeModules } from './shared-node-modules.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// Written by build-completion.mjs, which runs first.
const spec = JSON.parse(fs.readFileSync(specFile(), 'utf8'));
// What a command line sent to a host is checked against before ssh starts (src/cli/remote/usage-check.ts).
const usage = await (await import('../dist/cli/remote/usage-spec.js')).currentUsageSpec();
const standIn = (name) => path.join(root, 'scripts', 'stand-ins', name);
const ourCode = path.join(root, 'dist') + path.sep;
const inPackage = (name, importer) => importer.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`);

// Names this build: its code cache, and the persistent cache of what it read from transcripts.
const buildId = randomUUID();

// The ES module bundle of earlier builds.
fs.rmSync(path.join(root, 'dist', 'bundle'), { recursive: true, force: true });

/**
 * One bundle of the CLI: `readOnly`, the read commands alone (commands/index.ts);
 * `remoteOnly`, what sends a command line to a host and nothing of the commands (main.ts);
 * `plainOnly`, the plain reads of `list` and `get` alone (main.ts, read-path/).
 */
const bundle = (outfile, readOnly, remoteOnly = false, plainOnly = false) =>
  build({
    entryPoints: [path.join(root, 'dist', 'cli', 'main.js')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Known at build time: no package.json or spec.json to find and read at run time
    // (the code's import.meta.url lookups are only their fallbacks when unbundled).
    define: {
      TASKS_VERSION: JSON.stringify(version),
      TASKS_BUILD: JSON.stringify(`${version} ${buildId}`),
      TASKS_COMPLETION_SPEC: JSON.stringify(spec),
      TASKS_READ_COMMANDS: JSON.stringify(readOnly),
      TASKS_REMOTE_ONLY: JSON.stringify(remoteOnly),
      TASKS_PLAIN_ONLY: JSON.stringify(plainOnly),
      TASKS_USAGE_SPEC: JSON.stringify(JSON.stringify(usage)),
    },
    logOverride: { 'empty-import-meta': 'silent' },
    plugins: [
      {
        name: 'start-up-stand-ins',
        setup(b) {
          b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
            inPackage('commander', args.importer) ? { path: standIn('lazy-child-process.cjs') } : undefined,
          );
          b.onResolve({ filter: /^graceful-fs$/ }, (args) =>
            inPackage('proper-lockfile', args.importer) ? { path: standIn('graceful-fs.cjs') } : undefined,
          );
          b.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
            inPackage('signal-exit', args.importer) ? { path: standIn('assert-equal.cjs') } : undefined,
          );
          b.onResolve({ filter: /^#supports-color$/ }, (args) =>
            inPackage('chalk', args.importer) ? { path: standIn('no-colour-detection.mjs') } : undefined,
          );
        },
      },
      sharedNodeModules(ourCode),
    ],
    // Its first line names this build; the code cache made for it carries the same line. Its
    // second names the Node that trains the caches beside it (below): bin/tasks.js opens
    // them under that Node alone.
    banner: {
      js: `// tasks build ${buildId}${plainOnly ? ' plain' : readOnly ? ' read' : remoteOnly ? ' remote' : ''}\n// node ${process.version} ${process.platform}-${process.arch}`,
    },
    // Minified: half the source for V8 to read and hash on every start (measured: ~1.8 ms
    // a command). For readable stack traces, run the unbundled code: node dist/cli/main.js.
    minify: true,
    // The licences of the packages bundled are in THIRD_PARTY_NOTICES (build-notices.mjs),
    // made from the metafile: which packages each bundle holds.
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });

const full = path.join(root, 'dist', 'tasks.cjs');
const read = path.join(root, 'dist', 'tasks-read.cjs');
const remote = path.join(root, 'dist', 'tasks-remote.cjs');
const plain = path.join(root, 'dist', 'tasks-plain.cjs');
const built = await Promise.all([bundle(full, false), bundle(read, true), bundle(remote, false, true), bundle(plain, true, false, true)]);
writeMetafile('tasks', built[0].metafile);
writeMetafile('tasks-read', built[1].metafile);
writeMetafile('tasks-remote', built[2].metafile);
writeMetafile('tasks-plain', built[3].metafile);

// The bundle's SHA-256, beside it: `tasks -H` names the folder of its copy on a host by
// it, and would otherwise hash the bundle on every command (src/cli/remote/payload.ts).
fs.writeFileSync(`${full}.sha256`, `${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}\n`);

// The V8 code caches beside them, both trained at once (each in a scratch config folder of
// its own); the training runs' output is not the build's.
let devZero;
try {
  devZero = fs.openSync('/dev/zero', 'w');
} catch {
  // No such device: the training runs stay piped.
}
const train = (file, commands, cache) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'train-code-cache.cjs'), file, cache, commands], {
      // stdout: a character device that takes any write, where the trainer can act a
      // terminal (scripts/train-code-cache.cjs); /dev/null is never taken for one.
      stdio: ['ignore', devZero ?? 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
    child.on('error', reject);
    child.on('close', () => {
      for (const line of stderr.split('\n')) if (line.startsWith('build:')) console.error(line);
      resolve();
    });
  });
// The read and plain bundles', one per command (bin/tasks.js says why).
fs.rmSync(`${read}.cache`, { force: true });
await Promise.all([
  train(full, 'all', `${full}.cache`),
  ...['list', 'get', 'lists'].map((command) => train(read, `read:${command}`, `${read}.${command}.cache`)),
  ...['list', 'get'].map((command) => train(plain, `plain:${command}`, `${plain}.${command}.cache`)),
]);
