/**
 * Interop: a session `/clear`ed in one terminal and resumed (`claude --resume <id>`) in
 * another, against the real Claude Code. The interactive process goes on as a new session;
 * the resumed process works on the old session's list again. While it runs, that list is
 * a live agent's: `tasks lists` must not call its session cleared, the list note must not,
 * and `doctor` must not call its work stranded (its fix, a carry, would be refused: the
 * list is live). `release --gone` gives nothing back. Once the resumed run ends, the
 * session's last run ended there: it is ended, not cleared.
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
  return undefined;
};

interface Row {
  id: string;
  state: string | null;
  replacedBy: string | null;
}

describe('the real Claude Code: a /clear-ed session resumed in another process', () => {
  it('is live on its list again, not cleared, and once the resume ends, ended: lists, the note, doctor and release --gone agree', async () => {
    const w = world();
    const proj = w.dir('work/app');
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
    const hold = gate();
    let resumed: Promise<unknown> | undefined;
    try {
      const first = await waitFor('the live file', () => liveFiles(w.config)[0]);
      const old = first.sessionId;
      await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      a.type('create Fix it');
      const file = path.join(w.config, 'tasks', old, '1.json');
      await waitFor('#1', () => fs.existsSync(file));
      a.type('start 1');
      await waitFor('#1 started', () => /"in_progress"/.test(fs.readFileSync(file, 'utf8')));
      await a.waitFor((s) => /for shortcuts|auto mode/.test(s) && !/esc to interrupt/.test(s), 'the turn to end');
      // A person looks while the session works (tasks remembers the process on it).
      expect((await w.tasks(proj, ['lists'])).code).toBe(0);
      a.type('/clear');
      await waitFor('the new session', () => liveFiles(w.config).find((f) => f.pid === first.pid && f.sessionId !== old));
      // Claude Code writes the old transcript about the /clear too: for a moment that session
      // still "is writing its transcript", and release --gone gives nothing back, as it must
      // while an agent may be at work. Then it is told as cleared.
      const release = () => w.tasks(proj, ['-l', old, 'release', '--gone', '--dry-run']);
      let cleared = await release();
      for (const until = Date.now() + 30_000; !cleared.stdout.includes('was cleared holding it') && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 500));
        cleared = await release();
      }
      expect(cleared.stdout, cleared.stderr).toContain('was cleared holding it');

      // A person turns to another terminal: the resume comes a while after the /clear.
      await new Promise((r) => setTimeout(r, 6000));
      resumed = runAgent({
        configDir: w.config,
        listId: undefined,
        cwd: proj,
        prompt: 'go on with it',
        args: ['--resume', old],
        turns: [[{ name: 'TaskGet', input: { taskId: '1' } }], [{ name: 'TaskList', input: {} }]],
        beforeTurn: (i) => (i === 1 ? hold.wait() : undefined),
      });
      await hold.arrived;
      await waitFor('the resumed live file', () => liveFiles(w.config).find((f) => f.sessionId === old && f.pid !== first.pid));

      const rows = JSON.parse((await w.tasks(proj, ['lists', '--json'])).stdout) as Row[];
      expect(rows.find((r) => r.id === old)).toMatchObject({ state: 'live', replacedBy: null });
      const table = await w.tasks(proj, ['lists']);
      expect(table.stdout).not.toMatch(/cleared/);
      const read = await w.tasks(proj, ['-l', old, 'list']);
      expect(read.stdout).toMatch(/^1\tin_progress\t/m);
      const note = (await w.tasks(proj, ['list'])).stderr;
      expect(note).not.toMatch(/cleared session/);
      const doctor = await w.tasks(proj, ['doctor']);
      expect(doctor.stdout).not.toContain('list_stranded');
      const dry = await w.tasks(proj, ['-l', old, 'release', '--gone', '--dry-run']);
      expect(dry.stdout).toBe('');
      expect(dry.stderr).toContain('is live');

      // The resumed run ends: its session's last run ended there, it was not cleared.
      hold.open();
      await resumed;
      const over = JSON.parse((await w.tasks(proj, ['lists', '--json'])).stdout) as Row[];
      expect(over.find((r) => r.id === old)).toMatchObject({ state: 'ended', replacedBy: null });
      const after = await w.tasks(proj, ['-l', old, 'release', '--gone', '--dry-run']);
      expect(after.stdout).toBe(
        `Would put task #1 back to pending (no owner; in_progress -> pending; session ${old.slice(0, 8)} ended holding it): Fix it\n`,
      );
    } finally {
      hold.open();
      await Promise.allSettled([resumed]);
      await a.stop();
    }
  });
});
