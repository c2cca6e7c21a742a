import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OWN, settled, shards, TODO, type World, world } from '../helpers/cache-world.js';
import { run } from '../helpers/cli.js';
import { writeClearedTranscript, writeLiveSession } from '../helpers/session-files.mjs';
import { type Call, writeTaskTranscript } from '../helpers/task-transcript.js';

/**
 * `tasks lists` while sessions run (core/lists/kept-lists.ts, running-rows.ts): the rows
 * of the running sessions are worked out on every run, the others come from the kept
 * answer. Each test keeps an answer while a session runs, marks it (every session's
 * prompt in it says "KEPT"), then changes what a running session changes: the rows of
 * the running sessions must be the ones a run with no cache gives, unmarked; the other
 * rows must be the kept ones (marked), and the whole answer, marks aside, the one a run
 * with no cache gives. Through the built binary (only the bundle keeps a persistent
 * cache), with real processes for the sessions: their live-session files name them.
 */

const LIVE = '5e0c9a41-7d2b-4f3e-9c1a-2b8d6f4e0a11';
const CLEARED = '5e0c9a41-7d2b-4f3e-9c1a-2b8d6f4e0a12';
const FORK = '5e0c9a41-7d2b-4f3e-9c1a-2b8d6f4e0a13';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** A process that stands for a running Claude Code session (its pid and start time go in the live-session file). */
function process_(): ChildProcess {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

type Answer = Array<Record<string, unknown> & { id: string }>;
type Session = { sessionId: string; state: string; prompt?: string };

const STARTED = Date.now() - 120_000;
const FIRST: Call[] = [{ create: { id: '1', subject: 'Parse the input' }, time: STARTED + 5_000 }];

function task(id: string, subject: string, status: string) {
  return JSON.stringify({ id, subject, description: '', status, blocks: [], blockedBy: [] });
}

/** The world of cache-world.ts with a session running on its own list (one task), and an answer kept while it runs, marked. */
function runningWorld(): { w: World; live: ChildProcess; transcript: string; list: string; cwd: string; first: Answer } {
  const w = world();
  const live = process_();
  // A project of its own: the process of a session is told from the others of its folder by their transcripts' times.
  const cwd = path.join(w.home, 'work', 'other');
  fs.mkdirSync(cwd, { recursive: true });
  const transcript = writeTaskTranscript(w.config, { sessionId: LIVE, cwd, start: STARTED, ended: false, calls: FIRST });
  const list = path.join(w.config, 'tasks', LIVE);
  fs.mkdirSync(list, { recursive: true });
  fs.writeFileSync(path.join(list, '1.json'), task('1', 'Parse the input', 'pending'));
  writeLiveSession(w.config, { pid: live.pid as number, sessionId: LIVE, cwd, start: STARTED });
  const first = listsAt(w, 'kept');
  expect(stateOf(first, LIVE)).toBe('live');
  markKept(w);
  return { w, live, transcript, list, cwd, first };
}

function listsAt(w: World, cache: 'kept' | 'none'): Answer {
  const folder = cache === 'kept' ? w.cache : fs.mkdtempSync(path.join(w.config, 'no-cache-'));
  const r = run(w.config, ['lists', '--json'], { cwd: w.project, env: { XDG_CACHE_HOME: folder, ...settled() } });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

function answerFile(w: World): string {
  const file = shards(w).find((f) => path.basename(f) === '_lists-answer.json');
  expect(file, 'an answer is kept while the session runs').toBeDefined();
  return file as string;
}

/** The prompts the kept answer had before markKept (by place). */
let originalPrompts: Array<string | undefined> = [];

function markKept(w: World): void {
  const file = answerFile(w);
  const body = JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: { lists?: { view: { s: Array<{ prompt?: string }> } } } };
  expect(body.entries.lists, 'an answer is kept while the session runs').toBeDefined();
  originalPrompts = (body.entries.lists?.view.s ?? []).map((s) => s.prompt);
  for (const s of body.entries.lists?.view.s ?? []) s.prompt = 'KEPT';
  fs.writeFileSync(file, JSON.stringify(body));
}

const marked = (value: unknown) => JSON.stringify(value).includes('"KEPT"');
const sessionsOf = (answer: Answer) => answer.flatMap((l) => (l.sessions as Session[] | undefined) ?? []);
const stateOf = (answer: Answer, id: string) => sessionsOf(answer).find((s) => s.sessionId === id)?.state;
const row = (answer: Answer, id: string) => answer.find((l) => l.id === id);

/** `after` with each kept mark put back to what `truth` has in its place. */
function unmarked(after: unknown, truth: unknown): unknown {
  if (after === 'KEPT') return truth;
  if (Array.isArray(after)) return after.map((x, i) => unmarked(x, Array.isArray(truth) ? truth[i] : undefined));
  if (typeof after === 'object' && after !== null) {
    const t = (typeof truth === 'object' && truth !== null ? truth : {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, unmarked(v, t[k])]));
  }
  return after;
}

/**
 * After `change`: the rows of `ours` (the running sessions' lists) worked out now, every
 * other row the kept one, and the whole the answer a run with no cache gives.
 */
function partlyKept(w: World, ours: string[], change: () => void): Answer {
  change();
  const after = listsAt(w, 'kept');
  const truth = listsAt(w, 'none');
  expect(marked(truth)).toBe(false);
  expect(unmarked(after, truth)).toEqual(truth);
  for (const id of ours) {
    expect(marked(row(after, id)), `the row of ${id} is worked out now`).toBe(false);
    expect(row(after, id)).toEqual(row(truth, id));
  }
  const others = after.filter((l) => !ours.includes(l.id));
  expect(others.length).toBeGreaterThan(0);
  expect(marked(others), 'the other rows come from the kept answer').toBe(true);
  for (const l of others) expect(sessionsOf([l]).some((s) => ours.includes(s.sessionId))).toBe(false);
  return after;
}

describe('lists while a session runs: its rows now, the rest kept', () => {
  it('a task added to its list shows at once', () => {
    const { w, list, cwd } = runningWorld();
    const after = partlyKept(w, [LIVE], () => {
      writeTaskTranscript(w.config, {
        sessionId: LIVE,
        cwd,
        start: STARTED,
        ended: false,
        calls: [...FIRST, { create: { id: '2', subject: 'Check the output' }, time: Date.now() - 2_000 }],
      });
      fs.writeFileSync(path.join(list, '2.json'), task('2', 'Check the output', 'pending'));
    });
    expect(row(after, LIVE)?.counts).toMatchObject({ total: 2, pending: 2 });
  });

  it("a task's status changed shows at once", () => {
    const { w, list } = runningWorld();
    const after = partlyKept(w, [LIVE], () => {
      fs.writeFileSync(path.join(list, '1.json'), task('1', 'Parse the input', 'in_progress'));
    });
    expect(row(after, LIVE)?.counts).toMatchObject({ pending: 0, inProgress: 1 });
  });

  it('its transcript grows: its last activity shows at once', () => {
    const { w, transcript, cwd, first } = runningWorld();
    const at = new Date(Date.now() - 1_000).toISOString();
    const after = partlyKept(w, [LIVE], () => {
      const entry = { type: 'user', sessionId: LIVE, cwd, timestamp: at };
      fs.appendFileSync(transcript, `${JSON.stringify({ ...entry, message: { role: 'user', content: 'now the docs' } })}\n`);
    });
    expect(String(row(after, LIVE)?.lastActivity) > String(row(first, LIVE)?.lastActivity)).toBe(true);
  });

  it('the session ends (its file removed): ended at once', async () => {
    const { w, live, transcript } = runningWorld();
    const exited = new Promise((resolve) => live.once('exit', resolve));
    live.kill('SIGKILL');
    await exited;
    const after = partlyKept(w, [LIVE], () => {
      fs.appendFileSync(transcript, `${JSON.stringify({ type: 'cost-state', sessionId: LIVE, costUSD: 0 })}\n`);
      fs.rmSync(path.join(w.config, 'sessions', `${live.pid}.json`));
    });
    expect(stateOf(after, LIVE)).toBe('ended');
  });

  it('the session crashes (its file left behind): crashed at once', async () => {
    const { w, live } = runningWorld();
    const exited = new Promise((resolve) => live.once('exit', resolve));
    const after = await (async () => {
      live.kill('SIGKILL');
      await exited;
      return partlyKept(w, [LIVE], () => {});
    })();
    expect(stateOf(after, LIVE)).toBe('crashed');
  });

  it('/clear starts a new session in the same process and project: both rows at once', () => {
    const { w, live, transcript, cwd } = runningWorld();
    const after = partlyKept(w, [LIVE, CLEARED], () => {
      const at = Date.now() - 1_000;
      fs.appendFileSync(transcript, `${JSON.stringify({ type: 'cost-state', sessionId: LIVE, timestamp: new Date(at).toISOString() })}\n`);
      writeClearedTranscript(w.config, { sessionId: CLEARED, cwd, at, firstSession: LIVE });
      writeLiveSession(w.config, { pid: live.pid as number, sessionId: CLEARED, cwd, status: 'idle', start: STARTED });
    });
    expect(stateOf(after, CLEARED)).toBe('live');
    expect(stateOf(after, LIVE)).toBe('ended');
    expect(row(after, CLEARED)?.kind).toBe('new');
  });

  it('a fork of the running session starts: its row at once, the parent keeps its tasks', () => {
    const { w, cwd } = runningWorld();
    const fork = process_();
    const after = partlyKept(w, [LIVE, FORK], () => {
      // The fork's transcript opens with copies of its parent's entries (requestSessionId names the parent).
      writeTaskTranscript(w.config, { sessionId: FORK, cwd, start: STARTED, ended: false, calls: FIRST, requestSessionId: LIVE });
      writeLiveSession(w.config, { pid: fork.pid as number, sessionId: FORK, cwd, start: Date.now() - 1_000 });
    });
    expect(stateOf(after, FORK)).toBe('live');
    expect(row(after, FORK)?.kind).toBe('new');
    expect(((row(after, LIVE)?.sessions ?? []) as Session[]).map((s) => s.sessionId)).toEqual([LIVE]);
  });

  it('an ended session resumed: live at once on its own list', () => {
    const { w } = runningWorld();
    const resumed = process_();
    const after = partlyKept(w, [LIVE, OWN], () => {
      const file = path.join(w.config, 'projects', w.project.replace(/[^a-zA-Z0-9]/g, '-'), `${OWN}.jsonl`);
      const entry = { type: 'user', sessionId: OWN, cwd: w.project, timestamp: new Date().toISOString() };
      fs.appendFileSync(file, `${JSON.stringify({ ...entry, message: { role: 'user', content: 'go on' } })}\n`);
      writeLiveSession(w.config, { pid: resumed.pid as number, sessionId: OWN, cwd: w.project, start: Date.now() - 1_000 });
    });
    expect(stateOf(after, OWN)).toBe('live');
  });
});

describe('lists while a session runs: every output', () => {
  it('gives what working it out gives, in every output, after its task changed', () => {
    const { w, list } = runningWorld();
    fs.writeFileSync(path.join(list, '1.json'), task('1', 'Parse the input', 'completed'));
    // Marks put back: the kept answer as it was written.
    const body = JSON.parse(fs.readFileSync(answerFile(w), 'utf8'));
    for (const [i, s] of body.entries.lists.view.s.entries()) s.prompt = originalPrompts[i];
    fs.writeFileSync(answerFile(w), JSON.stringify(body));
    for (const args of [['lists'], ['lists', '--json'], ['lists', '--here'], ['lists', '--live'], ['lists', '--live', '--json']]) {
      const env = settled();
      const kept = run(w.config, args, { cwd: w.project, env: { XDG_CACHE_HOME: w.cache, ...env } });
      const none = run(w.config, args, { cwd: w.project, env: { XDG_CACHE_HOME: fs.mkdtempSync(path.join(w.config, 'nc-')), ...env } });
      expect([args, kept.code, kept.stdout, kept.stderr]).toEqual([args, none.code, none.stdout, none.stderr]);
    }
  });
});

describe('lists while a session runs: what it cannot reuse', () => {
  it("another list's task changed (as Claude Code writes it: under its lock folder): the whole answer worked out again", () => {
    const { w } = runningWorld();
    const file = path.join(w.config, 'tasks', OWN, '1.json');
    fs.mkdirSync(`${file}.lock`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"in_progress"', '"completed"'));
    fs.rmdirSync(`${file}.lock`);
    const after = listsAt(w, 'kept');
    expect(marked(after)).toBe(false);
    expect(after).toEqual(listsAt(w, 'none'));
  });

  it("the running session's list holds a task another session worked on: the whole answer worked out again", () => {
    const { w, list } = runningWorld();
    // The shared list's #10, as NAMED's transcript shows it: NAMED may now be tied to this list too.
    fs.writeFileSync(path.join(list, '10.json'), task('10', 'Write the tokenizer', 'pending'));
    const after = listsAt(w, 'kept');
    expect(marked(after)).toBe(false);
    expect(after).toEqual(listsAt(w, 'none'));
  });

  it("a task changed by tasks update in a settled session's list: the whole answer worked out again", () => {
    const { w } = runningWorld();
    expect(run(w.config, ['-l', OWN, 'update', '1', '--status', 'completed'], { cwd: w.project }).code).toBe(0);
    const after = listsAt(w, 'kept');
    expect(marked(after)).toBe(false);
    expect(after).toEqual(listsAt(w, 'none'));
    expect(row(after, OWN)?.counts).toMatchObject({ completed: 1, inProgress: 0 });
  });

  it('a session sharing a list through CLAUDE_CODE_TASK_LIST_ID starts and writes to it: the whole answer worked out again', () => {
    const { w, cwd } = runningWorld();
    const shared = spawn('sleep', ['300'], { stdio: 'ignore', env: { ...process.env, CLAUDE_CODE_TASK_LIST_ID: 'shared' } });
    children.push(shared);
    const id = '5e0c9a41-7d2b-4f3e-9c1a-2b8d6f4e0a14';
    writeTaskTranscript(w.config, { sessionId: id, cwd, start: Date.now() - 5_000, ended: false, calls: [] });
    writeLiveSession(w.config, { pid: shared.pid as number, sessionId: id, cwd, start: Date.now() - 5_000 });
    const file = path.join(w.config, 'tasks', 'shared', '9.json');
    fs.mkdirSync(`${file}.lock`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/"status":"[a-z_]+"/, '"status":"completed"'));
    fs.rmdirSync(`${file}.lock`);
    const after = listsAt(w, 'kept');
    expect(marked(after)).toBe(false);
    expect(after).toEqual(listsAt(w, 'none'));
  });

  it('a session that writes to a list its settings name: the whole answer worked out again', () => {
    const { w, cwd } = runningWorld();
    const settings = path.join(cwd, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'shared' } }));
    const after = listsAt(w, 'kept');
    expect(marked(after)).toBe(false);
    expect(after).toEqual(listsAt(w, 'none'));
    expect(stateOf(after, TODO)).toBe('ended');
  });
});
