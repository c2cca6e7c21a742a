#!/usr/bin/env node
// One change to a task list as a Claude Code agent's tools make it (docs/task-store.md section 5, locks, and 6.1-6.2, create and update):
// TaskCreate takes the list lock, allocates max(file ids, .highwatermark) + 1 and writes
// the file with a plain writeFile; TaskUpdate takes the task lock, re-reads, merges
// ({...old, ...patch, id}) and writes in place. Locks: proper-lockfile with Claude
// Code's options.
//
// usage: node agent-task.mjs <listDir> create <subject> [<json fields>]
//        node agent-task.mjs <listDir> update <id> <json patch>
// Prints the task written, as JSON.
import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

const OPTIONS = { retries: { retries: 30, minTimeout: 5, maxTimeout: 100 } };
const [listDir, op, arg, json] = process.argv.slice(2);

async function locked(file, fn) {
  const release = await lockfile.lock(file, OPTIONS);
  try {
    return fn();
  } finally {
    await release();
  }
}

let task;
if (op === 'create') {
  fs.mkdirSync(listDir, { recursive: true });
  const lock = path.join(listDir, '.lock');
  if (!fs.existsSync(lock)) fs.writeFileSync(lock, '');
  task = await locked(lock, () => {
    const ids = fs
      .readdirSync(listDir)
      .map((n) => /^([1-9][0-9]*)\.json$/.exec(n)?.[1])
      .filter(Boolean)
      .map(Number);
    let mark = 0;
    try {
      mark = Number(fs.readFileSync(path.join(listDir, '.highwatermark'), 'utf8')) || 0;
    } catch {}
    const id = String(Math.max(0, mark, ...ids) + 1);
    const t = { id, subject: arg, description: '', status: 'pending', blocks: [], blockedBy: [], ...(json ? JSON.parse(json) : {}) };
    fs.writeFileSync(path.join(listDir, `${id}.json`), JSON.stringify(t, null, 2));
    return t;
  });
} else if (op === 'update') {
  const file = path.join(listDir, `${arg}.json`);
  task = await locked(file, () => {
    const old = JSON.parse(fs.readFileSync(file, 'utf8'));
    const t = { ...old, ...JSON.parse(json), id: arg };
    for (const [k, v] of Object.entries(t)) if (v === null) delete t[k];
    fs.writeFileSync(file, JSON.stringify(t, null, 2));
    return t;
  });
} else {
  process.stderr.write('usage: agent-task.mjs <listDir> create <subject> [json] | update <id> <json>\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(task)}\n`);
