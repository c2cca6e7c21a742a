#!/usr/bin/env node
// A stand-in for a Claude Code agent writing a task list, for the stress test: the same
// locks with the same options (proper-lockfile, retries 30 / 5 ms / 100 ms), the same id
// rule, and plain writeFile (truncate, then write) as TaskCreate / TaskUpdate do
// (docs/task-store.md sections 5-6). It runs random operations until killed or until its
// time is up.
//
// Usage: node scripts/agent-writer.mjs <listDir> <ms to run> <name>
//
// It reports on stdout with synchronous writes, so that a SIGKILL loses nothing said:
//   w <file>             about to write <file> in place (a kill now may tear it)
//   d <file>             finished writing <file>
//   created <id>         a task was created
//   updated <id> <key>   metadata <key> was set to "x" on <id>
//   blocked <a> <b>      <a> blocks <b>, both sides written
//   deleting <id>        about to remove the file of <id> (a kill now may or may not have)
//   deleted <id>         the file of <id> was removed (references are cleaned after)
//   busy <op>            a lock could not be had (as "Lock file is already being held")
import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

const [listDir, runMs, name] = process.argv.slice(2);
const OPTIONS = { retries: { retries: 30, minTimeout: 5, maxTimeout: 100 }, onCompromised: () => {} };
const say = (line) => fs.writeSync(1, `${line}\n`);
let seq = 0;

function ids() {
  return fs
    .readdirSync(listDir)
    .map((n) => /^([1-9][0-9]*)\.json$/.exec(n)?.[1])
    .filter(Boolean);
}

function readTask(id) {
  try {
    const task = JSON.parse(fs.readFileSync(path.join(listDir, `${id}.json`), 'utf8'));
    return typeof task === 'object' && task && typeof task.subject === 'string' && Array.isArray(task.blocks) ? task : undefined;
  } catch {
    return undefined; // missing or unreadable: "Task not found"
  }
}

function writeInPlace(file, text) {
  say(`w ${path.basename(file)}`);
  fs.writeFileSync(file, text);
  say(`d ${path.basename(file)}`);
}

async function withLock(target, fn) {
  const release = await lockfile.lock(target, OPTIONS);
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}

/** TaskUpdate: task lock, re-read, merge, write. */
async function updateTask(id, change) {
  const file = path.join(listDir, `${id}.json`);
  if (!fs.existsSync(file)) return false;
  return withLock(file, () => {
    const task = readTask(id);
    if (!task) return false;
    writeInPlace(file, JSON.stringify({ ...change(task), id }, null, 2));
    return true;
  });
}

async function create() {
  const target = path.join(listDir, '.lock');
  try {
    fs.writeFileSync(target, '', { flag: 'wx' });
  } catch {}
  const id = await withLock(target, () => {
    let mark = 0;
    try {
      mark = Number.parseInt(fs.readFileSync(path.join(listDir, '.highwatermark'), 'utf8'), 10) || 0;
    } catch {}
    const next = String(Math.max(mark, ...ids().map(Number), 0) + 1);
    const task = { id: next, subject: `agent ${name} ${seq}`, description: '', status: 'pending', blocks: [], blockedBy: [] };
    writeInPlace(path.join(listDir, `${next}.json`), JSON.stringify(task, null, 2));
    return next;
  });
  say(`created ${id}`);
}

async function update() {
  const all = ids();
  const id = all[Math.floor(Math.random() * all.length)];
  if (!id) return;
  const key = `${name}_${seq}`;
  if (await updateTask(id, (t) => ({ ...t, metadata: { ...(t.metadata ?? {}), [key]: 'x' } }))) say(`updated ${id} ${key}`);
}

async function block() {
  const all = ids()
    .map(Number)
    .sort((a, b) => a - b);
  if (all.length < 2) return;
  const i = Math.floor(Math.random() * (all.length - 1));
  const a = String(all[i]);
  const b = String(all[i + 1 + Math.floor(Math.random() * (all.length - i - 1))]);
  // Lower id blocks higher: never a cycle. Two task-locked writes, as TaskUpdate addBlocks.
  if (!(await updateTask(a, (t) => ({ ...t, blocks: t.blocks.includes(b) ? t.blocks : [...t.blocks, b] })))) return;
  if (!(await updateTask(b, (t) => ({ ...t, blockedBy: t.blockedBy.includes(a) ? t.blockedBy : [...t.blockedBy, a] })))) return;
  say(`blocked ${a} ${b}`);
}

async function remove() {
  const all = ids();
  if (all.length < 10) return; // keep the list busy
  const id = all[Math.floor(Math.random() * all.length)];
  const markFile = path.join(listDir, '.highwatermark');
  let mark = 0;
  try {
    mark = Number.parseInt(fs.readFileSync(markFile, 'utf8'), 10) || 0;
  } catch {}
  // Claude Code takes no lock for the mark and the unlink.
  if (Number(id) > mark) writeInPlace(markFile, id);
  say(`deleting ${id}`);
  try {
    fs.unlinkSync(path.join(listDir, `${id}.json`));
  } catch {
    return;
  }
  say(`deleted ${id}`);
  for (const other of ids()) {
    const t = readTask(other);
    if (t && (t.blocks.includes(id) || t.blockedBy.includes(id))) {
      await updateTask(other, (x) => ({
        ...x,
        blocks: x.blocks.filter((y) => y !== id),
        blockedBy: x.blockedBy.filter((y) => y !== id),
      })).catch(() => {});
    }
  }
}

const deadline = Date.now() + Number(runMs);
while (Date.now() < deadline) {
  seq++;
  const r = Math.random();
  const op = r < 0.3 ? create : r < 0.75 ? update : r < 0.92 ? block : remove;
  try {
    await op();
  } catch (err) {
    if (err && err.code === 'ELOCKED') say(`busy ${op.name}`);
    else if (err && err.code !== 'ENOENT') say(`error ${op.name} ${String(err.message).replace(/\s+/g, ' ')}`);
  }
  await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 30)));
}
