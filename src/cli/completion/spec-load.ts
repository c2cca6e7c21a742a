import fs from 'node:fs';
import { type CompletionSpec, SPEC_VERSION } from './spec.js';

/**
 * The spec itself, when the build bundles the completion path (scripts/build-completion.mjs
 * defines it in dist/complete.cjs); undeclared anywhere else.
 */
declare const TASKS_COMPLETION_SPEC: CompletionSpec | undefined;

/** Where the build writes the spec as JSON: next to this module in dist/. */
export function specFile(): URL {
  return new URL('./spec.json', import.meta.url);
}

/**
 * The spec: built into the bundle, else the file the build wrote; without either (a
 * build by plain `tsc`), from the program itself, which is right but loads commander
 * and every command.
 */
export async function loadSpec(): Promise<CompletionSpec> {
  if (typeof TASKS_COMPLETION_SPEC !== 'undefined') return TASKS_COMPLETION_SPEC;
  try {
    const spec = JSON.parse(fs.readFileSync(specFile(), 'utf8')) as CompletionSpec;
    if (spec.version === SPEC_VERSION && typeof spec.program === 'object') return spec;
  } catch {
    // fall through to the program
  }
  const { currentSpec } = await import('./spec-from-program.js');
  return currentSpec();
}
