// `npm run docs`: the command reference, docs/reference/, written from the built program
// (src/cli/reference/): a page per command and the table of every code. Made the same on
// every machine; test/unit/reference-docs.test.ts fails when what is on disk is stale.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { referencePages } from '../dist/cli/reference/reference-pages.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const docs = path.join(root, 'docs');
const out = path.join(docs, 'reference');
const pages = await referencePages({
  jsonOutput: fs.readFileSync(path.join(docs, 'json-output.md'), 'utf8'),
  schemaFiles: fs.readdirSync(path.join(docs, 'schemas')),
});
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
for (const page of pages) fs.writeFileSync(path.join(out, page.file), page.text);
console.error(`docs/reference: ${pages.length} pages`);
