// Writes task files the way an agent's plain writeFile does (truncate, then write; no
// lock, no temp file), sometimes in two pieces with a pause between, as a slow writer
// would (now and then for longer than a watcher's debounce): a watcher must retry such
// files, never report them half-written.
// Usage: node raw-writer.mjs <listDir> <firstId> <lastId> <changes> <seed>
// Prints {"changes": n, "deleted": [ids, one per deletion]} as JSON.
import fs from 'node:fs';
import path from 'node:path';

const [dir, first, last, changes, seedArg] = process.argv.slice(2);
let seed = Number(seedArg) || 1;
// The high bits: an LCG's low bits repeat with a short period.
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return Math.floor(seed / 65536) % n;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const lo = Number(first);
const hi = Number(last);
const live = new Map();

async function write(task) {
  const file = path.join(dir, `${task.id}.json`);
  const text = JSON.stringify(task, null, 2);
  if (rand(2) === 0) {
    fs.writeFileSync(file, text);
  } else {
    const fd = fs.openSync(file, 'w');
    const cut = Math.floor(text.length / 2);
    fs.writeSync(fd, text.slice(0, cut));
    // Mostly a moment; sometimes longer than a watcher's debounce and read retries.
    await sleep(rand(8) === 0 ? 150 + rand(150) : 1 + rand(3));
    fs.writeSync(fd, text.slice(cut));
    fs.closeSync(fd);
  }
  live.set(task.id, task);
}

let done = 0;
const deleted = [];
while (done < Number(changes)) {
  const ids = [...live.keys()];
  const op = ids.length === 0 ? 0 : rand(10);
  if (op < 3) {
    const id = String(lo + rand(hi - lo + 1));
    if (live.has(id)) continue;
    await write({ id, subject: `raw ${id}`, description: 'written raw', status: 'pending', blocks: [], blockedBy: [] });
  } else if (op < 9) {
    const id = ids[rand(ids.length)];
    const t = { ...live.get(id) };
    const field = rand(4);
    if (field === 0) t.status = ['pending', 'in_progress', 'completed'][rand(3)];
    else if (field === 1) {
      if (t.owner && rand(2)) delete t.owner;
      else t.owner = `agent-${rand(3)}`;
    } else if (field === 2) t.metadata = { ...(t.metadata ?? {}), n: rand(1000) };
    else t.activeForm = `Working on ${id} (${rand(100)})`;
    await write(t);
  } else {
    const id = ids[rand(ids.length)];
    fs.unlinkSync(path.join(dir, `${id}.json`));
    live.delete(id);
    deleted.push(id);
  }
  done++;
  await sleep(rand(15));
}
process.stdout.write(`${JSON.stringify({ changes: done, deleted })}\n`);
