/**
 * A task file read while its writer is half-way through (Claude Code truncates, then
 * writes, under the task's lock): the read waits for the write while the lock is held,
 * however long a loaded machine makes it, and calls an empty file nobody is writing
 * corrupt at once. The writer is another process, as an agent is.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTaskFile } from '../../src/core/store/task-file.js';

const TASK = { id: '6', subject: 'Six', description: '', status: 'pending', blocks: [], blockedBy: [] };
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function emptyTask(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-torn-'));
  dirs.push(dir);
  const file = path.join(dir, '6.json');
  fs.writeFileSync(file, '');
  return file;
}

/** Another process writes the task (and lets go of its lock) after `ms`; resolves once it has started. */
function writeLater(file: string, ms: number): Promise<void> {
  const script = `setTimeout(() => { require('fs').writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(JSON.stringify(TASK))}); require('fs').rmSync(${JSON.stringify(`${file}.lock`)}, { recursive: true, force: true }); }, ${ms});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  return new Promise((resolve) => child.once('spawn', () => resolve()));
}

describe('a task file read half-way through its write', () => {
  it('while its lock is held, the read waits for the writer, even 300 ms', async () => {
    const file = emptyTask();
    fs.mkdirSync(`${file}.lock`);
    await writeLater(file, 300);
    const started = Date.now();
    expect(readTaskFile(file)).toMatchObject({ kind: 'ok', task: { id: '6', subject: 'Six' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('with no lock held, an empty file is corrupt after the short retries alone', () => {
    const file = emptyTask();
    const started = Date.now();
    expect(readTaskFile(file)).toMatchObject({ kind: 'invalid', reason: 'empty file' });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('a stale lock (its holder gone for over 10 s) is nobody writing', () => {
    const file = emptyTask();
    fs.mkdirSync(`${file}.lock`);
    const old = (Date.now() - 60_000) / 1000;
    fs.utimesSync(`${file}.lock`, old, old);
    const started = Date.now();
    expect(readTaskFile(file)).toMatchObject({ kind: 'invalid', reason: 'empty file' });
    expect(Date.now() - started).toBeLessThan(500);
  });
});
