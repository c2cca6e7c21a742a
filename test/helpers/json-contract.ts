import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { ROOT } from './cli.js';

/**
 * Validating real outputs against the committed JSON Schemas (docs/schemas/), as a script
 * author's validator would: ajv, draft 2020-12.
 */
const ajv = new Ajv2020({ allErrors: true });
const compiled = new Map<string, { validate: ValidateFunction; form: 'document' | 'ndjson' }>();

function schemaOf(name: string) {
  let entry = compiled.get(name);
  if (!entry) {
    const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', 'schemas', `${name}.schema.json`), 'utf8')) as {
      description: string;
    };
    // The standard annotation says which: "NDJSON: ..." or "One JSON document. ...".
    entry = { validate: ajv.compile(schema), form: schema.description.startsWith('NDJSON:') ? 'ndjson' : 'document' };
    compiled.set(name, entry);
  }
  return entry;
}

/** Problems of `text` against output schema `name`: [] when it is valid. */
export function contractProblems(name: string, text: string): string[] {
  const { validate, form } = schemaOf(name);
  const values =
    form === 'document'
      ? [text]
      : text
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => l);
  const problems: string[] = [];
  for (const raw of values) {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      problems.push(`not JSON: ${(err as Error).message}: ${raw.slice(0, 200)}`);
      continue;
    }
    if (!validate(value)) {
      problems.push(`${ajv.errorsText(validate.errors, { separator: '; ' })}: ${raw.slice(0, 300)}`);
    }
  }
  return problems;
}
