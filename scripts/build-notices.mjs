// THIRD_PARTY_NOTICES, made by `npm run build` after the bundles: the bundles carry code
// of other packages (commander, chalk, zod, proper-lockfile and what they use) without
// their licence files, so the package ships those files' text here. Which packages: the
// esbuild metafiles the bundle builds leave in dist/meta/ (every input file of every
// bundle); their text: each package's own licence file, as it is in node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const metaDir = path.join(root, 'dist', 'meta');

/** The package folder (relative to the root) an input of a bundle comes from, if it is a package's. */
export function packageFolderOf(input) {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const scoped = parts[at + 1]?.startsWith('@');
  return parts.slice(0, at + (scoped ? 3 : 2)).join('/');
}

const folders = new Set();
for (const file of fs.readdirSync(metaDir).filter((f) => f.endsWith('.json'))) {
  const meta = JSON.parse(fs.readFileSync(path.join(metaDir, file), 'utf8'));
  for (const input of Object.keys(meta.inputs)) {
    const folder = packageFolderOf(input);
    if (folder !== undefined) folders.add(folder);
  }
}

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt|markdown))?$/i;
const packages = [...folders]
  .map((folder) => {
    const dir = path.join(root, folder);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const texts = fs
      .readdirSync(dir)
      .filter((f) => LICENCE_FILE.test(f))
      .sort()
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8').trim());
    if (texts.length === 0) throw new Error(`${pkg.name}: bundled, but it has no licence file to ship (${folder})`);
    return { name: pkg.name, version: pkg.version, license: pkg.license, texts };
  })
  .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

const rule = '-'.repeat(78);
const notices = [
  'THIRD-PARTY NOTICES',
  '',
  'The files of this package in dist/ hold code of the packages below, bundled into them.',
  'Each package is under its own licence, whose text follows.',
  '',
  ...packages.map((p) => `  ${p.name} ${p.version} (${p.license})`),
  '',
  ...packages.flatMap((p) => [rule, `${p.name} ${p.version}`, `License: ${p.license}`, '', p.texts.join('\n\n'), '']),
].join('\n');
fs.writeFileSync(path.join(root, 'THIRD_PARTY_NOTICES'), notices);
