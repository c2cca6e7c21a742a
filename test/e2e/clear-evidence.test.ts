/**
 * Was a session cleared (`/clear`), or did another session of the project just end as it
 * began? Against the files Claude Code 2.1.328 wrote (test/fixtures/claude-code-2.1.328/
 * clear, README there): an interactive session sat idle while a headless run in the same
 * project made a task and ended; the idle session then took its first prompt, made a task,
 * and was cleared; the session /clear began then made a task too. Each stage is the
 * config folder as it was, its live-session file pointed at a process of this test.
 *
 * Through the binary: `tasks lists` is what a person asks, and its cache (the memory of
 * which session each process was seen on) lives between its runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, run, tempConfig } from '../helpers/cli.js';
import { procStart } from '../helpers/session-files.mjs';

const STAGES = path.join(FIXTURES, 'clear');
const HEADLESS = '151dc66d-23a5-4757-b8f4-1467705873a7';
const FIRST = 'dcfe5a82-0f7d-4f89-8887-6a09f4cc6b9b';
const CLEARED_TO = 'e2b6a608-72c2-4ce6-a2cb-8fe7c0496900';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill();
});

interface Row {
  id: string;
  state: string | null;
  replacedBy: string | null;
  replacedHow: string | null;
}

/** A config folder and a process standing for the interactive agent (its pid and start time). */
function world() {
  const config = tempConfig();
  const agent = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(agent);
  const pid = agent.pid as number;
  return {
    config,
    /** The config folder as it was at `stage`: its transcripts, lists and live-session file. */
    at(stage: string) {
      for (const dir of ['projects', 'tasks', 'sessions']) {
        fs.rmSync(path.join(config, dir), { recursive: true, force: true });
        fs.cpSync(path.join(STAGES, stage, dir), path.join(config, dir), { recursive: true });
      }
      // A checkout does not keep the files' times: each transcript was last written at its newest entry.
      const projects = path.join(config, 'projects');
      for (const folder of fs.readdirSync(projects))
        for (const name of fs.readdirSync(path.join(projects, folder))) {
          const file = path.join(projects, folder, name);
          const times = [...fs.readFileSync(file, 'utf8').matchAll(/"timestamp":"([^"]+)"/g)].map((m) => Date.parse(m[1] as string));
          const last = Math.max(...times) / 1000;
          fs.utimesSync(file, last, last);
        }
      const sessions = path.join(config, 'sessions');
      for (const name of fs.readdirSync(sessions)) {
        const live = JSON.parse(fs.readFileSync(path.join(sessions, name), 'utf8'));
        fs.rmSync(path.join(sessions, name));
        // The same agent process at every stage: this test's, as Claude Code names it.
        const { pidDomain: _, ...rest } = live;
        fs.writeFileSync(path.join(sessions, `${pid}.json`), JSON.stringify({ ...rest, pid, procStart: procStart(pid) }));
      }
    },
    lists(): Row[] {
      const r = run(config, ['lists', '--json'], { cwd: config });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Row[];
    },
    plain(): string {
      const r = run(config, ['lists'], { cwd: config });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    },
    /** Forget what earlier runs saw of the processes (a first run, or a cache removed). */
    forget() {
      fs.rmSync(path.join(path.dirname(config), 'tasks-test-caches', path.basename(config)), { recursive: true, force: true });
    },
  };
}

const rowOf = (rows: Row[], id: string) => rows.find((r) => r.id === id);

describe('cleared, or another session that ended as one began (real 2.1.328 files)', () => {
  it('a headless run that ended just before an idle session took its first prompt is not cleared, before that prompt or after', () => {
    const w = world();
    w.at('1-headless-ended');
    expect(rowOf(w.lists(), HEADLESS)).toMatchObject({ state: 'ended', replacedBy: null, replacedHow: null });
    w.forget();
    w.at('2-first-turn');
    const rows = w.lists();
    expect(rowOf(rows, HEADLESS)).toMatchObject({ state: 'ended', replacedBy: null, replacedHow: null });
    expect(rowOf(rows, FIRST)).toMatchObject({ state: 'live', replacedBy: null });
  });

  it('/clear, before the new session has had a turn: by times alone, said as probable; the headless run still not', () => {
    const w = world();
    w.at('3-cleared');
    const rows = w.lists();
    expect(rowOf(rows, FIRST)).toMatchObject({ state: 'ended', replacedBy: CLEARED_TO, replacedHow: 'times' });
    expect(rowOf(rows, HEADLESS)).toMatchObject({ replacedBy: null, replacedHow: null });
    // Piped: the last two fields, replaced by and how that is known.
    expect(w.plain()).toMatch(new RegExp(`^${FIRST}\t.*\t${CLEARED_TO}\ttimes$`, 'm'));
  });

  it('/clear, after the new session has had a turn: its entries name the process, so it is sure', () => {
    const w = world();
    w.at('4-after-turn');
    const rows = w.lists();
    expect(rowOf(rows, FIRST)).toMatchObject({ state: 'ended', replacedBy: CLEARED_TO, replacedHow: 'transcripts' });
    expect(rowOf(rows, HEADLESS)).toMatchObject({ replacedBy: null, replacedHow: null });
    expect(w.plain()).toMatch(new RegExp(`^${FIRST}\t.*\t${CLEARED_TO}\ttranscripts$`, 'm'));
  });

  it('/clear seen as it happened (the process on one session, then on another, by an earlier run): sure at once', () => {
    const w = world();
    w.at('2-first-turn');
    expect(rowOf(w.lists(), FIRST)).toMatchObject({ state: 'live' });
    w.at('3-cleared');
    const rows = w.lists();
    expect(rowOf(rows, FIRST)).toMatchObject({ state: 'ended', replacedBy: CLEARED_TO, replacedHow: 'process' });
    // What the process was seen on is all it ran: the headless run is still not its.
    expect(rowOf(rows, HEADLESS)).toMatchObject({ replacedBy: null, replacedHow: null });
    // Another process with the same pid would have another start time: nothing is carried over to it.
    w.forget();
    expect(rowOf(w.lists(), FIRST)).toMatchObject({ replacedHow: 'times' });
  });
});
