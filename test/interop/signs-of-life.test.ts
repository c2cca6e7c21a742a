/**
 * Interop: nothing is gone while an agent still works on the list, whatever way the real
 * Claude Code was started or pointed at it; and sessions of one named list are not taken
 * for another's.
 *
 * - A worker that shares a named list through `--settings` (not the environment), busy,
 *   in another folder than the session that planned the list.
 * - A worker started by the path an installer gives the binary
 *   (`<home>/.local/share/claude/versions/<version>`: the native installer's layout, and
 *   the path Claude Code itself starts a teammate by), sharing through the environment.
 * - A teammate of a team whose lead crashed, started with `--team-name` by that path.
 * - A live session whose live-session file is gone and whose transcript has not been
 *   written for more than ten minutes (an idle session, or one long step): its process
 *   still runs.
 * - Two CI builds running one plan on two named lists: each list's history and sessions
 *   are its own, and a crashed build's work is stalled while the other build runs.
 * - Local settings over 2 MiB, which Claude Code skips: `tasks` does not follow a binding
 *   the agent does not see.
 * - `tasks use` where a session runs: Claude Code reads the changed settings and moves the
 *   session to the new list at its next task call; the binding says so.
 * - A fork of a session on a named list: the parent's entries copied into the fork's
 *   transcript are not counted again in `log`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeBin, claudeVersion, runAgent } from './agent.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const CREATE = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject}, from the agent` } }];
const TAKE = (taskId: string, owner: string): Turn => [{ name: 'TaskUpdate', input: { taskId, status: 'in_progress', owner } }];
const LOOK: Turn = [{ name: 'TaskList', input: {} }];

/** The binary under a native install's name for it: `<root>/.local/share/claude/versions/<version>`. */
function installedPath(root: string): string {
  const versions = path.join(root, '.local', 'share', 'claude', 'versions');
  fs.mkdirSync(versions, { recursive: true });
  const link = path.join(versions, claudeVersion());
  fs.symlinkSync(claudeBin(), link);
  return link;
}

function taskFile(config: string, list: string, id: string): { status: string; owner?: string } {
  return JSON.parse(fs.readFileSync(path.join(config, 'tasks', list, `${id}.json`), 'utf8'));
}

/** What `release --gone -n --json` would release from the list. */
async function offered(w: ReturnType<typeof world>, cwd: string, list: string): Promise<string[]> {
  const r = await w.tasks(cwd, ['-l', list, 'release', '--gone', '-n', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ id: string }>).map((t) => t.id);
}

describe('the real Claude Code: nothing is gone while an agent works on the list', () => {
  it('a worker sharing the list through --settings, busy in another folder: nothing offered', async () => {
    const w = world();
    await runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: w.dir('work/ci-a'),
      prompt: 'plan the nightly',
      turns: [[...CREATE('Nightly A'), ...CREATE('Nightly B')]],
    });
    const hold = gate();
    const worker = runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: w.dir('work/ci-b'),
      prompt: 'work on the nightly',
      args: ['--settings', JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'nightly' } })],
      turns: [TAKE('2', 'worker-2'), LOOK],
      beforeTurn: (i) => (i === 1 ? hold.wait() : undefined),
    });
    await hold.arrived;
    try {
      // The worker took #2 of the shared list, and is busy on its turn.
      expect(taskFile(w.config, 'nightly', '2')).toMatchObject({ status: 'in_progress', owner: 'worker-2' });
      expect(liveFiles(w.config)).toHaveLength(1);
      expect(await offered(w, w.dir('work/ci-a'), 'nightly')).toEqual([]);
    } finally {
      hold.open();
      await worker;
    }
  });

  it('a worker started by the path the native installer gives the binary, sharing through the environment: nothing offered', async () => {
    const w = world();
    const bin = installedPath(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-install-')));
    await runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: w.dir('work/ci-a'),
      prompt: 'plan the nightly',
      turns: [[...CREATE('Nightly A'), ...CREATE('Nightly B')]],
    });
    const hold = gate();
    const worker = runAgent({
      configDir: w.config,
      listId: 'nightly',
      bin,
      cwd: w.dir('work/ci-b'),
      prompt: 'work on the nightly',
      turns: [TAKE('2', 'worker-2'), LOOK],
      beforeTurn: (i) => (i === 1 ? hold.wait() : undefined),
    });
    await hold.arrived;
    try {
      expect(taskFile(w.config, 'nightly', '2')).toMatchObject({ status: 'in_progress', owner: 'worker-2' });
      expect(await offered(w, w.dir('work/ci-a'), 'nightly')).toEqual([]);
    } finally {
      hold.open();
      await worker;
    }
  });

  it("a teammate whose lead crashed, started with --team-name by the binary's installed path: nothing offered", async () => {
    const w = world();
    const bin = installedPath(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-install-')));
    const teamDir = w.dir('work/team');
    // The lead: a real session, killed while busy (its live-session file stays: crashed).
    const leadHold = gate();
    const lead = runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: teamDir,
      prompt: 'lead the crew',
      turns: [CREATE('Lead notes'), LOOK],
      beforeTurn: (i) => (i === 1 ? leadHold.wait() : undefined),
    }).catch(() => undefined);
    await leadHold.arrived;
    const leadFile = await waitFor("the lead's live file", () => liveFiles(w.config)[0]);
    const procStart = fs.readFileSync(`/proc/${leadFile.pid}/stat`, 'latin1').split(') ')[1]?.split(' ')[19];
    fs.mkdirSync(path.join(w.config, 'teams', 'crew'), { recursive: true });
    fs.writeFileSync(
      path.join(w.config, 'teams', 'crew', 'config.json'),
      JSON.stringify({
        name: 'crew',
        leadAgentId: 'team-lead@crew',
        leadSessionId: leadFile.sessionId,
        leadProcess: { pid: leadFile.pid, procStart },
        members: [
          { agentId: 'team-lead@crew', name: 'team-lead', cwd: teamDir },
          { agentId: 'w2@crew', name: 'w2', cwd: w.dir('work/team-wt'), backendType: 'tmux' },
        ],
      }),
    );
    process.kill(leadFile.pid, 'SIGKILL');
    leadHold.open();
    await lead;
    for (const subject of ['Crew one', 'Crew two']) expect((await w.tasks(teamDir, ['-l', 'crew', 'create', subject])).code).toBe(0);
    const hold = gate();
    const teammate = runAgent({
      configDir: w.config,
      listId: undefined,
      bin,
      cwd: w.dir('work/team-wt'),
      prompt: 'work for the crew',
      args: ['--agent-id', 'w2@crew', '--agent-name', 'w2', '--team-name', 'crew', '--parent-session-id', leadFile.sessionId],
      env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' },
      turns: [TAKE('2', 'w2'), LOOK],
      beforeTurn: (i) => (i === 1 ? hold.wait() : undefined),
    });
    await hold.arrived;
    try {
      expect(taskFile(w.config, 'crew', '2')).toMatchObject({ status: 'in_progress', owner: 'w2' });
      expect(await offered(w, teamDir, 'crew')).toEqual([]);
    } finally {
      hold.open();
      await teammate;
    }
  });

  it('a live session whose live-session file is gone and whose transcript is quiet for over ten minutes: its process runs, nothing offered', async () => {
    const w = world();
    const proj = w.dir('work/api');
    const hold = gate();
    const agent = runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      prompt: 'long work',
      turns: [CREATE('Long work'), TAKE('1', 'agent'), LOOK],
      beforeTurn: (i) => (i === 2 ? hold.wait() : undefined),
    });
    await hold.arrived;
    try {
      const live = await waitFor('the live file', () => liveFiles(w.config)[0]);
      expect(taskFile(w.config, live.sessionId, '1')).toMatchObject({ status: 'in_progress', owner: 'agent' });
      // A clean-up removed the file; the session then waits (on a person at the prompt, or one long step)
      // without writing its transcript: as it will be eleven minutes on.
      fs.rmSync(live.file);
      // Let the agent finish writing what it writes around a request, then age the transcript.
      await new Promise((r) => setTimeout(r, 2500));
      const transcript = path.join(w.config, 'projects', proj.replace(/[^a-zA-Z0-9]/g, '-'), `${live.sessionId}.jsonl`);
      const quiet = (Date.now() - 11 * 60_000) / 1000;
      fs.utimesSync(transcript, quiet, quiet);
      expect(fs.existsSync(`/proc/${live.pid}`)).toBe(true);
      const gone = await offered(w, proj, live.sessionId.slice(0, 8));
      expect(fs.statSync(transcript).mtimeMs).toBeLessThan(Date.now() - 10 * 60_000);
      expect(gone).toEqual([]);
    } finally {
      hold.open();
      await agent;
    }
  });
});

describe('the real Claude Code: two builds running one plan on two named lists', () => {
  const PLAN: Turn[] = [[...CREATE('Run tests'), ...CREATE('Deploy')], TAKE('1', 'ci-agent')];

  it("each list's history and sessions are its own", async () => {
    const w = world();
    const proj = w.dir('work/pipeline');
    const runs: string[] = [];
    for (const list of ['build-101', 'build-102']) {
      const r = await runAgent({ configDir: w.config, listId: list, cwd: proj, prompt: 'nightly pipeline', turns: PLAN });
      runs.push(r.stream.sessionId as string);
    }
    const log = await w.tasks(proj, ['-l', 'build-101', 'log', '--json']);
    expect(log.code, log.stderr).toBe(0);
    const sessions = (JSON.parse(log.stdout) as Array<{ who: { session?: string } }>).map((c) => c.who.session);
    expect(sessions).toEqual([runs[0], runs[0], runs[0]]);
    const rows = JSON.parse((await w.tasks(proj, ['lists', '--json'])).stdout) as Array<{
      id: string;
      sessions: Array<{ sessionId: string }>;
    }>;
    expect(rows.find((r) => r.id === 'build-101')?.sessions.map((s) => s.sessionId)).toEqual([runs[0]]);
    expect(rows.find((r) => r.id === 'build-102')?.sessions.map((s) => s.sessionId)).toEqual([runs[1]]);
  });

  it("a crashed build's work is stalled while the other build runs", async () => {
    const w = world();
    const proj = w.dir('work/pipeline');
    const holds = [gate(), gate()];
    const agents = ['build-201', 'build-202'].map((list, n) =>
      runAgent({
        configDir: w.config,
        listId: list,
        cwd: proj,
        prompt: 'nightly pipeline',
        turns: [...PLAN, LOOK],
        beforeTurn: (i) => (i === 2 ? holds[n]?.wait() : undefined),
      }).catch((e: unknown) => e),
    );
    await Promise.all(holds.map((h) => h.arrived));
    const files = await waitFor('two live files', () => (liveFiles(w.config).length === 2 ? liveFiles(w.config) : undefined));
    // Build 201's agent dies (SIGKILL) with "Run tests" in progress; build 202's runs on.
    const dying = files.find((f) => fs.readFileSync(`/proc/${f.pid}/environ`, 'utf8').includes('CLAUDE_CODE_TASK_LIST_ID=build-201'));
    expect(dying).toBeDefined();
    process.kill(dying?.pid as number, 'SIGKILL');
    holds[0]?.open();
    try {
      await new Promise((r) => setTimeout(r, 2500));
      const watched = await w.tasks(proj, ['-l', 'build-201', 'watch', '--fail-if-stalled', '2s', '--timeout', '15s', '--json']);
      expect(watched.code, watched.stdout.slice(-400)).toBe(7);
    } finally {
      for (const h of holds) h.open();
      await Promise.all(agents);
    }
  });
});

describe('the real Claude Code: local settings over 2 MiB', () => {
  it('the agent skips them, and tasks does not follow the binding they hold', async () => {
    const w = world();
    const proj = w.dir('work/big');
    fs.mkdirSync(path.join(proj, '.claude'));
    // A binding, and a long permissions list: 3 MB in all.
    const allow = Array.from({ length: 120_000 }, (_, i) => `Bash(tool-${i})`);
    fs.writeFileSync(
      path.join(proj, '.claude', 'settings.local.json'),
      JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'big-list' }, permissions: { allow } }),
    );
    expect(fs.statSync(path.join(proj, '.claude', 'settings.local.json')).size).toBeGreaterThan(2 * 1024 * 1024);
    const run = await runAgent({ configDir: w.config, listId: undefined, cwd: proj, prompt: 'big settings', turns: [CREATE('Mine')] });
    // Claude Code did not read the file: the task is in the session's own list.
    expect(fs.existsSync(path.join(w.config, 'tasks', run.stream.sessionId as string, '1.json'))).toBe(true);
    expect(fs.existsSync(path.join(w.config, 'tasks', 'big-list'))).toBe(false);
    const shown = await w.tasks(proj, ['use']);
    expect(shown.stdout).not.toContain('big-list');
    const listed = await w.tasks(proj, ['list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ subject: string }>).map((t) => t.subject)).toEqual(['Mine']);
  });
});

describe('the real Claude Code: tasks use where a session runs', () => {
  it('moves the running session to the new list at its next task call, and says so', async () => {
    const w = world();
    const proj = w.dir('work/rebind');
    const hold = gate();
    const agent = runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      prompt: 'two steps',
      turns: [CREATE('Before the binding'), CREATE('After the binding')],
      beforeTurn: (i) => (i === 1 ? hold.wait() : undefined),
    });
    await hold.arrived;
    const live = await waitFor('the live file', () => liveFiles(w.config)[0]);
    let bound: Awaited<ReturnType<typeof w.tasks>>;
    try {
      bound = await w.tasks(proj, ['use', 'refactor']);
      expect(bound.code, bound.stderr).toBe(0);
      // Claude Code notices a settings file's change within a few seconds, as a person's next step would come.
      await new Promise((r) => setTimeout(r, 5000));
    } finally {
      hold.open();
    }
    await agent;
    // What Claude Code does: it reads the new settings while it runs; its next task goes to the bound list.
    expect(fs.existsSync(path.join(w.config, 'tasks', live.sessionId, '1.json'))).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(w.config, 'tasks', 'refactor', '1.json'), 'utf8'))).toMatchObject({
      subject: 'After the binding',
    });
    // So the binding's message names the running session it moves (its tasks stay in its old list).
    expect(bound.stderr).toContain(live.sessionId.slice(0, 8));
    // And lists, after the session, ties it to both lists by what it wrote in each.
    const rows = JSON.parse((await w.tasks(proj, ['lists', '--json'])).stdout) as Array<{
      id: string;
      sessions: Array<{ sessionId: string }>;
    }>;
    expect(rows.find((r) => r.id === 'refactor')?.sessions.map((s) => s.sessionId)).toEqual([live.sessionId]);
    expect(rows.find((r) => r.id === live.sessionId)?.sessions.map((s) => s.sessionId)).toEqual([live.sessionId]);
    // Each list's history holds its side of the move: both have a #1, each its own.
    const history = async (list: string) => {
      const r = await w.tasks(proj, ['-l', list, 'log', '--json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as Array<{ op: string; task: string; changes: { subject?: { new?: string } } }>).map((e) =>
        `${e.op} #${e.task} ${e.changes.subject?.new ?? ''}`.trim(),
      );
    };
    expect(await history('refactor')).toEqual(['create #1 After the binding']);
    expect(await history(live.sessionId)).toEqual(['create #1 Before the binding']);
    for (const list of ['refactor', live.sessionId]) {
      const doctor = JSON.parse((await w.tasks(proj, ['-l', list, 'doctor', '--json'])).stdout) as { findings: Array<{ code: string }> };
      expect(
        doctor.findings.map((f) => f.code),
        list,
      ).not.toContain('tasks_missing');
    }
  });
});

describe('the real Claude Code: a fork of a session on a named list', () => {
  it("log counts each change once: the parent's entries copied into the fork's transcript are not the fork's", async () => {
    const w = world();
    const proj = w.dir('work/pr');
    const parent = await runAgent({ configDir: w.config, listId: 'pr-123', cwd: proj, prompt: 'review pr 123', turns: [CREATE('Review')] });
    const parentId = parent.stream.sessionId as string;
    const fork = await runAgent({
      configDir: w.config,
      listId: 'pr-123',
      cwd: proj,
      prompt: 'take the review',
      args: ['--resume', parentId, '--fork-session'],
      turns: [TAKE('1', 'forker')],
    });
    const forkId = fork.stream.sessionId as string;
    expect(forkId).not.toBe(parentId);
    const log = await w.tasks(proj, ['-l', 'pr-123', 'log', '--json']);
    expect(log.code, log.stderr).toBe(0);
    const changes = (JSON.parse(log.stdout) as Array<{ op: string; task: string; who: { session?: string } }>).map(
      (c) => `${c.op} #${c.task} by ${c.who.session === parentId ? 'parent' : c.who.session === forkId ? 'fork' : c.who.session}`,
    );
    expect(changes).toEqual(['create #1 by parent', 'update #1 by fork']);
  });
});
