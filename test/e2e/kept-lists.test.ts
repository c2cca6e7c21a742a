import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../src/core/cache/file-stamp.js';
import { FULL_LOOK_MS } from '../../src/core/lists/kept-lists.js';
import { LIVE_TRANSCRIPT_MS } from '../../src/core/sessions/session-index.js';
import { GROWN, lists, NAMED, OWN, settled, shards, TODO, type World, world } from '../helpers/cache-world.js';
import { BIN, baseEnv, run } from '../helpers/cli.js';
import { writeLiveSession, writeTaskTranscript, writeTranscript } from '../helpers/session-files.mjs';

/**
 * `tasks lists` keeps its whole answer with the stamps of every file it came from
 * (core/lists/kept-lists.ts) and shows it again while none of them has changed. Each
 * test keeps an answer, then marks it (every prompt in it says "KEPT"): a run that shows
 * the mark used the kept answer. With nothing changed the mark must show; after a change
 * of any one input the mark must not, and the answer must be the one a run with no cache
 * at all gives. Through the built binary: only the bundle keeps a persistent cache.
 */

/** The kept answer's shard file in a world's cache, if there is one. */
function answerShard(w: World): string | undefined {
  return shards(w).find((f) => path.basename(f) === '_lists-answer.json');
}

/** Mark the kept answer: every session's prompt says KEPT. Fails when no answer is kept. */
function markKept(w: World): void {
  const file = answerShard(w);
  expect(file, 'an answer is kept').toBeDefined();
  const body = JSON.parse(fs.readFileSync(file as string, 'utf8')) as { entries: { lists?: { view: { s: Array<{ prompt?: string }> } } } };
  const answer = body.entries.lists;
  expect(answer, 'an answer is kept').toBeDefined();
  for (const s of answer?.view.s ?? []) s.prompt = 'KEPT';
  fs.writeFileSync(file as string, JSON.stringify(body));
}

const marked = (answer: unknown) => JSON.stringify(answer).includes('"KEPT"');

/** Keep an answer and mark it; then `change` the world, and the next answer must be the fresh one. */
function freshAfter(w: World, change: () => void, env: Record<string, string> = settled()): ReturnType<typeof lists> {
  lists(w, 'kept');
  markKept(w);
  change();
  const after = listsAt(w, 'kept', env);
  expect(marked(after), 'the kept answer was shown after a change').toBe(false);
  expect(after).toEqual(listsAt(w, 'none', env));
  return after;
}

/** `lists --json` by the clock `env` gives. */
function listsAt(w: World, cache: 'kept' | 'none', env: Record<string, string>): ReturnType<typeof lists> {
  const folder = cache === 'kept' ? w.cache : fs.mkdtempSync(path.join(w.config, 'no-cache-'));
  const r = run(w.config, ['lists', '--json'], { cwd: w.project, env: { XDG_CACHE_HOME: folder, ...env } });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

type Row = {
  id: string;
  kind?: string;
  sessions?: Array<{ sessionId: string; state: string }>;
  counts?: Record<string, number>;
  team?: string | null;
};
const row = (answer: ReturnType<typeof lists>, id: string) => answer.find((l) => l.id === id) as Row | undefined;
const stateOf = (answer: ReturnType<typeof lists>, id: string) =>
  answer.flatMap((l) => (l as Row).sessions ?? []).find((s) => s.sessionId === id)?.state;

/** A task file written as Claude Code writes it: in place, under its task lock (a folder made beside it, then removed). */
function agentWrite(file: string, text: string): void {
  fs.mkdirSync(`${file}.lock`);
  fs.writeFileSync(file, text);
  fs.rmdirSync(`${file}.lock`);
}

const worlds: Record<string, World> = {};
beforeAll(() => {
  for (const name of [
    'same',
    'formats',
    'grow',
    'task',
    'update',
    'rename',
    'made',
    'in-place',
    'fresh',
    'later',
    'added',
    'removed',
    'starts',
    'runs',
    'clock',
    'team',
    'race',
    'no-file',
  ])
    worlds[name] = world();
});

describe('lists keeps its whole answer', () => {
  it('shows the kept answer while nothing it came from has changed', () => {
    const w = worlds.same as World;
    const first = lists(w, 'kept');
    expect(marked(first)).toBe(false);
    markKept(w);
    expect(marked(lists(w, 'kept'))).toBe(true);
  });

  it('gives what working it out gives, in every output', () => {
    const w = worlds.formats as World;
    lists(w, 'kept');
    expect(answerShard(w)).toBeDefined();
    for (const args of [
      ['lists', '--json'],
      ['lists'],
      ['lists', '--here'],
      ['lists', '--live', '--json'],
      ['lists', '--here', '--json'],
    ]) {
      const kept = run(w.config, args, { cwd: w.project, env: { XDG_CACHE_HOME: w.cache, ...settled() } });
      const none = run(w.config, args, {
        cwd: w.project,
        env: { XDG_CACHE_HOME: fs.mkdtempSync(path.join(w.config, 'nc-')), ...settled() },
      });
      expect([args, kept.code, kept.stdout, kept.stderr]).toEqual([args, none.code, none.stdout, none.stderr]);
    }
  });

  it('a session resumed and ended between two runs (its live-session file made and removed): worked out again', async () => {
    const w = worlds.grow as World;
    const resumed = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => resumed.once('exit', resolve));
    const after = await (async () => {
      lists(w, 'kept');
      markKept(w);
      // As Claude Code resumes a session: its live-session file made, its transcript appended to, the file removed at its end.
      const live = writeLiveSession(w.config, { pid: resumed.pid as number, sessionId: GROWN, cwd: w.project });
      const file = w.transcript(GROWN);
      fs.appendFileSync(file, fs.readFileSync(`${file}.rest`, 'utf8'));
      resumed.kill('SIGKILL');
      await exited;
      fs.rmSync(live);
      return listsAt(w, 'kept', settled());
    })();
    expect(marked(after), 'the kept answer was shown after a change').toBe(false);
    expect(after).toEqual(listsAt(w, 'none', settled()));
    expect((row(after, 'shared')?.sessions ?? []).map((s) => s.sessionId).sort()).toEqual([NAMED, GROWN].sort());
  });

  it('a task file written as Claude Code writes it (its lock folder made and removed beside it): worked out again', () => {
    const w = worlds.task as World;
    const after = freshAfter(w, () => {
      const file = path.join(w.config, 'tasks', OWN, '1.json');
      agentWrite(file, fs.readFileSync(file, 'utf8').replace('"in_progress"', '"completed"'));
    });
    expect(row(after, OWN)?.counts).toMatchObject({ completed: 1, inProgress: 0 });
  });

  it('a task changed by tasks update in a settled list: worked out again', () => {
    const w = worlds.update as World;
    const after = freshAfter(w, () => {
      const r = run(w.config, ['-l', OWN, 'update', '1', '--status', 'completed'], { cwd: w.project });
      expect(r.code).toBe(0);
    });
    expect(row(after, OWN)?.counts).toMatchObject({ completed: 1, inProgress: 0 });
  });

  it('a task file replaced by a rename (an editor saving a new file over it): worked out again', () => {
    const w = worlds.rename as World;
    const after = freshAfter(w, () => {
      const file = path.join(w.config, 'tasks', OWN, '1.json');
      fs.writeFileSync(`${file}.new`, fs.readFileSync(file, 'utf8').replace('"in_progress"', '"completed"'));
      fs.renameSync(`${file}.new`, file);
    });
    expect(row(after, OWN)?.counts).toMatchObject({ completed: 1, inProgress: 0 });
  });

  it('a session that ran and ended with no live-session file (its transcript made: an older Claude Code): worked out again', () => {
    const w = worlds.made as World;
    const id = '3a1f0c52-0d5e-4c4e-9a57-6c1f4d7e0a05';
    const after = freshAfter(w, () => {
      writeTranscript(w.config, { sessionId: id, cwd: w.project, prompt: 'plan the month', start: Date.now() - 60_000 });
    });
    expect(row(after, id)?.kind).toBe('todowrite');
  });

  it('a list folder added: worked out again', () => {
    const w = worlds.added as World;
    const after = freshAfter(w, () => {
      fs.mkdirSync(path.join(w.config, 'tasks', 'added'));
      fs.writeFileSync(
        path.join(w.config, 'tasks', 'added', '1.json'),
        JSON.stringify({ id: '1', subject: 'New', description: '', status: 'pending', blocks: [], blockedBy: [] }),
      );
    });
    expect(row(after, 'added')).toBeDefined();
  });

  it('a list folder removed: worked out again', () => {
    const w = worlds.removed as World;
    const after = freshAfter(w, () => fs.rmSync(path.join(w.config, 'tasks', OWN), { recursive: true }));
    expect(row(after, OWN)).toBeUndefined();
  });

  it('a team config added: worked out again', () => {
    const w = worlds.team as World;
    const after = freshAfter(w, () => {
      fs.mkdirSync(path.join(w.config, 'teams', 'shared'), { recursive: true });
      fs.writeFileSync(
        path.join(w.config, 'teams', 'shared', 'config.json'),
        JSON.stringify({ name: 'shared', leadSessionId: NAMED, members: [{ name: 'team-lead', agentId: 'team-lead@shared' }] }),
      );
    });
    expect(row(after, 'shared')?.team).toBe('shared');
  });

  it('a session that starts (its live-session file made): its row worked out, the others kept', async () => {
    const w = worlds.starts as World;
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      lists(w, 'kept');
      markKept(w);
      writeLiveSession(w.config, { pid: child.pid as number, sessionId: TODO, cwd: w.project });
      const after = listsAt(w, 'kept', settled());
      const truth = listsAt(w, 'none', settled());
      expect(stateOf(after, TODO)).toBe('live');
      expect(row(after, TODO)).toEqual(row(truth, TODO));
      expect(marked(after.filter((l) => l.id !== TODO))).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an answer is kept while a session runs, and its end shows at once, its file left behind', async () => {
    const w = worlds.runs as World;
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      writeLiveSession(w.config, { pid: child.pid as number, sessionId: TODO, cwd: w.project });
      // Past the settling time of the file just written, by the run's clock.
      const env = { TASKS_NOW: String(Date.now() + SETTLE_MS + 1_000) };
      expect(stateOf(listsAt(w, 'kept', env), TODO)).toBe('live');
      expect(stateOf(listsAt(w, 'kept', env), TODO)).toBe('live');
      expect(JSON.parse(fs.readFileSync(answerShard(w) as string, 'utf8')).entries.lists).toBeDefined();
    } finally {
      child.kill('SIGKILL');
    }
    await exited;
    // The process is gone; its live-session file stays, unchanged: a crash.
    const env = { TASKS_NOW: String(Date.now() + SETTLE_MS + 1_000) };
    const after = listsAt(w, 'kept', env);
    expect(stateOf(after, TODO)).toBe('crashed');
    expect(after).toEqual(listsAt(w, 'none', env));
  });

  it('a Claude Code process of this config folder with no live-session file: worked out again', async () => {
    const w = worlds['no-file'] as World;
    // A Claude Code process as /proc shows it (started by a path named claude), working in the project.
    const claude = path.join(w.config, 'bin', 'claude');
    fs.mkdirSync(path.dirname(claude), { recursive: true });
    fs.symlinkSync('/bin/sleep', claude);
    let child: ReturnType<typeof spawn> | undefined;
    try {
      freshAfter(w, () => {
        child = spawn(claude, ['60'], { cwd: w.project, env: { ...process.env, CLAUDE_CONFIG_DIR: w.config }, stdio: 'ignore' });
      });
      // While it runs, no answer is kept or used.
      expect(marked(lists(w, 'kept'))).toBe(false);
    } finally {
      child?.kill('SIGKILL');
    }
  });

  it('a session live by its transcript turns ended when the clock passes its time: worked out again', () => {
    const w = worlds.clock as World;
    const id = '3a1f0c52-0d5e-4c4e-9a57-6c1f4d7e0a09';
    // A session still writing (no end recorded) a moment ago, with no live-session file.
    const file = writeTaskTranscript(w.config, {
      sessionId: id,
      cwd: w.project,
      running: true,
      calls: [{ name: 'TaskList', input: {}, result: { tasks: [] }, at: Date.now() - 60_000 }],
    });
    fs.mkdirSync(path.join(w.config, 'tasks', id));
    fs.writeFileSync(
      path.join(w.config, 'tasks', id, '1.json'),
      JSON.stringify({ id: '1', subject: 'Step', description: '', status: 'in_progress', blocks: [], blockedBy: [] }),
    );
    const writtenAt = fs.statSync(file).mtimeMs;
    // Past the settling time of every file, within the time its transcript counts as live.
    const early = settled();
    expect(stateOf(listsAt(w, 'kept', early), id)).toBe('live');
    markKept(w);
    expect(marked(listsAt(w, 'kept', early))).toBe(true);
    const late = { TASKS_NOW: String(Math.ceil(writtenAt) + LIVE_TRANSCRIPT_MS + 1_000) };
    const after = listsAt(w, 'kept', late);
    expect(marked(after)).toBe(false);
    expect(stateOf(after, id)).toBe('ended');
    expect(after).toEqual(listsAt(w, 'none', late));
  });

  it('runs that keep their answer at once leave one whole answer, and the next run uses it', async () => {
    const w = worlds.race as World;
    const truth = lists(w, 'none');
    const env = baseEnv(w.config, { XDG_CACHE_HOME: w.cache, ...settled() });
    const once = () =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, [BIN, 'lists', '--json'], { cwd: w.project, env, stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        p.stdout.on('data', (d) => {
          out += d;
        });
        p.on('error', reject);
        p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
      });
    const outs = await Promise.all(Array.from({ length: 6 }, once));
    for (const out of outs) expect(JSON.parse(out)).toEqual(truth);
    const file = answerShard(w) as string;
    expect(() => JSON.parse(fs.readFileSync(file, 'utf8'))).not.toThrow();
    expect(fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    markKept(w);
    expect(marked(lists(w, 'kept'))).toBe(true);
  });
});

describe('lists between two full looks: what waits for the next one', () => {
  /** A task file rewritten in place by a program that takes no lock (an editor saving in place): its folder keeps its stamp. */
  const handEdit = (w: World) => {
    const file = path.join(w.config, 'tasks', OWN, '1.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"in_progress"', '"completed"'));
  };

  it('a task file rewritten in place with no lock: the kept answer until the next full look', () => {
    const w = worlds['in-place'] as World;
    const env = settled();
    listsAt(w, 'kept', env);
    markKept(w);
    handEdit(w);
    expect(marked(listsAt(w, 'kept', env)), 'within the full look period').toBe(true);
    // The full look is due FULL_LOOK_MS after the last one (made by the run of `env`).
    const later = { TASKS_NOW: String(Number(env.TASKS_NOW) + FULL_LOOK_MS) };
    const after = listsAt(w, 'kept', later);
    expect(marked(after)).toBe(false);
    expect(after).toEqual(listsAt(w, 'none', later));
    expect(row(after, OWN)?.counts).toMatchObject({ completed: 1, inProgress: 0 });
  });

  it('--fresh looks at every file at once', () => {
    const w = worlds.fresh as World;
    const env = settled();
    listsAt(w, 'kept', env);
    markKept(w);
    handEdit(w);
    const r = run(w.config, ['lists', '--json', '--fresh'], { cwd: w.project, env: { XDG_CACHE_HOME: w.cache, ...env } });
    expect(r.code).toBe(0);
    const after = JSON.parse(r.stdout);
    expect(marked(after)).toBe(false);
    expect(after).toEqual(listsAt(w, 'none', env));
    // And what it saw is kept: the next run, without the flag, shows it.
    expect(row(listsAt(w, 'kept', env), OWN)?.counts).toMatchObject({ completed: 1, inProgress: 0 });
  });

  it('a full look that finds nothing changed keeps the answer, and starts the period again', () => {
    const w = worlds.later as World;
    const env = settled();
    listsAt(w, 'kept', env);
    markKept(w);
    const later = { TASKS_NOW: String(Number(env.TASKS_NOW) + FULL_LOOK_MS) };
    expect(marked(listsAt(w, 'kept', later)), 'the full look finds the same stamps').toBe(true);
    handEdit(w);
    const soon = { TASKS_NOW: String(Number(later.TASKS_NOW) + 60_000) };
    expect(marked(listsAt(w, 'kept', soon)), 'within the new period').toBe(true);
    const due = { TASKS_NOW: String(Number(later.TASKS_NOW) + FULL_LOOK_MS) };
    expect(marked(listsAt(w, 'kept', due))).toBe(false);
  });
});
