#!/usr/bin/env node
// docs/schemas/<name>.schema.json from the zod schemas of every --json output
// (src/render/json-schemas/output-schemas.ts, compiled into dist/ by `npm run build`): `npm run schemas`.
// With --check, writes nothing and exits 1 naming the files that are stale or missing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'docs', 'schemas');

/**
 * The files, by name, from the registry (OUTPUT_SCHEMAS) and zod's generator; the tests call this with the sources.
 * Whether an output is one document or NDJSON is said in the standard `description` annotation
 * ("NDJSON: ..." or "One JSON document. ..."): a keyword of our own would be refused by
 * validators in strict mode (ajv's default).
 */
export function schemaFiles(OUTPUT_SCHEMAS, toJSONSchema) {
  const files = new Map();
  for (const [name, entry] of Object.entries(OUTPUT_SCHEMAS)) {
    const schema = toJSONSchema(entry.schema, { target: 'draft-2020-12', unrepresentable: 'any' });
    const doc = {
      $schema: schema.$schema,
      $id: `urn:claude-code-tasks:schema:${name}`,
      title: entry.title,
      description:
        entry.form === 'ndjson'
          ? 'NDJSON: each line is one JSON value valid against this schema. Generated from src/render/json-schemas/ by npm run schemas; do not edit.'
          : 'One JSON document. Generated from src/render/json-schemas/ by npm run schemas; do not edit.',
      ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
    };
    files.set(`${name}.schema.json`, `${JSON.stringify(doc, null, 2)}\n`);
  }
  return files;
}

async function generatedSchemas() {
  const { OUTPUT_SCHEMAS } = await import(path.join(ROOT, 'dist', 'render', 'json-schemas', 'output-schemas.js'));
  const { toJSONSchema } = await import('zod/v4');
  return schemaFiles(OUTPUT_SCHEMAS, toJSONSchema);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await generatedSchemas();
  if (process.argv.includes('--check')) {
    const stale = [...files].filter(([name, text]) => {
      const file = path.join(OUT, name);
      return !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text;
    });
    const extra = fs.existsSync(OUT) ? fs.readdirSync(OUT).filter((n) => n.endsWith('.schema.json') && !files.has(n)) : [];
    for (const [name] of stale) console.error(`stale or missing: docs/schemas/${name}`);
    for (const name of extra) console.error(`not generated: docs/schemas/${name}`);
    process.exit(stale.length + extra.length > 0 ? 1 : 0);
  }
  fs.mkdirSync(OUT, { recursive: true });
  for (const [name, text] of files) fs.writeFileSync(path.join(OUT, name), text);
  console.log(`wrote ${files.size} schemas to docs/schemas/`);
}
