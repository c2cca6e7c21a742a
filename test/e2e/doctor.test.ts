/**
 * tasks doctor: why agents do not see or keep a list, each cause with the exact fix.
 * Exit 0 when nothing is found, 4 with findings; it writes nothing.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, run, snapshotDir, stderrText, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeClearedTranscript, writeLiveSession, writeTranscript } from '../helpers/session-files.mjs';
import { writeTaskTranscript } from '../helpers/task-transcript.js';

const S1 = '11111111-1111-4111-8111-111111111111';
const S2 = '22222222-2222-4222-8222-222222222222';
const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';
const B = '7baec0ff-1111-4a4a-8b8b-000000000002';

interface Finding {
  code: string;
  message: string;
  session?: string;
  list?: string;
  file?: string;
  fixes: Array<{ kind: string; command?: string; file?: string; snippet?: unknown; key?: string }>;
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function world() {
  const config = tempConfig();
  const home = path.join(config, 'home');
  const proj = path.join(home, 'work', 'api');
  fs.mkdirSync(proj, { recursive: true });
  fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
  const doctor = (args: string[] = [], env: Record<string, string | undefined> = {}, cwd = proj) => {
    const r = runInProcessSync(config, ['doctor', '--json', ...args], { cwd, env });
    return {
      ...r,
      report: r.stdout === '' ? undefined : (JSON.parse(r.stdout) as { findings: Finding[]; sessions: string[]; lists: string[] }),
    };
  };
  const settings = (dir: string, name: string, body: unknown) => {
    fs.mkdirSync(path.join(dir, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.claude', name), JSON.stringify(body));
  };
  return { config, home, proj, doctor, settings };
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

describe('tasks doctor: sessions', () => {
  it("task tools off for the session's model: named, with the settings that turn them on (exit 4); the fix applied, none", () => {
    const w = world();
    writeTaskTranscript(w.config, {
      sessionId: S1,
      cwd: w.proj,
      model: 'claude-opus-5-5',
      deferredTools: ['WebFetch', 'SendMessage'],
      entrypoint: 'cli',
    });
    const before = snapshotDir(w.config);
    const r = w.doctor();
    expect(r.code).toBe(4);
    expect(snapshotDir(w.config)).toEqual(before);
    const local = path.join(w.proj, '.claude', 'settings.local.json');
    expect(r.report?.findings).toEqual([
      {
        code: 'task_tools_off',
        message: expect.stringMatching(
          /^session 11111111 had no task tools: claude-opus-5-5 is not among the models Claude Code gives the task tools to .*; its transcript shows it had neither the Task tools nor TodoWrite$/,
        ),
        session: S1,
        fixes: [
          {
            kind: 'settings',
            file: local,
            snippet: { env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' } },
            note: 'for every new session started there',
          },
          { kind: 'command', command: 'CLAUDE_CODE_ENABLE_TODO_TOOLS=1 claude', note: 'one session' },
        ],
      },
    ]);
    expect(stderrText(r.stderr)).toBe('1 problem found in project ~/work/api (1 session, 0 lists)\n');
    const text = runInProcessSync(w.config, ['doctor'], { cwd: w.proj });
    expect(text.code).toBe(4);
    expect(text.stdout).toContain(
      `    fix: in ${local} set {"env":{"CLAUDE_CODE_ENABLE_TODO_TOOLS":"1"}}  (for every new session started there)\n`,
    );
    expect(text.stdout).toContain('    or:  CLAUDE_CODE_ENABLE_TODO_TOOLS=1 claude  (one session)');
    // The fix, as offered: sessions started from now on have the tools; the one that had none is over.
    fs.mkdirSync(path.dirname(local), { recursive: true });
    fs.writeFileSync(local, JSON.stringify(r.report?.findings[0]?.fixes[0]?.snippet));
    expect(w.doctor()).toMatchObject({ code: 0, report: { findings: [] } });
  });

  it('from the model alone when the transcript lists no tools: an excluded model is named, an older one or the variable is not', () => {
    const w = world();
    writeTaskTranscript(w.config, { sessionId: S1, cwd: w.proj, model: 'claude-opus-5-5-20261101' });
    expect(w.doctor().report?.findings.map((f) => [f.code, f.message])).toEqual([
      ['task_tools_off', expect.stringMatching(/claude-opus-5-5 is not among .*; it called none of them \(a launch option/)],
    ]);
    writeTaskTranscript(w.config, { sessionId: S1, cwd: w.proj, model: 'us.anthropic.claude-opus-4-7-20260101-v1:0' });
    expect(w.doctor()).toMatchObject({ code: 0, report: { findings: [] } });
    writeTaskTranscript(w.config, { sessionId: S1, cwd: w.proj, model: 'claude-sonnet-5-0' });
    w.settings(w.proj, 'settings.local.json', { env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: 'on' } });
    expect(w.doctor()).toMatchObject({ code: 0, report: { findings: [] } });
  });

  it('TodoWrite mode: the file that sets CLAUDE_CODE_ENABLE_TASKS, and the import that makes a list of the todos', () => {
    const w = world();
    w.settings(w.proj, 'settings.json', { env: { CLAUDE_CODE_ENABLE_TASKS: '0' } });
    const transcript = writeTranscript(w.config, { sessionId: S2, cwd: w.proj, prompt: 'todo things' });
    const r = w.doctor();
    expect(r.code).toBe(4);
    const settingsFile = path.join(w.proj, '.claude', 'settings.json');
    expect(r.report?.findings).toEqual([
      {
        code: 'todowrite_mode',
        message: `session 22222222 keeps TodoWrite todos, not a task list (CLAUDE_CODE_ENABLE_TASKS=0 in ${settingsFile}): its todos live only in its transcript, and no list is written for tasks or other agents to see`,
        session: S2,
        file: settingsFile,
        fixes: [
          { kind: 'remove-setting', file: settingsFile, key: 'CLAUDE_CODE_ENABLE_TASKS', note: 'then start a new session' },
          { kind: 'command', command: `tasks -l ${S2} import ${transcript}`, note: 'makes a list of its 3 todos' },
        ],
      },
    ]);
    // The command offered works as pasted.
    const made = paste(w.config, w.proj, r.report?.findings[0]?.fixes[1]?.command as string);
    expect(made.code, made.stderr).toBe(0);
    expect(fs.readdirSync(path.join(w.config, 'tasks', S2)).filter((f) => f.endsWith('.json'))).toHaveLength(3);
  });

  it('/clear moved the agent on: its unfinished tasks are named, with the carry that brings them over', () => {
    const w = world();
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(child);
    const started = Date.now() - 30 * 60_000;
    writeTranscript(w.config, {
      sessionId: A,
      cwd: w.proj,
      prompt: 'before the clear',
      start: started + 1000,
      end: started + 600_000,
      todos: false,
    });
    const dir = path.join(w.config, 'tasks', A);
    writeTask(dir, { id: '1', subject: 'Left', description: '', status: 'pending', blocks: [], blockedBy: [] });
    writeTask(dir, { id: '2', subject: 'Done', description: '', status: 'completed', blocks: [], blockedBy: [] });
    // Agents' own bookkeeping is no work left behind.
    writeTask(dir, {
      id: '3',
      subject: 'Keep',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
      metadata: { _internal: true },
    });
    // B as /clear wrote it, after its first prompt (whose entries name A: the same process).
    writeClearedTranscript(w.config, { sessionId: B, cwd: w.proj, at: started + 600_000, firstSession: A });
    writeLiveSession(w.config, { pid: child.pid as number, sessionId: B, cwd: w.proj, status: 'idle', start: started });
    const r = w.doctor();
    expect(r.code).toBe(4);
    expect(r.report?.findings.find((f) => f.code === 'list_stranded')).toEqual({
      code: 'list_stranded',
      message: '/clear moved session 2d483082 on to 7baec0ff: the 1 unfinished task of list 2d483082 is no longer shown to its agent',
      session: A,
      list: A,
      fixes: [{ kind: 'command', command: `tasks --session ${B} carry --from ${A}`, note: 'brings them into the list the agent uses now' }],
    });
    // The fix as pasted: once carried, the work is in the agent's list and nothing is stranded.
    const carried = paste(w.config, w.proj, r.report?.findings.find((f) => f.code === 'list_stranded')?.fixes[0]?.command as string);
    expect(carried.code, carried.stderr).toBe(0);
    const after = w.doctor();
    expect(after.report?.findings.map((f) => f.code)).not.toContain('list_stranded');
  });

  it('/clear while another session is live in the same project: the cleared list is stranded, lists and carry say cleared', () => {
    const w = world();
    const started = Date.now() - 30 * 60_000;
    const cleared = started + 600_000;
    const [a, c] = [spawn('sleep', ['600'], { stdio: 'ignore' }), spawn('sleep', ['600'], { stdio: 'ignore' })];
    children.push(a, c);
    // Session A made a task, then its process (a) went on as B by /clear; C, another live session, works beside it.
    writeTranscript(w.config, {
      sessionId: A,
      cwd: w.proj,
      prompt: 'before the clear',
      start: started + 60_000,
      end: cleared,
      todos: false,
    });
    writeClearedTranscript(w.config, { sessionId: B, cwd: w.proj, at: cleared, firstSession: A });
    writeTranscript(w.config, {
      sessionId: S1,
      cwd: w.proj,
      prompt: 'other work',
      start: started + 70_000,
      end: Date.now() - 1000,
      todos: false,
    });
    const transcriptC = path.join(w.config, 'projects', w.proj.replace(/[^a-zA-Z0-9]/g, '-'), `${S1}.jsonl`);
    fs.writeFileSync(transcriptC, fs.readFileSync(transcriptC, 'utf8').replace(/\n\{"type":"cost-state"[^\n]*\n?$/, '\n'));
    writeTask(path.join(w.config, 'tasks', A), { id: '1', subject: 'Left', description: '', status: 'pending', blocks: [], blockedBy: [] });
    writeTask(path.join(w.config, 'tasks', S1), {
      id: '1',
      subject: 'Other',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    writeLiveSession(w.config, { pid: a.pid as number, sessionId: B, cwd: w.proj, status: 'idle', start: started });
    writeLiveSession(w.config, { pid: c.pid as number, sessionId: S1, cwd: w.proj, status: 'idle', start: started + 5_000, name: 'api-c' });
    const r = w.doctor(['--session', B]);

    expect(r.report?.findings.find((f) => f.code === 'list_stranded')).toMatchObject({
      code: 'list_stranded',
      session: A,
      list: A,
      fixes: [{ kind: 'command', command: `tasks --session ${B} carry --from ${A}` }],
    });
    const rows = JSON.parse(run(w.config, ['lists', '--json'], { cwd: w.proj }).stdout) as Array<{
      id: string;
      sessions: Array<{ replacedBy: string | null }>;
    }>;
    expect(rows.find((row) => row.id === A)?.sessions[0]?.replacedBy).toBe(B);
    expect(rows.find((row) => row.id === S1)?.sessions[0]?.replacedBy).toBeNull();
    const dry = run(w.config, ['--session', B, 'carry', '--dry-run'], { cwd: w.proj });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr + dry.stdout).toContain(`(cleared -> ${B.slice(0, 8)})`);
    expect(dry.stderr + dry.stdout).not.toContain('(session ended)');
  });

  it('a live session that lost its task tools (a setting turned them off while it ran): task_tools_unavailable, with the setting and the restart', () => {
    const w = world();
    const child = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(child);
    const start = Date.now() - 10 * 60_000;
    w.settings(w.proj, 'settings.local.json', { env: { CLAUDE_CODE_ENABLE_TASKS: '0' } });
    const transcript = writeTaskTranscript(w.config, {
      sessionId: S1,
      cwd: w.proj,
      start,
      model: 'claude-opus-5-5',
      entrypoint: 'cli',
      deferredTools: ['TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate'],
      ended: false,
      calls: [{ create: { id: '1', subject: 'A' } }, { unavailable: 'TaskList' }],
    });
    fs.utimesSync(transcript, new Date(), new Date());
    writeLiveSession(w.config, { pid: child.pid as number, sessionId: S1, cwd: w.proj, status: 'idle', start });
    const r = w.doctor();
    expect(r.code).toBe(4);
    const local = path.join(w.proj, '.claude', 'settings.local.json');
    const found = r.report?.findings.find((f) => f.code === 'task_tools_unavailable');
    expect(found).toMatchObject({
      code: 'task_tools_unavailable',
      session: S1,
      file: local,
      fixes: [
        { kind: 'remove-setting', file: local, key: 'CLAUDE_CODE_ENABLE_TASKS' },
        { kind: 'command', command: '/clear' },
      ],
    });
    expect(found?.message).toContain('No such tool available: TaskList');
    // The failed call's result is the transcript's seventh entry, six seconds in.
    expect(found?.message).toContain(new Date(start + 6000).toISOString().slice(11, 19));
    expect(found?.message).toContain(`CLAUDE_CODE_ENABLE_TASKS=0 in ${local}`);
  });

  it('a session gated to TodoWrite that first tried TaskCreate: shown by lists --all as TodoWrite, and doctor names the failed call', () => {
    const w = world();
    writeTaskTranscript(w.config, {
      sessionId: S2,
      cwd: w.proj,
      model: 'claude-opus-5-5',
      entrypoint: 'cli',
      deferredTools: ['TodoWrite'],
      calls: [
        { unavailable: 'TaskCreate', input: { subject: 'Plan', description: '' } },
        { todos: [{ content: 'Plan', status: 'pending', activeForm: 'Planning' }] },
      ],
    });
    const rows = JSON.parse(run(w.config, ['lists', '--all', '--json'], { cwd: w.proj }).stdout) as Array<{ id: string; kind: string }>;
    expect(rows).toMatchObject([{ id: S2, kind: 'todowrite' }]);
    const r = w.doctor();
    expect(r.report?.findings.map((f) => f.code)).toContain('task_tools_unavailable');
    expect(r.report?.findings.find((f) => f.code === 'task_tools_unavailable')?.message).toContain('No such tool available: TaskCreate');
  });

  it('tasks its transcripts show are gone (a reset): restore named, for the session and for -l', () => {
    const w = world();
    writeTaskTranscript(w.config, {
      sessionId: S1,
      cwd: w.proj,
      model: 'claude-opus-4-7',
      calls: [
        { create: { id: '1', subject: 'A' } },
        { create: { id: '2', subject: 'B' } },
        { update: { taskId: '1', status: 'completed' } },
      ],
    });
    const dir = path.join(w.config, 'tasks', S1);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '.highwatermark'), '2');
    const r = w.doctor(['--session', '1111']);
    expect(r.code).toBe(4);
    expect(r.report?.findings).toEqual([
      {
        code: 'tasks_missing',
        message:
          "2 tasks its sessions' transcripts show are missing from list 11111111-1 (deleted with no tool call: a reset once all were completed, garbage collection, a removed folder)",
        list: S1,
        fixes: [
          { kind: 'command', command: 'tasks -l 11111111-1 restore --dry-run', note: 'what would come back' },
          { kind: 'command', command: 'tasks -l 11111111-1 restore' },
        ],
      },
    ]);
    expect(w.doctor(['-l', S1]).report?.findings.map((f) => f.code)).toEqual(['tasks_missing']);
    const fixed = paste(w.config, w.proj, 'tasks -l 11111111-1 restore');
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(w.doctor(['--session', S1])).toMatchObject({ code: 0, report: { findings: [] } });
  });
});

describe('tasks doctor: settings and the list variable', () => {
  it('the variable set for tasks, overridden for the agents by a binding', () => {
    const w = world();
    w.settings(w.proj, 'settings.local.json', { env: { CLAUDE_CODE_TASK_LIST_ID: 'theirs' } });
    const r = w.doctor([], { CLAUDE_CODE_TASK_LIST_ID: 'mine' });
    expect(r.code).toBe(4);
    expect(r.report?.findings).toEqual([
      {
        code: 'list_variable_overridden',
        message: `CLAUDE_CODE_TASK_LIST_ID is "mine" for tasks, but Claude Code sessions started in ${w.proj} use list "theirs": ${path.join(w.proj, '.claude', 'settings.local.json')} sets it, and settings override the environment`,
        list: 'mine',
        file: path.join(w.proj, '.claude', 'settings.local.json'),
        fixes: [
          { kind: 'command', command: 'tasks use mine', note: 'the agents started here use your list' },
          { kind: 'command', command: 'unset CLAUDE_CODE_TASK_LIST_ID', note: 'tasks uses "theirs" as they do' },
        ],
      },
    ]);
    expect(w.doctor([], { CLAUDE_CODE_TASK_LIST_ID: 'theirs' })).toMatchObject({ code: 0 });
  });

  it('the variable set for tasks and not for the agents: they wrote to their own lists; tasks use fixes it', () => {
    const w = world();
    writeTaskTranscript(w.config, { sessionId: S1, cwd: w.proj, model: 'claude-opus-4-7', calls: [{ create: { id: '1', subject: 'A' } }] });
    writeTask(path.join(w.config, 'tasks', S1), { id: '1', subject: 'A', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const r = w.doctor([], { CLAUDE_CODE_TASK_LIST_ID: 'shared' });
    expect(r.report?.findings.map((f) => [f.code, f.fixes[0]])).toEqual([
      ['list_variable_not_shared', { kind: 'command', command: 'tasks use shared', note: 'every new session started here uses it' }],
    ]);
    expect(paste(w.config, w.proj, 'tasks use shared').code).toBe(0);
    expect(w.doctor([], { CLAUDE_CODE_TASK_LIST_ID: 'shared' }).report?.findings.map((f) => f.code)).toEqual([]);
  });

  it('the reverse: the agents here worked on a list named in their environment, which tasks here does not use', () => {
    const w = world();
    const cwd = w.proj;
    const fixture = fs.readFileSync(
      path.join(path.dirname(BIN), '..', 'test', 'fixtures', 'claude-code-2.1.328', 'sessions', 'transcript-tasks-named.jsonl'),
      'utf8',
    );
    const folder = path.join(w.config, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(
      path.join(folder, 'f7f775d4-e1d7-4aa0-a93e-9debb709c646.jsonl'),
      fixture.replaceAll('"/tmp/exp/p1/sub"', JSON.stringify(cwd)),
    );
    fs.cpSync(
      path.join(path.dirname(BIN), '..', 'test', 'fixtures', 'claude-code-2.1.328', 'sessions', 'shared-list'),
      path.join(w.config, 'tasks', 'shared-list'),
      {
        recursive: true,
      },
    );
    const r = w.doctor();
    expect(r.report?.findings.find((f) => f.code === 'agents_list_not_chosen')).toMatchObject({
      list: 'shared-list',
      fixes: [
        { kind: 'command', command: 'tasks use shared-list' },
        { kind: 'command', command: 'export CLAUDE_CODE_TASK_LIST_ID=shared-list' },
      ],
    });
  });

  it('a typo in the variable: no such list, and the list the agents here used, never the typo as a fix', () => {
    const w = world();
    const cwd = w.proj;
    const fixtures = path.join(path.dirname(BIN), '..', 'test', 'fixtures', 'claude-code-2.1.328', 'sessions');
    const folder = path.join(w.config, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(
      path.join(folder, 'f7f775d4-e1d7-4aa0-a93e-9debb709c646.jsonl'),
      fs.readFileSync(path.join(fixtures, 'transcript-tasks-named.jsonl'), 'utf8').replaceAll('"/tmp/exp/p1/sub"', JSON.stringify(cwd)),
    );
    fs.cpSync(path.join(fixtures, 'shared-list'), path.join(w.config, 'tasks', 'web-sprint'), { recursive: true });
    const r = w.doctor([], { CLAUDE_CODE_TASK_LIST_ID: 'web-sprnt' });
    expect(r.code).toBe(4);
    const found = r.report?.findings.find((f) => f.code === 'list_variable_unknown');
    expect(found).toMatchObject({
      list: 'web-sprnt',
      fixes: [
        { kind: 'command', command: 'export CLAUDE_CODE_TASK_LIST_ID=web-sprint' },
        { kind: 'command', command: 'tasks use web-sprint' },
      ],
    });
    expect(found?.message).toContain('no list "web-sprnt" exists');
    expect(found?.message).toContain('web-sprint');
    expect(JSON.stringify(r.report?.findings.flatMap((f) => f.fixes))).not.toContain('use web-sprnt');
  });

  it('a binding another settings file overrides: the file that has no effect, and what to do', () => {
    const w = world();
    const repo = path.join(w.home, 'work', 'repo');
    const sub = path.join(repo, 'sub');
    fs.mkdirSync(sub, { recursive: true });
    spawnSync('git', ['init', '-q', repo]);
    w.settings(repo, 'settings.local.json', { env: { CLAUDE_CODE_TASK_LIST_ID: 'root-list' } });
    w.settings(sub, 'settings.local.json', { env: { CLAUDE_CODE_TASK_LIST_ID: 'sub-list' } });
    const r = w.doctor([], {}, sub);
    const subFile = path.join(sub, '.claude', 'settings.local.json');
    expect(r.report?.findings).toEqual([
      {
        code: 'binding_shadowed',
        message: `${subFile} binds list "sub-list", but Claude Code sessions started in ${sub} use "root-list": ${path.join(repo, '.claude', 'settings.local.json')} (local settings) is read first`,
        file: subFile,
        list: 'sub-list',
        fixes: [
          { kind: 'remove-setting', file: subFile, key: 'CLAUDE_CODE_TASK_LIST_ID', note: 'it has no effect' },
          { kind: 'command', command: 'tasks use sub-list', note: 'to use "sub-list" instead' },
        ],
      },
    ]);
  });

  it('task hooks skipped because the folder is not trusted; trusted, none', () => {
    const w = world();
    w.settings(w.proj, 'settings.json', { hooks: { TaskCompleted: [{ hooks: [{ type: 'command', command: 'npm test' }] }] } });
    const r = w.doctor();
    const trustFile = path.join(w.config, '.claude.json');
    expect(r.report?.findings).toEqual([
      {
        code: 'hooks_untrusted',
        message: expect.stringMatching(/^the task hooks in .*settings\.json are skipped: .* is not trusted in Claude Code/),
        file: path.join(w.proj, '.claude', 'settings.json'),
        fixes: [
          { kind: 'command', command: `cd ${w.proj} && claude`, note: 'accept the trust dialog' },
          { kind: 'settings', file: trustFile, snippet: { projects: { [w.proj]: { hasTrustDialogAccepted: true } } } },
        ],
      },
    ]);
    fs.writeFileSync(trustFile, JSON.stringify({ projects: { [w.proj]: { hasTrustDialogAccepted: true } } }));
    expect(w.doctor()).toMatchObject({ code: 0 });
  });
});

describe('tasks doctor: lists and input', () => {
  it("a list's files: a stale lock and a file agents skip, each with check --fix", () => {
    const w = world();
    const dir = path.join(w.config, 'tasks', 'work');
    writeTask(dir, { id: '1', subject: 'Fine', description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.writeFileSync(path.join(dir, '2.json'), '{"id": "2", "subject": ');
    fs.mkdirSync(path.join(dir, '.lock.lock'));
    const old = (Date.now() - 3_600_000) / 1000;
    fs.utimesSync(path.join(dir, '.lock.lock'), old, old);
    const r = w.doctor(['-l', 'work']);
    expect(r.code).toBe(4);
    expect(r.report?.findings.map((f) => [f.code, f.fixes[0]?.command])).toEqual([
      ['tasks_unreadable', 'tasks -l work check --fix'],
      ['lock_problem', 'tasks -l work check --fix'],
    ]);
  });

  it('healthy: exit 0, nothing on stdout, a word on stderr', () => {
    const w = world();
    writeTaskTranscript(w.config, { sessionId: S1, cwd: w.proj, model: 'claude-opus-4-7', calls: [{ create: { id: '1', subject: 'A' } }] });
    writeTask(path.join(w.config, 'tasks', S1), { id: '1', subject: 'A', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const r = runInProcessSync(w.config, ['doctor'], { cwd: w.proj });
    expect(r).toEqual({ code: 0, stdout: '', stderr: 'no problem found in project ~/work/api (1 session, 1 list)\n' });
  });

  it('bad input: one line, the right exit code', () => {
    const w = world();
    const cases: Array<[string[], number, RegExp]> = [
      [['-l', 'x', '--session', 'y', 'doctor'], 2, /^error: give -l or --session, not both\n/],
      [['--session', 'nope', 'doctor'], 3, /^error: no session "nope" under /],
      [['--session', '', 'doctor'], 2, /^error: the session id is empty\n/],
      [['-l', '', 'doctor'], 2, /^error: the list id is empty\n/],
      [['--config-dir', path.join(w.config, 'missing'), 'doctor'], 3, /^error: .*missing/],
      [['doctor', 'extra'], 2, /^error: too many arguments/],
      // A list that does not exist and that no transcript records: not found, as for check or log.
      [['-l', 'nope', 'doctor'], 3, /^error: list folder .*nope does not exist\n/],
    ];
    for (const [args, code, message] of cases) {
      const r = runInProcessSync(w.config, args, { cwd: w.proj });
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
    // The same error as the other commands give, --json too.
    const check = runInProcessSync(w.config, ['-l', 'nope', 'check', '--json'], { cwd: w.proj });
    const doctor = runInProcessSync(w.config, ['-l', 'nope', 'doctor', '--json'], { cwd: w.proj });
    expect(doctor).toEqual({ ...check, code: 3 });
  });
});
