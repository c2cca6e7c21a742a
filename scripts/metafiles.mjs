// Each bundle's esbuild metafile (every input it holds), kept in dist/meta/ for
// build-notices.mjs, which ships the licences of the packages among those inputs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const metaDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'meta');

export function writeMetafile(name, metafile) {
  fs.mkdirSync(metaDir, { recursive: true });
  fs.writeFileSync(path.join(metaDir, `${name}.json`), `${JSON.stringify(metafile)}\n`);
}
