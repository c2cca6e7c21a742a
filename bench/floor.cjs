'use strict';
// The floor for `tasks list --json` on Node (bench/run.mjs times it as a reference row):
// read every task file of a folder, parse it, sort by id and print the array as the
// files are written (two-space JSON). No validation, no options, nothing else.
const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2];
const tasks = [];
for (const name of fs.readdirSync(dir)) {
  if (name.endsWith('.json')) tasks.push(JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')));
}
tasks.sort((a, b) => Number(a.id) - Number(b.id));
process.stdout.write(`${JSON.stringify(tasks, null, 2)}\n`);
