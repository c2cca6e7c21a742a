/**
 * Interop: a session at a permission prompt, against the real Claude Code in tmux. The
 * agent makes a task and starts it, then asks to run a shell command it is not allowed:
 * Claude Code shows its permission prompt, and its live-session file says so
 * ("status":"waiting","waitingFor":"permission prompt"). `tasks list` then calls the task
 * waiting (its --json a `waiting` object), never stalled: `list --stalled` leaves it out
 * with a note, however short the stall time asked for; `watch --json` marks it, and its
 * timeout names the session it waited on. On a list shared with a headless agent busy on
 * its own task, the prompt still waits, and only the waiting session's task waits on it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from './agent.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const byPrompt = (prompt: string): Turn | undefined => {
  const create = /^create (.+)$/m.exec(prompt)?.[1];
  if (create !== undefined) return [{ name: 'TaskCreate', input: { subject: create, description: `${create}, from the agent` } }];
  const start = /^start (\d+)$/m.exec(prompt)?.[1];
  if (start !== undefined) return [{ name: 'TaskUpdate', input: { taskId: start, status: 'in_progress' } }];
  if (/^run it$/m.test(prompt)) return [{ name: 'Bash', input: { command: 'touch made-by-bash', description: 'Make a file' } }];
  return undefined;
};

/** A live-session file's status (busy, idle, waiting). */
const statusOf = (file: string) => (JSON.parse(fs.readFileSync(file, 'utf8')) as { status?: string }).status;

describe('the real Claude Code: a session waiting for a person', () => {
  it('at a permission prompt: its live file says waiting; tasks list says its task waits, not stalled', async () => {
    const w = world();
    const proj = w.dir('work/api');
    // Not auto mode (the default of this release), which would run the command unasked: the mode that asks.
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt, args: ['--permission-mode', 'default'] });
    try {
      const live = await waitFor('the live file', () => liveFiles(w.config)[0]);
      await a.waitFor((s) => /auto mode|for shortcuts|shift\+tab/.test(s), 'the prompt');
      a.type('create Ship the parser');
      const file = path.join(w.config, 'tasks', live.sessionId, '1.json');
      await waitFor('the task', () => fs.existsSync(file));
      // Its turn over before the next prompt: one typed while a loaded machine still ran the turn was lost.
      await waitFor('idle after its first prompt', () => (statusOf(live.file) === 'idle' ? true : undefined));
      a.type('start 1');
      await waitFor('the task in progress', () => (JSON.parse(fs.readFileSync(file, 'utf8')).status === 'in_progress' ? true : undefined));
      await waitFor('idle after its second prompt', () => (statusOf(live.file) === 'idle' ? true : undefined));
      a.type('run it');
      const said = await waitFor(
        'the waiting status',
        () => {
          const body = JSON.parse(fs.readFileSync(live.file, 'utf8')) as { status?: string; waitingFor?: string };
          return body.status === 'waiting' ? body : undefined;
        },
        30_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; the live file: ${fs.readFileSync(live.file, 'utf8')}; the pane:\n${a.screen()}`);
      });
      expect(said.waitingFor).toBe('permission prompt');
      expect(fs.existsSync(path.join(proj, 'made-by-bash'))).toBe(false);

      const json = await w.tasks(proj, ['-l', live.sessionId, 'list', '--json']);
      expect(json.code, json.stderr).toBe(0);
      const [task] = JSON.parse(json.stdout) as Array<{ status: string; waiting?: { for: string | null; session: string } }>;
      expect(task).toMatchObject({ status: 'in_progress', waiting: { for: 'permission prompt', session: live.sessionId } });
      // However short the stall time, a task that waits for a person is not stalled.
      await new Promise((r) => setTimeout(r, 1200));
      const stalled = await w.tasks(proj, ['-l', live.sessionId, 'list', '--stalled', '1s']);
      expect(stalled.code, stalled.stderr).toBe(0);
      expect(stalled.stdout).toBe('');
      expect(stalled.stderr).toMatch(/not stalled but waiting: #1 \(session .*waits for a person \(permission prompt\)\)/);

      // watch: its NDJSON says who waits, and a timeout names the session it waited on.
      const watch = await w.tasks(proj, ['-l', live.sessionId, 'watch', '--until', 'all-completed', '--timeout', '2s', '--json']);
      expect(watch.code, watch.stderr).toBe(124);
      const events = watch.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; waiting?: unknown });
      const waiting = { for: 'permission prompt', session: live.sessionId, ids: ['1'] };
      expect(events.find((e) => e.event === 'needs-you')?.waiting).toMatchObject(waiting);
      expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'timeout', waiting });
      expect(watch.stderr).toContain('waits for a person (permission prompt): #1 of list');
    } finally {
      await a.stop();
    }
  });

  it('on a shared list while a headless agent is busy on its own task: the prompt waits, and only its task waits on it', async () => {
    const w = world();
    const proj = w.dir('work/fan');
    const hold = gate();
    const headless = runAgent({
      configDir: w.config,
      listId: 'W',
      cwd: proj,
      prompt: 'take the headless work',
      turns: [
        [
          { name: 'TaskCreate', input: { subject: 'Headless work', description: 'd' } },
          { name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', owner: 'h' } },
        ],
        [{ name: 'TaskList', input: {} }],
      ],
      // Busy on its second turn until the end of the test.
      beforeTurn: (i) => (i === 1 ? hold.wait() : undefined),
    });
    await hold.arrived;
    const a = await startInteractive({
      configDir: w.config,
      cwd: proj,
      home: w.home,
      byPrompt,
      env: { CLAUDE_CODE_TASK_LIST_ID: 'W' },
      args: ['--permission-mode', 'default'],
    });
    try {
      await a.waitFor((s) => /auto mode|manual mode|for shortcuts|shift\+tab/.test(s), 'the prompt');
      a.type('create Interactive work');
      const file = path.join(w.config, 'tasks', 'W', '2.json');
      await waitFor('the task', () => fs.existsSync(file));
      // Its turn over before the next prompt (the headless agent beside it stays busy).
      const idle = () => (liveFiles(w.config).some((f) => statusOf(f.file) === 'idle') ? true : undefined);
      await waitFor('idle after its first prompt', idle);
      a.type('start 2');
      await waitFor('the task in progress', () => (JSON.parse(fs.readFileSync(file, 'utf8')).status === 'in_progress' ? true : undefined));
      await waitFor('idle after its second prompt', idle);
      a.type('run it');
      const waiter = await waitFor(
        'the waiting status',
        () => liveFiles(w.config).find((f) => (JSON.parse(fs.readFileSync(f.file, 'utf8')) as { status?: string }).status === 'waiting'),
        30_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; the pane:\n${a.screen()}`);
      });
      expect(JSON.parse(fs.readFileSync(path.join(w.config, 'tasks', 'W', '1.json'), 'utf8'))).toMatchObject({
        status: 'in_progress',
        owner: 'h',
      });

      const json = await w.tasks(proj, ['-l', 'W', 'list', '--json']);
      expect(json.code, json.stderr).toBe(0);
      const tasks = JSON.parse(json.stdout) as Array<{ id: string; waiting?: { for: string | null; session: string } }>;
      expect(tasks.map((t) => [t.id, t.waiting?.session ?? null])).toEqual([
        ['1', null],
        ['2', waiter.sessionId],
      ]);
      expect(tasks[1]?.waiting?.for).toBe('permission prompt');
      const get = await w.tasks(proj, ['-l', 'W', 'get', '2']);
      expect(get.stdout).toMatch(/^Status: +▶ in progress {2}waiting: permission prompt$/m);
      expect((await w.tasks(proj, ['-l', 'W', 'get', '1'])).stdout).not.toMatch(/waiting/);

      const notify = await w.tasks(proj, ['-l', 'W', 'notify', '--once', '--on', 'needs-you', '--to', 'exec:cat >/dev/null', '--json'], {
        XDG_STATE_HOME: path.join(w.config, 'state'),
      });
      expect(notify.code, notify.stderr).toBe(0);
      const sent = notify.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { notification: { event: string; session: string; tasks: Array<{ id: string }> } }).notification);
      expect(sent.map((e) => [e.event, e.session, e.tasks.map((t) => t.id)])).toEqual([['needs-you', waiter.sessionId, ['2']]]);

      const watch = await w.tasks(proj, ['-l', 'W', 'watch', '--until', 'all-completed', '--timeout', '2s', '--json']);
      expect(watch.code, watch.stderr).toBe(124);
      const events = watch.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; waiting?: unknown });
      expect(events.find((e) => e.event === 'needs-you')?.waiting).toMatchObject({ session: waiter.sessionId, ids: ['2'] });
    } finally {
      await a.stop();
      hold.open();
      await headless;
    }
  });
});
