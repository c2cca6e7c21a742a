/**
 * Interop: several live sessions in one project folder, each on its own list, against the
 * real Claude Code. An interactive session sits idle at its prompt holding #1 of its list;
 * a headless run works (held before a turn) on another. `tasks list` with no list named
 * shows the most recently active one's, and its note must say so and name the other live
 * session's list: reading "1 task" of one agent's list, a person must not take it for all
 * the work going on here. A fork (`--resume <id> --fork-session`), live and with no task
 * yet, is the most recently active next: its "no tasks yet" must not hide the others.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shortIds } from '../../src/core/lists/short-ids.js';
import { runAgent } from './agent.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const byPrompt = (prompt: string): Turn | undefined => {
  const create = /^create (.+)$/m.exec(prompt)?.[1];
  if (create !== undefined) return [{ name: 'TaskCreate', input: { subject: create, description: `${create}, from the agent` } }];
  const start = /^start (\d+)$/m.exec(prompt)?.[1];
  if (start !== undefined) return [{ name: 'TaskUpdate', input: { taskId: start, status: 'in_progress', owner: 'main' } }];
  return undefined;
};
const CREATE = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: subject } }];
const LIST: Turn = [{ name: 'TaskList', input: {} }];

describe('the real Claude Code: live sessions side by side in one folder', () => {
  it("tasks list names the other live sessions' lists, and why it took the one it shows", async () => {
    const w = world();
    const proj = w.dir('work/app');
    const earlier = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      prompt: 'plan the release',
      turns: [CREATE('Plan')],
    });
    const planned = earlier.stream.sessionId as string;
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
    const holdB = gate();
    const holdFork = gate();
    let b: Promise<unknown> | undefined;
    let fork: Promise<unknown> | undefined;
    try {
      const idle = (await waitFor('the live file', () => liveFiles(w.config)[0])).sessionId;
      await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      a.type('create Fix the login');
      const own = path.join(w.config, 'tasks', idle, '1.json');
      await waitFor('#1', () => fs.existsSync(own));
      a.type('start 1');
      await waitFor('#1 started', () => /"in_progress"/.test(fs.readFileSync(own, 'utf8')));
      await a.waitFor((s) => /for shortcuts|auto mode/.test(s) && !/esc to interrupt/.test(s), 'the turn to end');

      b = runAgent({
        configDir: w.config,
        listId: undefined,
        cwd: proj,
        prompt: 'write the docs',
        turns: [CREATE('Docs'), LIST],
        beforeTurn: (i) => (i === 1 ? holdB.wait() : undefined),
      });
      await holdB.arrived;
      const busy = (await waitFor('the busy live file', () => liveFiles(w.config).find((f) => f.sessionId !== idle))).sessionId;
      const short = (id: string) => shortIds([id]).get(id) ?? id;
      // Its prompt on disk: Claude Code writes its transcript behind its turns (2.1.332 at times only after its first task is made).
      await waitFor("the busy session's prompt in its transcript", () =>
        transcriptHolds(w.config, busy, 'write the docs') ? true : undefined,
      );

      const read = await w.tasks(proj, ['list']);
      expect(read.code, read.stderr).toBe(0);
      expect(read.stdout).toContain('Docs');
      const note = read.stderr.split('\n')[0] as string;
      expect(note).toMatch(new RegExp(`^using list ${short(busy)} \\(live session "write the docs", ~/work/app\\)`));
      // Why this one, and the other live session's list, with its prompt.
      expect(note).toContain('the most recently active');
      expect(note).toContain(`also live in ~/work/app: ${short(idle)} ("create Fix the login")`);

      fork = runAgent({
        configDir: w.config,
        listId: undefined,
        cwd: proj,
        prompt: 'try another way',
        args: ['--resume', planned, '--fork-session'],
        turns: [LIST, LIST],
        beforeTurn: (i) => (i === 1 ? holdFork.wait() : undefined),
      });
      await holdFork.arrived;
      const forked = (await waitFor('the fork', () => liveFiles(w.config).find((f) => ![idle, busy].includes(f.sessionId)))).sessionId;
      // Its prompt on disk: Claude Code writes its transcript behind its turns.
      await waitFor("the fork's prompt in its transcript", () => (transcriptHolds(w.config, forked, 'try another way') ? true : undefined));
      const fresh = await w.tasks(proj, ['list']);
      expect(fresh.code, fresh.stderr).toBe(0);
      expect(fresh.stdout).toBe('');
      const freshNote = fresh.stderr.split('\n')[0] as string;
      expect(freshNote).toMatch(new RegExp(`^using list ${short(forked)} \\(live session "try another way", ~/work/app\\): no tasks yet`));
      expect(freshNote).toContain('the most recently active');
      expect(freshNote).toContain(`also live in ~/work/app: ${short(busy)} ("write the docs"), ${short(idle)} ("create Fix the login")`);
    } finally {
      holdB.open();
      holdFork.open();
      await Promise.allSettled([b, fork]);
      await a.stop();
    }
  });
});

/** Does the session's transcript (under the config's projects/) hold this text yet? */
function transcriptHolds(config: string, sessionId: string, text: string): boolean {
  const projects = path.join(config, 'projects');
  for (const folder of fs.existsSync(projects) ? fs.readdirSync(projects) : []) {
    const file = path.join(projects, folder, `${sessionId}.jsonl`);
    if (fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(text)) return true;
  }
  return false;
}
