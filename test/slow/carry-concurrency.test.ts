import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, runAsync, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

/** A task file's fields (a type, not an interface: writeTask takes any record). */
type FileTask = {
  id: string;
  subject: string;
  status: string;
  owner?: string;
  blocks: string[];
  blockedBy: string[];
  metadata?: Record<string, unknown>;
};

const task = (id: string, subject: string, extra: Partial<FileTask> = {}): FileTask =>
  ({
    id,
    subject,
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    ...extra,
  }) as FileTask;

function world() {
  const config = tempConfig();
  const proj = path.join(config, 'home', 'work', 'web');
  fs.mkdirSync(proj, { recursive: true });
  const listDir = (id: string) => path.join(config, 'tasks', id);
  const tasks = (id: string) =>
    fs
      .readdirSync(listDir(id))
      .filter((f) => f.endsWith('.json'))
      .map((f) => readJson(path.join(listDir(id), f)) as FileTask)
      .sort((a, b) => Number(a.id) - Number(b.id));
  const tasksCli = (args: string[], cwd = proj) => runInProcessSync(config, args, { cwd });
  return { config, proj, listDir, tasks, tasksCli };
}

describe('tasks carry, from several processes', () => {
  it("two carries at once from one list into two others: each task is taken once, the loser's copy removed", async () => {
    const w = world();
    const from = w.listDir('from');
    const n = 200;
    for (let i = 1; i <= n; i++) writeTask(from, task(String(i), `Task ${i}`));
    const [a, b] = await Promise.all([
      runAsync(w.config, ['-l', 'to-a', 'carry', '--from', 'from', '--json']),
      runAsync(w.config, ['-l', 'to-b', 'carry', '--from', 'from', '--json']),
    ]);
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    const inA = fs.existsSync(w.listDir('to-a')) ? w.tasks('to-a') : [];
    const inB = fs.existsSync(w.listDir('to-b')) ? w.tasks('to-b') : [];
    // Every task of "from" is in exactly one of the two lists, and its mark says which.
    expect(inA.length + inB.length).toBe(n);
    for (const t of w.tasks('from')) {
      const mark = t.metadata?.carriedTo as { list: string; id: string };
      const there = (mark.list === 'to-a' ? inA : inB).find((x) => x.id === mark.id);
      expect(there?.subject).toBe(t.subject);
      expect(there?.metadata?.carriedFrom).toEqual({ list: 'from', id: t.id });
    }
  });
});
