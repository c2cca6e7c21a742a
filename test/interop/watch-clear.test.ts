/**
 * Interop: `tasks watch` across `/clear`, against the real Claude Code in tmux.
 *
 * Two interactive sessions in one project (so that "the only live session in the folder"
 * cannot tell where a session went). A watch with `--until all-completed` on the first
 * session's list; the session makes a task, then is /clear-ed: the watch follows it to its
 * new list (a `session-cleared` event naming the new session), shows the new session's
 * task, and does not pass when the new list's work is all done while the task left
 * behind is not; once that is done too, it passes (exit 0).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startWatch } from '../helpers/watch.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { liveFiles, waitFor, world } from './session-world.js';

const byPrompt = (prompt: string): Turn | undefined => {
  const create = /^create (.+)$/m.exec(prompt)?.[1];
  if (create !== undefined) return [{ name: 'TaskCreate', input: { subject: create, description: `${create}, from the agent` } }];
  const done = /^done (\d+)$/m.exec(prompt)?.[1];
  if (done !== undefined) return [{ name: 'TaskUpdate', input: { taskId: done, status: 'completed' } }];
  return undefined;
};

describe('the real Claude Code: watch follows /clear', () => {
  it('follows the cleared session to its new list, with another session live in the project; the gate waits for the work left behind', async () => {
    const w = world();
    const proj = w.dir('work/web');
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
    let b: Awaited<ReturnType<typeof startInteractive>> | undefined;
    let watch: ReturnType<typeof startWatch> | undefined;
    try {
      const first = await waitFor('the first live file', () => liveFiles(w.config)[0]);
      await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the first prompt');
      b = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
      const other = await waitFor('the second live file', () => liveFiles(w.config).find((f) => f.pid !== first.pid));
      await b.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the second prompt');
      a.type('create Left behind');
      await waitFor('the first task', () => fs.existsSync(path.join(w.config, 'tasks', first.sessionId, '1.json')));
      b.type('create Other work');
      await waitFor("the other session's task", () => fs.existsSync(path.join(w.config, 'tasks', other.sessionId, '1.json')));

      watch = startWatch(w.config, ['-l', first.sessionId, 'watch', '--json', '--until', 'all-completed', '--timeout', '170s'], {
        HOME: w.home,
      });
      await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      a.type('/clear');
      const cleared = await waitFor('the new session id', () =>
        liveFiles(w.config).find((f) => f.pid === first.pid && f.sessionId !== first.sessionId),
      );
      const switched = await watch.waitFor((e) => e.event === 'session-cleared', 'the switch', 60_000);
      // The watch saw the process on the first session, then on the new one: sure.
      expect(switched).toMatchObject({
        session: first.sessionId,
        newSession: cleared.sessionId,
        sure: true,
        from: first.sessionId,
        to: cleared.sessionId,
        followed: true,
      });
      // The new session's work, made and completed by its agent: the gate still waits for what was left behind.
      a.type('create After the clear');
      await watch.waitFor((e) => e.event === 'created' && e.task?.subject === 'After the clear', "the new session's task", 60_000);
      a.type('done 1');
      await watch.waitFor((e) => e.event === 'updated' && e.task?.status === 'completed', "the new session's completion", 60_000);
      expect(watch.events().some((e) => e.event === 'end')).toBe(false);
      expect(watch.events().some((e) => e.event === 'created' && e.task?.subject === 'Other work')).toBe(false);
      const done = await w.tasks(proj, ['-l', first.sessionId, 'done', '1']);
      expect(done.code, done.stderr).toBe(0);
      const end = await watch.exited;
      expect(end.code, end.stderr).toBe(0);
      expect(watch.events().at(-1)).toMatchObject({
        event: 'end',
        list: cleared.sessionId,
        reason: 'condition-met',
        met: true,
        left: [{ list: first.sessionId, unfinished: [] }],
      });
    } finally {
      await watch?.stop();
      await a.stop();
      await b?.stop();
    }
  });
});
