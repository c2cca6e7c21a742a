'use strict';
// bench/floor.cjs printing the document `tasks list --json` prints: each task with its
// `updatedAt`, the file's change time, which takes a stat a file. No validation, no
// options, nothing else (bench/instructions.mjs counts `tasks` against both).
const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2];
const tasks = [];
for (const name of fs.readdirSync(dir)) {
  if (!name.endsWith('.json')) continue;
  const file = path.join(dir, name);
  const task = JSON.parse(fs.readFileSync(file, 'utf8'));
  task.updatedAt = new Date(fs.statSync(file).mtimeMs).toISOString();
  tasks.push(task);
}
tasks.sort((a, b) => Number(a.id) - Number(b.id));
process.stdout.write(`${JSON.stringify(tasks, null, 2)}\n`);
