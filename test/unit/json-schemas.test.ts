/**
 * The committed JSON Schemas (docs/schemas/) are what the zod schemas generate: a change
 * to an output's schema without `npm run schemas` fails here, naming the stale files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
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

describe('docs/schemas/ under a validator in strict mode (ajv with its defaults)', () => {
  const names = fs.readdirSync(DIR).filter((n) => n.endsWith('.schema.json'));

  it('every schema compiles with new Ajv2020(), defaults as they are, without a warning', () => {
    // ajv logs what strict mode only warns about (strictTypes, strictTuples) on the console.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const ajv = new Ajv2020();
      for (const name of names) {
        const schema = JSON.parse(fs.readFileSync(path.join(DIR, name), 'utf8')) as object;
        expect(() => ajv.compile(schema), name).not.toThrow();
      }
      expect(warn.mock.calls).toEqual([]);
    } finally {
      warn.mockRestore();
    }
    expect(names.length).toBeGreaterThan(20);
  });

  it('a keyword of our own is what strict mode refuses (so the test above can fail)', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(DIR, 'run.schema.json'), 'utf8')) as object;
    expect(() => new Ajv2020().compile({ ...schema, 'x-form': 'ndjson' })).toThrow(/strict mode: unknown keyword: "x-form"/);
  });
});
