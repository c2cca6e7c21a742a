#!/usr/bin/env node
// Stands in for a Claude Code agent's TaskUpdate (docs/task-store.md sections 5-6): for
// each update, take the task lock with proper-lockfile and Claude Code's exact options,
// re-read the task, merge one metadata key ({...old, metadata: {...old.metadata, key},
// id}), write it back with a plain writeFile (not temp + rename, as the agent does),
// release.
//
// usage: node agent-writer.mjs <listDir> <tag> <count> <id...>
// Update i goes to ids[i % ids.length] and sets metadata["<tag>-<i>"] = i.
// Prints one JSON line per update done: {"id": "...", "key": "..."}; exits 1 on any failure.
import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

const CLAUDE_LOCK_OPTIONS = { retries: { retries: 30, minTimeout: 5, maxTimeout: 100 } };

const [listDir, tag, countText, ...ids] = process.argv.slice(2);
const count = Number(countText);
if (!listDir || !tag || !Number.isInteger(count) || ids.length === 0) {
  process.stderr.write('usage: agent-writer.mjs <listDir> <tag> <count> <id...>\n');
  process.exit(2);
}

for (let i = 0; i < count; i++) {
  const id = ids[i % ids.length];
  const file = path.join(listDir, `${id}.json`);
  const key = `${tag}-${i}`;
  let release;
  try {
    release = await lockfile.lock(file, CLAUDE_LOCK_OPTIONS);
    const old = JSON.parse(fs.readFileSync(file, 'utf8'));
    const next = { ...old, metadata: { ...(old.metadata ?? {}), [key]: i }, id };
    fs.writeFileSync(file, JSON.stringify(next, null, 2), { encoding: 'utf8' });
  } catch (err) {
    process.stderr.write(`agent-writer: update ${key} of task ${id} failed: ${err.message}\n`);
    process.exit(1);
  } finally {
    if (release) await release();
  }
  process.stdout.write(`${JSON.stringify({ id, key })}\n`);
}
