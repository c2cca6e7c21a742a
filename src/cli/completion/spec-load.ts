import fs from 'node:fs';
import { SPEC_VERSION, type CompletionSpec } from './spec.js';

/**
 * Where the build writes the spec (scripts/completion-spec.mjs, run by `npm run build`),
 * next to this module in dist/.
 */
export const SPEC_FILE = new URL('./spec.json', import.meta.url);

/**
 * The spec, read from the file the build wrote; without it (a build by plain `tsc`),
 * from the program itself, which is correct but loads commander and every command.
 */
export async function loadSpec(): Promise<CompletionSpec> {
  try {
    const spec = JSON.parse(fs.readFileSync(SPEC_FILE, 'utf8')) as CompletionSpec;
    if (spec.version === SPEC_VERSION && typeof spec.program === 'object') return spec;
  } catch {
    // fall through to the program
  }
  const { currentSpec } = await import('./spec-from-program.js');
  return currentSpec();
}
