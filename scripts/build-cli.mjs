// The CLI as one ES module bundle (plus lazily loaded chunks), made after tsc by
// `npm run build`. Measured: starting from one bundled file costs about two thirds of
// resolving and loading the ~150 compiled modules and their dependencies one by one
// (`npm run bench` prints the figures). The unbundled dist/cli stays as the fallback.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const outdir = path.join(root, 'dist', 'bundle');
// Chunk names carry content hashes: clear out the last build's.
fs.rmSync(outdir, { recursive: true, force: true });

await build({
  entryPoints: { main: path.join(root, 'dist', 'cli', 'main.js') },
  outdir,
  bundle: true,
  splitting: true, // dynamic import() stays lazy: proper-lockfile loads only for writes
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // CommonJS dependencies (proper-lockfile, cli-table3) call require() for Node's own modules.
  banner: { js: "import { createRequire as __tasksRequire } from 'node:module'; const require = __tasksRequire(import.meta.url);" },
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
