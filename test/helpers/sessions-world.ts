import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempConfig, writeTask } from './cli.js';
import { writeClearedTranscript, writeLiveSession, writeTaskTranscript, writeTranscript } from './session-files.mjs';

/**
 * A config folder with every kind of session `tasks lists` knows, for the board's tests:
 *
 * - `api`: a live, busy session with a list of its own (its process: a stand-in that runs);
 * - `web`: a session /clear ended (its list, one task still held by its agent) and the
 *   session its process went on as, live and idle, with no task yet (kind `new`);
 * - `docs`: a TodoWrite session, ended (its todos, read-only);
 * - `pipeline`: the named list `release-42`, tied to the two sessions whose transcripts
 *   made its tasks; and `build-201` / `build-202`, two lists of one plan written at the
 *   same moments, whose sessions no transcript can tell apart (unsure);
 * - the folder the board starts in binds `bound-list` (tasks use), which has no task yet.
 *
 * Sessions' times are spread so that `tasks lists` orders them: newest change first.
 */
export const IDS = {
  api: '2d483082-5b0c-4a6e-9f1a-3c1b7e9d4a10',
  webOld: '7f1c9e22-8d3b-4c55-a1e0-6b2f0c8d9e31',
  webNew: '9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d',
  docs: 'c0ffee00-1234-4abc-9def-0123456789ab',
  release1: '11111111-aaaa-4a4a-8b8b-000000000001',
  release2: '33333333-cccc-4c4c-8d8d-000000000003',
  build1: '44444444-dddd-4d4d-8e8e-000000000004',
  build2: '55555555-eeee-4e4e-8f8f-000000000005',
} as const;

export interface SessionsWorld {
  config: string;
  home: string;
  /** Where the board starts: bound to `bound-list`. */
  here: string;
  dirs: Record<'api' | 'web' | 'docs' | 'pipeline', string>;
  /** Stop the stand-in processes. */
  stop(): void;
}

/** A process that runs until stopped: a live session's stand-in (its pid and start time are real). */
function standIn(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
}

function task(dir: string, id: string, subject: string, status: string, over: Record<string, unknown> = {}, at?: number): void {
  writeTask(dir, { id, subject, description: '', status, blocks: [], blockedBy: [], ...over });
  if (at !== undefined) fs.utimesSync(path.join(dir, `${id}.json`), at / 1000, at / 1000);
}

function touch(dir: string, at: number): void {
  for (const f of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, f), at / 1000, at / 1000);
}

const create = (id: string, subject: string, at: number) => ({
  name: 'TaskCreate',
  input: { subject, description: '' },
  result: { task: { id, subject } },
  at,
});

const update = (id: string, input: Record<string, unknown>, at: number) => ({
  name: 'TaskUpdate',
  input: { taskId: id, ...input },
  result: { success: true, taskId: id, updatedFields: Object.keys(input) },
  at,
});

export function sessionsWorld(): SessionsWorld {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const dir = (p: string) => {
    const d = path.join(home, 'work', p);
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  const dirs = { api: dir('api'), web: dir('web'), docs: dir('docs'), pipeline: dir('pipeline') };
  const here = dir('shop');
  fs.mkdirSync(path.join(here, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(here, '.claude', 'settings.local.json'), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'bound-list' } }));
  const now = Date.now();
  const procs = [standIn(), standIn()];
  const [apiProc, webProc] = procs as [ChildProcess, ChildProcess];

  // api: live and busy, its own list, changed a minute ago.
  writeTranscript(config, {
    sessionId: IDS.api,
    cwd: dirs.api,
    branch: 'feat/rate-limit',
    prompt: 'add rate limiting to the public API',
    start: now - 40 * 60_000,
    end: now - 5_000,
    todos: false,
  });
  writeLiveSession(config, { pid: apiProc.pid!, sessionId: IDS.api, cwd: dirs.api, status: 'busy', name: 'api-rate-limit' });
  const api = path.join(config, 'tasks', IDS.api);
  task(api, '1', 'Design the rate-limit policy', 'completed', { owner: 'researcher' }, now - 30 * 60_000);
  task(
    api,
    '2',
    'Implement token bucket middleware',
    'in_progress',
    { owner: 'coder', activeForm: 'Implementing the bucket' },
    now - 60_000,
  );
  task(api, '3', 'Write integration tests', 'pending', {}, now - 60_000);

  // web: /clear. The process started 50 min ago; its first session made a list and ended at /clear;
  // the process went on as a new session, idle at its prompt, with no task yet.
  const started = now - 50 * 60_000;
  writeTaskTranscript(config, {
    sessionId: IDS.webOld,
    cwd: dirs.web,
    prompt: 'fix the flaky login tests',
    calls: [
      create('1', 'Reproduce the flaky login test', started + 60_000),
      create('2', 'Fix the cookie race', started + 61_000),
      update('1', { status: 'in_progress', owner: 'tester' }, started + 62_000),
      update('1', { status: 'completed' }, started + 120_000),
      update('2', { status: 'in_progress', owner: 'tester', activeForm: 'Fixing the cookie race' }, started + 121_000),
    ],
  });
  const web = path.join(config, 'tasks', IDS.webOld);
  task(web, '1', 'Reproduce the flaky login test', 'completed', { owner: 'tester' }, started + 120_000);
  task(web, '2', 'Fix the cookie race', 'in_progress', { owner: 'tester', activeForm: 'Fixing the cookie race' }, started + 121_000);
  // It opens with /clear, written as the first session's transcript ended (as Claude Code writes it).
  const clearedAt = started + 121_000 + 20;
  const opening = fs.readFileSync(writeClearedTranscript(config, { sessionId: IDS.webNew, cwd: dirs.web, at: clearedAt }), 'utf8');
  const webNew = writeTranscript(config, {
    sessionId: IDS.webNew,
    cwd: dirs.web,
    prompt: 'now update the changelog',
    start: started + 10 * 60_000,
    end: now - 10 * 60_000,
    todos: false,
  });
  // Its turns' entries name the session its process began with (session_id), as Claude Code writes them.
  const named = `${JSON.stringify({ type: 'attachment', attachment: { type: 'date' }, sessionId: IDS.webNew, session_id: IDS.webOld, timestamp: new Date(started + 10 * 60_000 + 1).toISOString() })}\n`;
  fs.writeFileSync(webNew, opening + fs.readFileSync(webNew, 'utf8') + named);
  fs.utimesSync(webNew, (now - 10 * 60_000) / 1000, (now - 10 * 60_000) / 1000);
  writeLiveSession(config, { pid: webProc.pid!, sessionId: IDS.webNew, cwd: dirs.web, status: 'idle', name: 'web-login', start: started });

  // docs: a TodoWrite session, ended two hours ago.
  writeTranscript(config, {
    sessionId: IDS.docs,
    cwd: dirs.docs,
    prompt: 'rewrite the getting-started guide',
    start: now - 3 * 3600_000,
    end: now - 2 * 3600_000,
  });

  // pipeline: release-42, a named list two sessions worked on, one after the other, three hours ago.
  const t = now - 3 * 3600_000 - 30 * 60_000;
  const release = path.join(config, 'tasks', 'release-42');
  writeTaskTranscript(config, {
    sessionId: IDS.release1,
    cwd: dirs.pipeline,
    prompt: 'prepare release 42',
    calls: [create('1', 'Tag the release', t), create('2', 'Publish the notes', t + 20)],
  });
  writeTaskTranscript(config, {
    sessionId: IDS.release2,
    cwd: dirs.pipeline,
    prompt: 'finish release 42',
    calls: [update('1', { status: 'completed' }, t + 600_000)],
  });
  task(release, '1', 'Tag the release', 'completed', {}, t + 600_005);
  task(release, '2', 'Publish the notes', 'pending', {}, t + 25);
  fs.writeFileSync(path.join(release, '.highwatermark'), '2');
  touch(release, t + 600_005);

  // build-201 / build-202: one plan, written at the same moments, five hours ago: which session made which, no transcript can tell.
  const b = now - 5 * 3600_000;
  for (const [list, session, at] of [
    ['build-201', IDS.build1, b],
    ['build-202', IDS.build2, b + 5],
  ] as const) {
    const d = path.join(config, 'tasks', list);
    task(d, '1', 'Run tests', 'pending', {}, at + 5);
    task(d, '2', 'Deploy', 'pending', {}, at + 25);
    writeTaskTranscript(config, {
      sessionId: session,
      cwd: dirs.pipeline,
      prompt: 'nightly pipeline',
      calls: [create('1', 'Run tests', at), create('2', 'Deploy', at + 20)],
    });
  }
  return {
    config,
    home,
    here,
    dirs,
    stop: () => {
      for (const p of procs) p.kill('SIGKILL');
    },
  };
}

/** A session that made a list of two tasks (#1 done, #2 pending) two hours ago in `cwd`, and ended; its list folder is gone. */
export const GONE_SESSION = '6a6a6a6a-1111-4b4b-8c8c-000000000006';

/** Its transcript's path. */
export function writeGoneSession(config: string, cwd: string): string {
  const at = Date.now() - 2 * 3600_000;
  return writeTaskTranscript(config, {
    sessionId: GONE_SESSION,
    cwd,
    prompt: 'plan the migration',
    calls: [
      create('1', 'Write the migration', at),
      create('2', 'Run it on staging', at + 1000),
      update('1', { status: 'completed' }, at + 2000),
    ],
  });
}
