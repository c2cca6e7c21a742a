/**
 * Interop: what makes Claude Code clear a list itself (docs/task-store.md section 6.7).
 * An interactive session on the list clears it about 5 s after every task of it is
 * completed, with no new prompt: here it sits idle at its prompt while `tasks done`
 * completes its last task, and the list goes all the same, the model asked nothing more.
 * A task that is not completed within those seconds keeps the list; a session started on
 * a list already all completed clears it before any prompt. `tasks log` says what
 * happened in those words (its old words blamed a new prompt).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { liveFiles, waitFor, world } from './session-world.js';

const create = (subject: string): Turn[number] => ({ name: 'TaskCreate', input: { subject, description: `${subject}, carefully` } });
const set = (taskId: string, status: string): Turn[number] => ({ name: 'TaskUpdate', input: { taskId, status } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const taskFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.json')) : []);

async function idleSession(w: ReturnType<typeof world>, proj: string, listId: string) {
  const byPrompt = (prompt: string): Turn | undefined => {
    if (/^plan it$/m.test(prompt)) return [create('Ship it')];
    if (/^start it$/m.test(prompt)) return [set('1', 'in_progress')];
    return undefined;
  };
  const session = await startInteractive({
    configDir: w.config,
    cwd: proj,
    home: w.home,
    byPrompt,
    env: { CLAUDE_CODE_TASK_LIST_ID: listId },
  });
  const live = await waitFor('the live-session file', () => liveFiles(w.config)[0]);
  await session.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
  const status = () => (JSON.parse(fs.readFileSync(live.file, 'utf8')) as { status?: string }).status;
  const list = path.join(w.config, 'tasks', listId);
  const inProgress = () => {
    const file = path.join(list, '1.json');
    return fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')) as { status: string }).status === 'in_progress';
  };
  session.type('plan it');
  await waitFor('#1 made', () => fs.existsSync(path.join(list, '1.json')));
  await waitFor('idle after its first prompt', () => status() === 'idle');
  session.type('start it');
  await waitFor('#1 in progress', inProgress);
  await waitFor('idle at its prompt', () => status() === 'idle');
  return { session, list, status };
}

describe('the real Claude Code clears a list itself: 5 s after its tasks are all completed, no prompt needed', () => {
  it('idle at its prompt, its last task completed by tasks done: the list goes about 5 s later, and log says so', async () => {
    const w = world();
    const proj = w.dir('work/web');
    const { session, list, status } = await idleSession(w, proj, 'web');
    try {
      const served = session.model.turnsServed();
      const done = await w.tasks(proj, ['-l', 'web', 'done', '1']);
      expect(done.code, done.stderr).toBe(0);
      const completedAt = Date.now();
      await waitFor('the list cleared', () => taskFiles(list).length === 0, 30_000);
      const after = Date.now() - completedAt;
      // Claude Code's timer is 5 s; the session reads the list within 50 ms of a change.
      expect(after).toBeGreaterThan(4000);
      expect(after).toBeLessThan(15_000);
      // No prompt began: the model was asked nothing more, and the session stayed idle.
      expect(session.model.turnsServed()).toBe(served);
      expect(status()).toBe('idle');
      expect(fs.readFileSync(path.join(list, '.highwatermark'), 'utf8').trim()).toBe('1');

      const log = await w.tasks(proj, ['-l', 'web', 'log']);
      expect(log.code, log.stderr).toBe(0);
      const last = log.stdout.trimEnd().split('\n').at(-1)?.split('\t').slice(1);
      expect(last).toEqual([
        '#1',
        '(no record)',
        'cleared by Claude Code: an interactive session on the list clears it 5 s after every task is completed',
      ]);
      expect(log.stdout).not.toContain('new prompt');
    } finally {
      await session.stop();
    }
  });

  it('a task not completed within those seconds keeps the list', async () => {
    const w = world();
    const proj = w.dir('work/api');
    const { session, list } = await idleSession(w, proj, 'api');
    try {
      const done = await w.tasks(proj, ['-l', 'api', 'done', '1']);
      expect(done.code, done.stderr).toBe(0);
      const more = await w.tasks(proj, ['-l', 'api', 'create', 'Announce it']);
      expect(more.code, more.stderr).toBe(0);
      await sleep(9000);
      expect(taskFiles(list).sort()).toEqual(['1.json', '2.json']);
    } finally {
      await session.stop();
    }
  });

  it('a session started on a list already all completed clears it within seconds, before any prompt', async () => {
    const w = world();
    const proj = w.dir('work/old');
    const list = path.join(w.config, 'tasks', 'old');
    fs.mkdirSync(list, { recursive: true });
    fs.writeFileSync(
      path.join(list, '1.json'),
      JSON.stringify({ id: '1', subject: 'Old', description: '', status: 'completed', blocks: [], blockedBy: [] }),
    );
    const session = await startInteractive({
      configDir: w.config,
      cwd: proj,
      home: w.home,
      byPrompt: () => undefined,
      env: { CLAUDE_CODE_TASK_LIST_ID: 'old' },
    });
    try {
      await session.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      const shown = Date.now();
      await waitFor('the list cleared', () => taskFiles(list).length === 0, 30_000);
      expect(Date.now() - shown).toBeGreaterThan(2000);
      expect(session.model.turnsServed()).toBe(0);
      expect(fs.readFileSync(path.join(list, '.highwatermark'), 'utf8').trim()).toBe('1');
    } finally {
      await session.stop();
    }
  });
});
