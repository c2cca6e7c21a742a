/**
 * Interop: is a list's session cleared (`/clear`), or did it just end as another began?
 * Against the real Claude Code: an interactive session sits idle while a headless run in
 * the same project makes a task and ends; the interactive session then takes its first
 * prompt at once (the two sessions end and begin together, no /clear); later it is
 * /clear-ed. `tasks lists --json` must never call the headless run cleared, must call the
 * /clear a /clear, sure once `tasks` has seen the process on both sessions or the new
 * session's first turn names its process, and only "probably" (times) before either.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { liveFiles, waitFor, world } from './session-world.js';

const byPrompt = (prompt: string): Turn | undefined => {
  const create = /^create (.+)$/m.exec(prompt)?.[1];
  if (create !== undefined) return [{ name: 'TaskCreate', input: { subject: create, description: `${create}, from the agent` } }];
  return undefined;
};

interface Row {
  id: string;
  replacedBy: string | null;
  replacedHow: string | null;
}

describe('the real Claude Code: /clear told from a session that merely ended', () => {
  it('a headless run ending as the idle session begins is not cleared; the /clear is, sure once seen or named', async () => {
    const w = world();
    const proj = w.dir('work/web');
    const cacheOff = { XDG_CACHE_HOME: path.join(w.config, 'no-cache-here') };
    const lists = async (env?: Record<string, string>) => {
      const r = await runAsync(w.config, ['lists', '--json'], { cwd: proj, env: { HOME: w.home, ...env } });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Row[];
    };
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
    try {
      const first = await waitFor('the live file', () => liveFiles(w.config)[0]);
      await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      const run = await runAgent({
        configDir: w.config,
        listId: undefined,
        cwd: proj,
        prompt: 'a headless run',
        turns: [[{ name: 'TaskCreate', input: { subject: 'Headless work', description: 'x' } }]],
      });
      const headless = /"session_id":"([^"]+)"/.exec(run.stdout)?.[1] as string;
      a.type('create Mine');
      await waitFor('the first task', () => fs.existsSync(path.join(w.config, 'tasks', first.sessionId, '1.json')));
      // This run sees the process on its first session (and keeps that in its cache).
      const before = await lists();
      expect(before.find((r) => r.id === headless)).toMatchObject({ replacedBy: null, replacedHow: null });

      a.type('/clear');
      const next = await waitFor('the new session', () =>
        liveFiles(w.config).find((f) => f.pid === first.pid && f.sessionId !== first.sessionId),
      );
      const folder = path.join(w.config, 'projects', proj.replace(/[^a-zA-Z0-9]/g, '-'));
      // Its first entry (the /clear), with its time: the file can be there a moment before it is.
      const opened = () => {
        const file = path.join(folder, `${next.sessionId}.jsonl`);
        return (fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"timestamp"')) || undefined;
      };
      await waitFor('its transcript', opened);
      // Seen before and now: the same process (pid and start time) on both sessions.
      const seen = await lists();
      expect(seen.find((r) => r.id === first.sessionId)).toMatchObject({ replacedBy: next.sessionId, replacedHow: 'process' });
      expect(seen.find((r) => r.id === headless)).toMatchObject({ replacedBy: null });
      // Without that memory, and before the new session's first turn: times alone.
      const unseen = await lists(cacheOff);
      expect(unseen.find((r) => r.id === first.sessionId)).toMatchObject({ replacedBy: next.sessionId, replacedHow: 'times' });
      expect(unseen.find((r) => r.id === headless)).toMatchObject({ replacedBy: null });

      a.type('create After');
      await waitFor('the new task', () => fs.existsSync(path.join(w.config, 'tasks', next.sessionId, '1.json')));
      // Claude Code writes the turn's entries a moment after the tool has run.
      await waitFor(
        'its turn in its transcript',
        () => fs.readFileSync(path.join(folder, `${next.sessionId}.jsonl`), 'utf8').includes('"session_id"') || undefined,
      );
      // Its first turn names the process's first session: sure from the transcripts alone.
      const named = await lists(cacheOff);
      expect(named.find((r) => r.id === first.sessionId)).toMatchObject({ replacedBy: next.sessionId, replacedHow: 'transcripts' });
      expect(named.find((r) => r.id === headless)).toMatchObject({ replacedBy: null, replacedHow: null });
    } finally {
      await a.stop();
    }
  });

  it('a session resumed (--resume) by a new process, then /clear: the new session names the resumed one, older than its process', async () => {
    const w = world();
    const proj = w.dir('work/web');
    const noCache = { HOME: w.home, XDG_CACHE_HOME: path.join(w.config, 'no-cache-here') };
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
    let resumed = '';
    try {
      resumed = (await waitFor('the live file', () => liveFiles(w.config)[0])).sessionId;
      await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      a.type('create One');
      await waitFor('the first task', () => fs.existsSync(path.join(w.config, 'tasks', resumed, '1.json')));
    } finally {
      await a.stop();
    }
    const b = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt, args: ['--resume', resumed] });
    try {
      await b.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the resumed prompt');
      // Resumed: the same session, not a /clear.
      await waitFor('the resumed live file', () => liveFiles(w.config).find((f) => f.sessionId === resumed));
      const before = JSON.parse((await runAsync(w.config, ['lists', '--json'], { cwd: proj, env: noCache })).stdout) as Row[];
      expect(before.find((r) => r.id === resumed)).toMatchObject({ replacedBy: null, replacedHow: null });
      b.type('/clear');
      const next = await waitFor('the new session', () => liveFiles(w.config).find((f) => f.sessionId !== resumed));
      b.type('create Two');
      await waitFor('the new task', () => fs.existsSync(path.join(w.config, 'tasks', next.sessionId, '1.json')));
      const folder = path.join(w.config, 'projects', proj.replace(/[^a-zA-Z0-9]/g, '-'));
      await waitFor(
        'its turn in its transcript',
        () => fs.readFileSync(path.join(folder, `${next.sessionId}.jsonl`), 'utf8').includes('"session_id"') || undefined,
      );
      // The resumed session's transcript ends (a moment after the /clear, with more lines after a first cost-state).
      await waitFor("the resumed session's end", () =>
        fs
          .readFileSync(path.join(folder, `${resumed}.jsonl`), 'utf8')
          .trimEnd()
          .split('\n')
          .at(-1)
          ?.includes('"cost-state"'),
      );
      // A cache of its own: no memory of the process on the resumed session, the transcripts alone.
      const fresh = { ...noCache, XDG_CACHE_HOME: path.join(w.config, 'another-cache') };
      const rows = JSON.parse((await runAsync(w.config, ['lists', '--json'], { cwd: proj, env: fresh })).stdout) as Row[];
      expect(rows.find((r) => r.id === resumed)).toMatchObject({ replacedBy: next.sessionId, replacedHow: 'transcripts' });
      // With it (the run before the /clear saw the process on the resumed session): sure either way.
      const seen = JSON.parse((await runAsync(w.config, ['lists', '--json'], { cwd: proj, env: noCache })).stdout) as Row[];
      expect(seen.find((r) => r.id === resumed)?.replacedHow).toMatch(/^(process|transcripts)$/);
    } finally {
      await b.stop();
    }
  });
});
