'use strict';
// The floor for `tasks lists` on Node (bench/run.mjs and bench/lists.mjs time it beside
// it): only look at the files `lists` must look at to know nothing changed since its
// last run, and read none of them. It stats every session transcript under projects/,
// every list folder under tasks/ and every task file in them, and prints how many it saw.
// No parsing, no cache, no output worth the name.
const fs = require('node:fs');
const path = require('node:path');

const config = process.argv[2];
let stats = 0;
const projects = path.join(config, 'projects');
for (const project of safeDir(projects)) {
  const dir = path.join(projects, project);
  for (const name of safeDir(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    fs.statSync(path.join(dir, name));
    stats++;
  }
}
const tasks = path.join(config, 'tasks');
for (const list of safeDir(tasks)) {
  const dir = path.join(tasks, list);
  fs.statSync(dir);
  stats++;
  for (const name of safeDir(dir)) {
    if (!name.endsWith('.json')) continue;
    fs.statSync(path.join(dir, name));
    stats++;
  }
}
process.stdout.write(`${stats} stats\n`);

function safeDir(dir) {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
