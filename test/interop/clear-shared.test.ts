/**
 * Interop: `/clear` on a shared list, against the real Claude Code in tmux.
 *
 * An interactive session with `CLAUDE_CODE_TASK_LIST_ID=team` makes #1 and starts it as
 * owner `main`, then is /clear-ed and takes a new prompt: the same process goes on as a
 * new session on the same list, and its panel still shows #1 in progress. The agent is not
 * gone: `release --gone` takes nothing, `notify` tells nothing, `tasks list` marks no one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { liveFiles, waitFor, world } from './session-world.js';

const byPrompt = (prompt: string): Turn | undefined => {
  const create = /^create (.+)$/m.exec(prompt)?.[1];
  if (create !== undefined) return [{ name: 'TaskCreate', input: { subject: create, description: `${create}, from the agent` } }];
  const start = /^start (\d+) as (\S+)$/m.exec(prompt);
  if (start !== null) return [{ name: 'TaskUpdate', input: { taskId: start[1], status: 'in_progress', owner: start[2] } }];
  return undefined;
};

describe('the real Claude Code: /clear on a shared list', () => {
  it('the process goes on with the list: its owner is not gone', async () => {
    const w = world();
    const proj = w.dir('work/team');
    const list = path.join(w.config, 'tasks', 'team');
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt, env: { CLAUDE_CODE_TASK_LIST_ID: 'team' } });
    try {
      const first = await waitFor('the live file', () => liveFiles(w.config)[0]);
      await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      a.type('create Ship it');
      await waitFor('#1', () => fs.existsSync(path.join(list, '1.json')));
      a.type('start 1 as main');
      await waitFor('#1 started', () => /"in_progress"/.test(fs.readFileSync(path.join(list, '1.json'), 'utf8')));
      await a.waitFor((s) => /for shortcuts|auto mode/.test(s) && !/esc to interrupt/.test(s), 'the turn to end');
      a.type('/clear');
      const cleared = await waitFor('the new session', () =>
        liveFiles(w.config).find((f) => f.pid === first.pid && f.sessionId !== first.sessionId),
      );
      a.type('hello again');
      const transcript = path.join(path.dirname(first.file), '..', 'projects');
      await waitFor("the new session's answer", () =>
        fs
          .readdirSync(transcript, { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith(`${cleared.sessionId}.jsonl`))
          .some((f) => /"type":"assistant"/.test(fs.readFileSync(path.join(transcript, f), 'utf8'))),
      );
      // Claude Code's panel still shows #1 in progress: the new session's work.
      expect(JSON.parse(fs.readFileSync(path.join(list, '1.json'), 'utf8'))).toMatchObject({ status: 'in_progress', owner: 'main' });

      const dry = await w.tasks(proj, ['-l', 'team', 'release', '--gone', '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toBe('');
      expect(dry.stderr).toMatch(/nothing released/);

      const sent = path.join(w.config, 'sent.ndjson');
      const notified = await w.tasks(proj, ['-l', 'team', 'notify', '--once', '--on', 'agent-died', '--to', `exec:cat >> '${sent}'`], {
        XDG_STATE_HOME: path.join(w.config, 'state'),
      });
      expect(notified.code, notified.stderr).toBe(0);
      expect(fs.existsSync(sent) ? fs.readFileSync(sent, 'utf8') : '').toBe('');

      const shown = await w.tasks(proj, ['-l', 'team', 'list']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(`${shown.stdout}${shown.stderr}`).not.toMatch(/gone/);
    } finally {
      await a.stop();
    }
  });
});
