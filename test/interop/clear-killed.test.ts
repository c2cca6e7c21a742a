/**
 * Interop: `/clear`, then the process killed, against the real Claude Code in tmux.
 *
 * An interactive session makes #1 and starts it with no owner (a solo agent's usual
 * TaskUpdate), then is /clear-ed: the same process goes on as a new session. Then the
 * process is SIGKILLed. What the agent-gone mark says must not change with that kill where
 * nothing new happened to the session that held #1:
 *
 * - on the session's own list, left behind by the clear: "was cleared", at the time of the
 *   clear, before and after the kill;
 * - on a shared list (`CLAUDE_CODE_TASK_LIST_ID`), which the process went on with: not gone
 *   while it runs; once killed, the new session crashed, and that is the end told.
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
  const start = /^start (\d+)$/m.exec(prompt);
  if (start !== null) return [{ name: 'TaskUpdate', input: { taskId: start[1], status: 'in_progress' } }];
  return undefined;
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

type Gone = { session: string | null; state: string | null; since: string | null; why: string; unowned: boolean };

/** The session's transcripts: each session's id and text. */
function transcripts(config: string): Array<{ id: string; text: string }> {
  const folder = path.join(config, 'projects');
  const files = fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }) : [];
  return files
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => ({ id: path.basename(f, '.jsonl'), text: fs.readFileSync(path.join(folder, f), 'utf8') }));
}

/**
 * An interactive agent that made #1 and started it, then was /clear-ed (and, with `after`,
 * took that prompt in the new session): `judge` runs while its process goes on, then again
 * once it is SIGKILLed.
 */
async function clearThenKill(
  env: Record<string, string>,
  after: string | undefined,
  judge: (w: ReturnType<typeof world>, proj: string, ids: { first: string; next: string }, killed: boolean) => Promise<void>,
): Promise<void> {
  const w = world();
  const proj = w.dir('work/app');
  const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt, env });
  try {
    const first = await waitFor('the live file', () => liveFiles(w.config)[0]);
    await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
    a.type('create Ship it');
    const list = path.join(w.config, 'tasks', env.CLAUDE_CODE_TASK_LIST_ID ?? first.sessionId);
    await waitFor('#1', () => fs.existsSync(path.join(list, '1.json')));
    a.type('start 1');
    await waitFor('#1 started', () => /"in_progress"/.test(fs.readFileSync(path.join(list, '1.json'), 'utf8')));
    await a.waitFor((s) => /for shortcuts|auto mode/.test(s) && !/esc to interrupt/.test(s), 'the turn to end');
    // The start of #1 in its transcript (Claude Code appends it a moment after the call).
    await waitFor('its transcript', () => transcripts(w.config).some((t) => t.id === first.sessionId && t.text.includes('"statusChange"')));
    // A person looks at the list while the session works on it.
    expect(JSON.parse((await w.tasks(proj, ['-l', path.basename(list), 'get', '1', '--json'])).stdout)).not.toHaveProperty('gone');
    a.type('/clear');
    const next = await waitFor('the new session', () =>
      liveFiles(w.config).find((f) => f.pid === first.pid && f.sessionId !== first.sessionId),
    );
    await waitFor('the clear in the old transcript', () =>
      transcripts(w.config).some(
        (t) => t.id === first.sessionId && t.text.trimEnd().split('\n').at(-1)?.startsWith('{"type":"cost-state"'),
      ),
    );
    if (after !== undefined) {
      a.type(after);
      await waitFor("the new session's answer", () =>
        transcripts(w.config).some((t) => t.id === next.sessionId && t.text.includes('"type":"assistant"')),
      );
    }
    const ids = { first: first.sessionId, next: next.sessionId };
    await judge(w, proj, ids, false);
    process.kill(first.pid, 'SIGKILL');
    await waitFor('its end', () => !alive(first.pid));
    await judge(w, proj, ids, true);
  } finally {
    await a.stop();
  }
}

async function goneOf(w: ReturnType<typeof world>, proj: string, list: string): Promise<Gone | undefined> {
  const got = await w.tasks(proj, ['-l', list, 'get', '1', '--json']);
  expect(got.code, got.stderr).toBe(0);
  return (JSON.parse(got.stdout) as { gone?: Gone }).gone;
}

describe('the real Claude Code: /clear, then the process killed', () => {
  it('its own list: "was cleared", at the time of the clear, before and after the kill', async () => {
    let before: Gone | undefined;
    await clearThenKill({}, undefined, async (w, proj, { first }, killed) => {
      const gone = await goneOf(w, proj, first);
      expect(gone).toMatchObject({ session: first, why: `session ${first.slice(0, 8)} was cleared`, unowned: true });
      if (!killed) before = gone;
      else expect(gone).toEqual(before);
      const checked = await w.tasks(proj, ['-l', first, 'check']);
      expect(checked.stdout).toContain(`its agent is gone: session ${first.slice(0, 8)} was cleared holding it`);
    });
  });

  it('a shared list: not gone while the process goes on with it; killed, the new session crashed', async () => {
    await clearThenKill({ CLAUDE_CODE_TASK_LIST_ID: 'team' }, 'hello again', async (w, proj, { first, next }, killed) => {
      const gone = await goneOf(w, proj, 'team');
      if (!killed) {
        expect(gone).toBeUndefined();
        return;
      }
      expect(gone).toMatchObject({
        session: next,
        state: 'crashed',
        why: `session ${next.slice(0, 8)} (after /clear of ${first.slice(0, 8)}) crashed`,
        unowned: true,
      });
      const dry = await w.tasks(proj, ['-l', 'team', 'release', '--gone', '--dry-run']);
      expect(dry.stdout).toBe(
        `Would put task #1 back to pending (no owner; in_progress -> pending; session ${next.slice(0, 8)} (after /clear of ${first.slice(0, 8)}) crashed holding it): Ship it\n`,
      );
    });
  });
});
