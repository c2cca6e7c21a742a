// Writes dist/cli/completion/spec.json: the commands, options, arguments and value kinds
// of the built program, which `tasks __complete` reads on every TAB instead of loading
// commander and every command. Run by `npm run build`, after tsc.
import fs from 'node:fs';
import { currentSpec } from '../dist/cli/completion/spec-from-program.js';
import { SPEC_FILE } from '../dist/cli/completion/spec-load.js';

fs.writeFileSync(SPEC_FILE, `${JSON.stringify(currentSpec())}\n`);
