/**
 * Edges of the list choice where what `tasks` prints or does must match the list an
 * agent uses:
 *
 * - a list name made of hex digits (a build or PR number) that begins a session's UUID
 *   names that list, as `CLAUDE_CODE_TASK_LIST_ID` would for an agent: a wait on it does
 *   not end on the session's list, and a create does not write there;
 * - `check`'s hints carry `-l <short id>` when the list was chosen, and pasted they act
 *   on the list that was checked;
 * - in a project with two fresh live sessions (no list folder yet), the command a
 *   refusal offers lands in the live session's list, the one its agent will read;
 * - a TodoWrite session's id, as `lists` shows it, gets a pointer to `--session`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';

const MIN = 60_000;
const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7baec0ff-1111-4a4a-8b8b-000000000002';
/** A session whose id begins with digits only, as about one UUID in seven does. */
const NUMERIC = '4821c0de-5eaa-461a-bfdf-3e104fbfeff7';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

function world() {
  const config = tempConfig();
  const home = path.join(config, 'home');
  fs.mkdirSync(home);
  const dir = (rel: string) => {
    const d = path.join(home, rel);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const tasks = (cwd: string, args: string[], env: Record<string, string | undefined> = {}) => runInProcessSync(config, args, { cwd, env });
  return { config, home, dir, tasks };
}

/** A command line as printed, run as a person pasting it would. */
function paste(config: string, cwd: string, line: string) {
  // The binary as a shell runs it: the pasted commands must work as typed.
  const r = spawnSync('bash', ['-c', `tasks() { "${process.execPath}" "${BIN}" "$@"; }\n${line}`], {
    cwd,
    env: baseEnv(config),
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('a list name of hex digits that begins a session id', () => {
  function numericWorld() {
    const w = world();
    const proj = w.dir('work/other');
    // An earlier session, its work all done.
    const sessionList = path.join(w.config, 'tasks', NUMERIC);
    writeTask(sessionList, task('1', { status: 'completed', subject: 'Done long ago' }));
    writeTranscript(w.config, {
      sessionId: NUMERIC,
      cwd: proj,
      prompt: 'finished work',
      start: Date.now() - 90 * MIN,
      end: Date.now() - 60 * MIN,
    });
    return { w, proj, sessionList };
  }

  it('watch --until all-completed on build 4821 waits for list 4821, not for the session 4821c0de', () => {
    const { w, proj } = numericWorld();
    // A CI job: the agent runs with CLAUDE_CODE_TASK_LIST_ID=4821 and has not made its first task yet.
    const gate = w.tasks(proj, ['-l', '4821', 'watch', '--until', 'all-completed', '--timeout', '1s', '--json']);
    const end = JSON.parse(gate.stdout.trim().split('\n').at(-1) as string) as { list?: string; met?: boolean };
    expect(gate.stdout).not.toContain(NUMERIC);
    expect(end.met).not.toBe(true);
    expect(gate.code, gate.stderr).toBe(124);
  });

  it('create on build 4821 makes list 4821, where an agent with CLAUDE_CODE_TASK_LIST_ID=4821 works', () => {
    const { w, proj, sessionList } = numericWorld();
    const made = w.tasks(proj, ['-l', '4821', 'create', 'Run the CI step']);
    expect(made.code, made.stderr).toBe(0);
    expect(fs.readdirSync(sessionList).filter((f) => f.endsWith('.json'))).toEqual(['1.json']);
    expect(fs.existsSync(path.join(w.config, 'tasks', '4821', '1.json'))).toBe(true);
    // The variable, as the agent reads it, agrees.
    const viaVariable = w.tasks(proj, ['list', '--json'], { CLAUDE_CODE_TASK_LIST_ID: '4821' });
    expect(viaVariable.code, viaVariable.stderr).toBe(0);
    expect((JSON.parse(viaVariable.stdout) as Array<{ subject: string }>).map((t) => t.subject)).toEqual(['Run the CI step']);
  });
});

describe("check's hints, when the list was chosen", () => {
  it('carry -l <short id>, and pasted they act on the list that was checked', () => {
    const w = world();
    const proj = w.dir('proj');
    for (const [id, age, prompt] of [
      [A, 10 * MIN, 'quick fix'],
      [B, 50 * MIN, 'long running'],
    ] as const) {
      writeTask(path.join(w.config, 'tasks', id), task('1', { status: 'in_progress', owner: 'worker-1' }));
      writeTranscript(w.config, { sessionId: id, cwd: proj, prompt, start: Date.now() - age - 10 * MIN, end: Date.now() - age });
    }
    const checked = w.tasks(proj, ['check']);
    expect(checked.code, 'warnings alone do not fail check').toBe(0);
    expect(checked.stderr).toMatch(/^using list 2d483082 /);
    const hint = /hint: .*?(tasks .*)$/m.exec(checked.stdout + checked.stderr)?.[1];
    expect(hint).toBe('tasks -l 2d483082 release --gone');
    const pasted = paste(w.config, proj, hint as string);
    expect(pasted.code, pasted.stderr).toBe(0);
  });
});

describe('two fresh live sessions in one project', () => {
  it("the command a refusal offers writes into the live session's own list, not a new list named by its short id", () => {
    const w = world();
    const proj = w.dir('work/twolive');
    const started = Date.now() - 2 * MIN;
    // Two sessions just started there, neither with a task yet (no list folder), as Claude Code leaves them.
    for (const [id, prompt] of [
      [A, 'fresh live 1'],
      [B, 'fresh live 2'],
    ] as const) {
      writeTranscript(w.config, { sessionId: id, cwd: proj, prompt, start: started, end: Date.now() - 1000, todos: false });
      writeLiveSession(w.config, { pid: liveProcess(), sessionId: id, cwd: proj, status: 'idle', start: started, name: prompt });
    }
    const refused = w.tasks(proj, ['create', 'Paste me']);
    expect(refused.code).toBe(2);
    const offered = /(tasks -l \S+ create 'Paste me')/.exec(refused.stderr)?.[1];
    expect(offered, refused.stderr).toBeDefined();
    const pasted = paste(w.config, proj, offered as string);
    expect(pasted.code, pasted.stderr).toBe(0);
    // The agent of that session reads tasks/<its full id>/; a folder named by the short id is read by nobody.
    const folders = fs.readdirSync(path.join(w.config, 'tasks')).filter((f) => !f.startsWith('.'));
    expect(folders.filter((f) => f !== A && f !== B)).toEqual([]);
    expect(folders.some((f) => fs.existsSync(path.join(w.config, 'tasks', f, '1.json')))).toBe(true);
  });
});

describe('a TodoWrite session, by the id lists shows', () => {
  it('-l <its id> points to --session, which reads it', () => {
    const w = world();
    const proj = w.dir('work/v1');
    const V1 = '9c0ffee0-2222-4a4a-8b8b-000000000003';
    writeTranscript(w.config, { sessionId: V1, cwd: proj, prompt: 'todo session' });
    writeTask(path.join(w.config, 'tasks', 'other'), task('1'));
    const rows = JSON.parse(w.tasks(proj, ['lists', '--json']).stdout) as Array<{ id: string; shortId: string; kind: string }>;
    const row = rows.find((r) => r.kind === 'todowrite');
    expect(row?.shortId).toBe('9c0ffee0');
    const byList = w.tasks(proj, ['-l', row?.shortId as string, 'list']);
    expect(byList.code).toBe(3);
    expect(byList.stderr).toMatch(/--session 9c0ffee0/);
  });
});

describe('an empty --config-dir', () => {
  it('is refused, not taken as the current folder (nothing written there)', () => {
    const w = world();
    const cwd = w.dir('checkout');
    const r = w.tasks(cwd, ['--config-dir=', '-l', 'ci', 'create', 'Step']);
    expect(fs.readdirSync(cwd)).toEqual([]);
    expect(r.code, r.stderr).toBe(2);
  });
});

describe('NO_COLOR in a terminal', () => {
  it('the "using list" note, cut to the width, carries no escape code', () => {
    const w = world();
    const proj = w.dir('proj');
    writeTask(path.join(w.config, 'tasks', A), task('1'));
    writeTranscript(w.config, {
      sessionId: A,
      cwd: proj,
      prompt: 'a prompt long enough that the note must be cut to the width of a narrow terminal window',
      start: Date.now() - 20 * MIN,
      end: Date.now() - 10 * MIN,
    });
    const line = `stty cols 60; ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} list --no-color`;
    // The binary in a terminal (script): what a person sees.
    const r = spawnSync('script', ['-qc', line, '/dev/null'], { cwd: proj, env: baseEnv(w.config, { NO_COLOR: '1' }), encoding: 'utf8' });
    const note = r.stdout.split(/\r?\n/).find((l) => l.startsWith('using list'));
    expect(note, r.stdout).toBeDefined();
    expect(note).not.toMatch(/\x1b/);
  });
});
