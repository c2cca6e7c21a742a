// The board's page, made by `npm run build` into dist/board-page/: board.js (the page's
// TypeScript bundled by esbuild for the browser, minified), board-worker.js (the
// shared worker that holds the tabs' event streams), board.css and index.html,
// copied as they are. The server (src/board/board-server.ts) serves these three files
// and nothing else; no CDN, nothing fetched at run time.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeMetafile } from './metafiles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const page = path.join(root, 'src', 'board', 'page');
const out = path.join(root, 'dist', 'board-page');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
for (const [entry, file] of [
  ['board-page.ts', 'board.js'],
  ['board-worker.ts', 'board-worker.js'],
]) {
  const built = await build({
    entryPoints: [path.join(page, entry)],
    outfile: path.join(out, file),
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome110', 'firefox115', 'safari16'],
    tsconfig: path.join(page, 'tsconfig.json'),
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  writeMetafile(`board-page-${path.parse(file).name}`, built.metafile);
}
for (const file of ['board.css', 'index.html']) fs.copyFileSync(path.join(page, file), path.join(out, file));
