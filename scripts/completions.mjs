// Writes completions/: the bash, zsh and fish scripts, exactly as `tasks completion <shell>`
// prints them (a test checks that the files are current). Run after a build:
// `npm run completions`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { completionFileName, completionScript, SHELLS } from '../dist/cli/completion/scripts/shell-scripts.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'completions');
fs.mkdirSync(dir, { recursive: true });
for (const shell of SHELLS) {
  const file = path.join(dir, completionFileName(shell, 'tasks'));
  fs.writeFileSync(file, completionScript(shell, 'tasks'));
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
