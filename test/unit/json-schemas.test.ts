/**
 * The committed JSON Schemas (docs/schemas/) are what the zod schemas generate: a change
 * to an output's schema without `npm run schemas` fails here, naming the stale files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJSONSchema } from 'zod/v4';
// @ts-expect-error: a plain ES module script, without types.
import { schemaFiles } from '../../scripts/build-schemas.mjs';
import { OUTPUT_SCHEMAS } from '../../src/render/json-schemas/output-schemas.js';
import { ROOT } from '../helpers/cli.js';

const DIR = path.join(ROOT, 'docs', 'schemas');

describe('docs/schemas/', () => {
  const files = schemaFiles(OUTPUT_SCHEMAS, toJSONSchema) as Map<string, string>;

  it('holds one schema per --json output, generated from the zod schemas, and nothing else', () => {
    const committed = fs.readdirSync(DIR).filter((n) => n.endsWith('.schema.json'));
    expect(committed.sort()).toEqual([...files.keys()].sort());
    const stale = [...files].filter(([name, text]) => fs.readFileSync(path.join(DIR, name), 'utf8') !== text).map(([name]) => name);
    expect(stale, 'run npm run schemas').toEqual([]);
  });

  it('would notice a schema changed without regenerating', () => {
    const changed = { ...OUTPUT_SCHEMAS, trust: { ...OUTPUT_SCHEMAS.trust!, title: 'something else' } };
    const regenerated = schemaFiles(changed, toJSONSchema) as Map<string, string>;
    expect(regenerated.get('trust.schema.json')).not.toBe(fs.readFileSync(path.join(DIR, 'trust.schema.json'), 'utf8'));
  });
});
