import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../src/core/cache/file-stamp.js';
import { run, tempConfig } from '../helpers/cli.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

/**
 * The project's list choice keeps its directory's sessions with the stamps of what they
 * came from (core/lists/kept-choice.ts) and uses them while none has changed. Each test
 * keeps them, then marks them (the first session's list becomes "KEPT"): a run that
 * names KEPT used what was kept. With nothing changed the mark must show; after a change
 * of any one input it must not, and the run must say and list what a run with no cache at
 * all does. Through the built binary: only the bundle keeps a persistent cache.
 */

// Three sessions of one project, each with a list of its own; C the most recently active.
const A = '5b2e0c52-0d5e-4c4e-9a57-6c1f4d7e0a01';
const B = '5b2e0c52-0d5e-4c4e-9a57-6c1f4d7e0a02';
const C = '5b2e0c52-0d5e-4c4e-9a57-6c1f4d7e0a03';
// A session whose list is there before its transcript; one with no list of its own.
const D = '5b2e0c52-0d5e-4c4e-9a57-6c1f4d7e0a04';
const E = '5b2e0c52-0d5e-4c4e-9a57-6c1f4d7e0a05';

interface World {
  config: string;
  project: string;
  cache: string;
  folder: string;
}

function world(): World {
  const config = tempConfig();
  const project = path.join(config, 'home', 'work', 'app');
  fs.mkdirSync(project, { recursive: true });
  const start = Date.now() - 3_600_000;
  for (const [i, id] of [A, B, C].entries()) {
    writeTranscript(config, { sessionId: id, cwd: project, prompt: `session ${i}`, todos: false, start: start + i * 600_000 });
    writeTask(config, id, `task of ${id.slice(-2)}`);
  }
  writeTask(config, D, 'made before its session wrote');
  writeTranscript(config, { sessionId: E, cwd: project, prompt: 'no list', todos: false, start: start - 600_000 });
  return {
    config,
    project,
    cache: path.join(config, 'cache'),
    folder: path.join(config, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-')),
  };
}

function writeTask(config: string, list: string, subject: string): void {
  const dir = path.join(config, 'tasks', list);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, '1.json'),
    JSON.stringify({ id: '1', subject, description: '', status: 'pending', blocks: [], blockedBy: [] }),
  );
}

/** A run's clock past the settling time of what the test wrote (as kept-lists.test.ts does). */
const settled = () => ({ TASKS_NOW: String(Date.now() + SETTLE_MS + 300) });

/** `tasks <args>` in the project, with the world's cache or with none. */
function inProject(w: World, args: string[], cache: 'kept' | 'none', env: Record<string, string> = settled()) {
  const folder = cache === 'kept' ? w.cache : fs.mkdtempSync(path.join(w.config, 'no-cache-'));
  const r = run(w.config, args, { cwd: w.project, env: { XDG_CACHE_HOME: folder, ...env } });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** The kept sessions' shard file. */
function choiceShard(w: World): string | undefined {
  const root = path.join(w.cache, 'tasks');
  if (!fs.existsSync(root)) return undefined;
  return fs
    .readdirSync(root)
    .map((owner) => path.join(root, owner, '_choice.json'))
    .find((f) => fs.existsSync(f));
}

/** Mark what is kept for the project: its first session's list is KEPT. Fails when nothing is kept. */
function markKept(w: World): void {
  const file = choiceShard(w);
  expect(file, 'sessions are kept').toBeDefined();
  const body = JSON.parse(fs.readFileSync(file as string, 'utf8')) as {
    entries: Record<string, { ended: Array<[string, string, number]> }>;
  };
  const entry = body.entries[w.project];
  expect(entry, 'the project is kept').toBeDefined();
  (entry?.ended[0] as [string, string, number])[1] = 'KEPT';
  fs.writeFileSync(file as string, JSON.stringify(body));
}

const marked = (r: { stdout: string; stderr: string }) => `${r.stdout}${r.stderr}`.includes('KEPT');

/** Keep and mark; then `change` the world: the next run must be what a run with no cache gives. */
function freshAfter(w: World, change: () => void, env: Record<string, string> = settled()) {
  inProject(w, ['list'], 'kept');
  markKept(w);
  change();
  const after = inProject(w, ['list'], 'kept', env);
  expect(marked(after), 'what was kept was used after a change').toBe(false);
  expect(after).toEqual(inProject(w, ['list'], 'none', env));
  expect(after.code).toBe(0);
  return after;
}

const chose = (r: { stderr: string }, id: string) => r.stderr.includes(`using list ${id.slice(0, 8)}`);

const names = ['same', 'write', 'resumed', 'appears', 'removed', 'crashed', 'starts', 'no-file', 'team', 'clock', 'linked'] as const;
const worlds = {} as Record<(typeof names)[number], World>;
beforeAll(() => {
  for (const name of names) worlds[name] = world();
});

describe("the project's list choice keeps its sessions", () => {
  it('uses what it kept while nothing has changed, and says what working it out says', () => {
    const w = worlds.same;
    const first = inProject(w, ['list'], 'kept');
    expect(first).toEqual(inProject(w, ['list'], 'none'));
    expect(chose(first, C)).toBe(true);
    expect(first.stderr).toContain('2 other lists of sessions');
    const again = inProject(w, ['list'], 'kept');
    expect(again).toEqual(first);
    markKept(w);
    expect(marked(inProject(w, ['list'], 'kept'))).toBe(true);
  });

  it('a change, with several lists in the project, is refused naming every candidate as before', () => {
    const w = worlds.write;
    inProject(w, ['list'], 'kept');
    markKept(w);
    const kept = inProject(w, ['create', 'x'], 'kept');
    expect(kept.code).toBe(2);
    expect(marked(kept)).toBe(false);
    expect(kept).toEqual(inProject(w, ['create', 'x'], 'none'));
  });

  it('an older session resumed (its transcript appended to): worked out again', () => {
    const w = worlds.resumed;
    const after = freshAfter(w, () => {
      const file = path.join(w.folder, `${A}.jsonl`);
      const last = fs.readFileSync(file, 'utf8').trimEnd().split('\n').pop() as string;
      fs.appendFileSync(file, `${JSON.stringify({ ...JSON.parse(last), timestamp: new Date().toISOString() })}\n`);
    });
    expect(chose(after, A)).toBe(true);
  });

  it('a transcript made for a list already there: worked out again', () => {
    const w = worlds.appears;
    const after = freshAfter(w, () => {
      writeTranscript(w.config, { sessionId: D, cwd: w.project, prompt: 'new session', todos: false, start: Date.now() - 60_000 });
    });
    expect(chose(after, D)).toBe(true);
  });

  it("the chosen session's list folder removed: worked out again", () => {
    const w = worlds.removed;
    const after = freshAfter(w, () => fs.rmSync(path.join(w.config, 'tasks', C), { recursive: true }));
    expect(chose(after, B)).toBe(true);
  });

  it("a crashed session's live-session file left behind: worked out again", () => {
    const w = worlds.crashed;
    const after = freshAfter(w, () => {
      writeLiveSession(w.config, { pid: 4_000_001, sessionId: C, cwd: w.project, procStartTicks: '1', start: Date.now() - 60_000 });
    });
    expect(after.stderr).toContain('crashed session');
  });

  it('a session that starts (its live-session file made): worked out again', () => {
    const w = worlds.starts;
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const after = freshAfter(w, () => writeLiveSession(w.config, { pid: child.pid as number, sessionId: A, cwd: w.project }));
      expect(after.stderr).toContain('live session');
      expect(chose(after, A)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a Claude Code process of this config folder with no live-session file, with a session that has not recorded its end: worked out again', () => {
    const w = worlds['no-file'];
    // C's last entry is not its end (a session idle at its prompt, its live-session file removed).
    const file = path.join(w.folder, `${C}.jsonl`);
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.at(-1)).toContain('"type":"cost-state"');
    fs.writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n`);
    fs.utimesSync(file, new Date(Date.now() - 3_000_000), new Date(Date.now() - 3_000_000));
    const claude = path.join(w.config, 'bin', 'claude');
    fs.mkdirSync(path.dirname(claude), { recursive: true });
    fs.symlinkSync('/bin/sleep', claude);
    let child: ReturnType<typeof spawn> | undefined;
    try {
      freshAfter(w, () => {
        child = spawn(claude, ['60'], { cwd: w.project, env: { ...process.env, CLAUDE_CONFIG_DIR: w.config }, stdio: 'ignore' });
      });
    } finally {
      child?.kill('SIGKILL');
    }
  });

  it("a team config that makes a team's list a session's: worked out again", () => {
    const w = worlds.team;
    writeTask(w.config, 'crew', 'the team list');
    const after = freshAfter(w, () => {
      // E, the session with no list, leads the team: the team's list is E's.
      fs.mkdirSync(path.join(w.config, 'teams', 'crew'), { recursive: true });
      fs.writeFileSync(
        path.join(w.config, 'teams', 'crew', 'config.json'),
        JSON.stringify({ name: 'crew', leadSessionId: E, members: [{ name: 'team-lead', agentId: 'team-lead@crew' }] }),
      );
    });
    expect(after.stderr).toContain('3 other lists of sessions');
  });

  it('a clock earlier than the one it was kept by: worked out again', () => {
    const w = worlds.clock;
    const late = { TASKS_NOW: String(Date.now() + 600_000) };
    inProject(w, ['list'], 'kept', late);
    markKept(w);
    expect(marked(inProject(w, ['list'], 'kept', late))).toBe(true);
    const earlier = settled();
    const after = inProject(w, ['list'], 'kept', earlier);
    expect(marked(after)).toBe(false);
    expect(after).toEqual(inProject(w, ['list'], 'none', earlier));
  });

  it('nothing is kept while a list folder is a symlink (its target can go with no stamp here changing)', () => {
    const w = worlds.linked;
    const target = path.join(w.config, 'elsewhere');
    fs.renameSync(path.join(w.config, 'tasks', B), target);
    fs.symlinkSync(target, path.join(w.config, 'tasks', B));
    const first = inProject(w, ['list'], 'kept');
    expect(first).toEqual(inProject(w, ['list'], 'none'));
    const file = choiceShard(w);
    if (file !== undefined) expect(JSON.parse(fs.readFileSync(file, 'utf8')).entries[w.project]).toBeUndefined();
  });
});
