// dist/: src/ compiled file by file into ES modules, the same layout tsc would write (the
// unbundled CLI, and what the bundles and the completion spec are built from). esbuild
// only strips the types, in about a second where tsc takes 15-25 s on two cores: the type
// check is `npm run typecheck` (CI runs it before any test), so `npm test`, which builds
// first, does not pay for it again. The board's page is not here: build-board-page.mjs
// bundles it for the browser.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const page = path.join(src, 'board', 'page') + path.sep;

const entryPoints = fs
  .readdirSync(src, { recursive: true })
  .map((name) => path.join(src, name))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.startsWith(page));

await build({
  entryPoints,
  outdir: path.join(root, 'dist'),
  outbase: src,
  bundle: false,
  platform: 'node',
  format: 'esm',
  // tsconfig.json's target: class fields and the rest as tsc writes them.
  target: 'es2022',
  tsconfig: path.join(root, 'tsconfig.json'),
  // The code's `typeof require === 'function' ? require(...) : ...` stays as written (as
  // tsc leaves it): inside the CommonJS bundles, require is the bundle's.
  logOverride: { 'unsupported-require-call': 'silent' },
  logLevel: 'warning',
});
