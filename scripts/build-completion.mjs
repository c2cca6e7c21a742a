// The fast path of shell completion, made after dist/ (build-dist.mjs) by `npm run build`:
// 1. dist/cli/completion/spec.json: the commands, options, arguments and value kinds of
//    the built program (what `__complete` knows without loading commander);
// 2. dist/complete.cjs: `tasks __complete` as one CommonJS file with that spec inside,
//    which bin/tasks.js requires on a TAB: no ES module loader, no module resolution,
//    no dependency (measured: about a third of the time of the unbundled ES modules).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { currentSpec } from '../dist/cli/completion/spec-from-program.js';
import { specFile } from '../dist/cli/completion/spec-load.js';
import { writeMetafile } from './metafiles.mjs';
import { sharedNodeModules } from './shared-node-modules.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const spec = await currentSpec();
fs.writeFileSync(specFile(), `${JSON.stringify(spec)}\n`);

const completion = await build({
  entryPoints: [path.join(root, 'dist', 'cli', 'completion', 'complete.js')],
  outfile: path.join(root, 'dist', 'complete.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  define: { TASKS_COMPLETION_SPEC: JSON.stringify(spec) },
  // The fallback for a missing spec loads the whole program; the bundle has the spec.
  external: ['./spec-from-program.js'],
  // import.meta.url is only read on that fallback path; silence the CommonJS warning.
  logOverride: { 'empty-import-meta': 'silent' },
  plugins: [sharedNodeModules(path.join(root, 'dist'))],
  minifySyntax: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
writeMetafile('complete', completion.metafile);
