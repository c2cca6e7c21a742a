/**
 * Interop: which list, against the real Claude Code.
 *
 * - A project bound with `tasks use`: a new session started there (or in a folder of the
 *   repository) writes its tasks into that list, and `tasks` there uses it without a word.
 * - A list shared through CLAUDE_CODE_TASK_LIST_ID: `lists` shows the sessions that wrote
 *   to it; while one of them runs (even with its live-session file removed), nothing is
 *   offered by `release --gone -n` and nothing is marked gone or stalled; once all are
 *   over, their owners are gone.
 * - A TodoWrite session shows in `lists`.
 * - Two interactive sessions in one project, one of them /clear-ed: its old list shows
 *   `cleared -> <new id>` (before and after the new session's first prompt), doctor finds
 *   it stranded with the carry that brings it over, and `carry --dry-run` says cleared.
 * - An interactive session that made tasks and was then /clear-ed: `tasks create` lands in
 *   the new session's list, and the agent's next TaskList shows it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from './agent.js';
import { startInteractive } from './interactive.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const CREATE = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject}, from the agent` } }];

interface Row {
  id: string;
  kind: string;
  sessionId: string | null;
  state: string | null;
  counts: { total: number };
  sessions: Array<{ sessionId: string; state: string; replacedBy?: string | null; replacedHow?: string | null }>;
  replacedBy?: string | null;
}

describe('the real Claude Code: which list', () => {
  it('tasks use binds a project: a new session there, and in a folder of the repository, writes into the bound list', async () => {
    const w = world();
    const repo = w.dir('work/api');
    spawnSync('git', ['init', '-q', repo]);
    // Another list, so that only the binding (not "the only list") can make tasks quiet.
    expect((await w.tasks(w.home, ['-l', 'other', 'create', 'Elsewhere'])).code).toBe(0);
    const bound = await w.tasks(repo, ['use', 'refactor']);
    expect(bound.code, bound.stderr).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(repo, '.claude', 'settings.local.json'), 'utf8'))).toEqual({
      env: { CLAUDE_CODE_TASK_LIST_ID: 'refactor' },
    });
    await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: repo,
      prompt: 'split the handlers',
      turns: [CREATE('Split the handlers')],
    });
    await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: w.dir('work/api/src'),
      prompt: 'test the handlers',
      turns: [CREATE('Test the handlers')],
    });
    // Only list folders (tasks keeps dot-files of its own beside them).
    expect(
      fs
        .readdirSync(path.join(w.config, 'tasks'))
        .filter((f) => !f.startsWith('.'))
        .sort(),
    ).toEqual(['other', 'refactor']);
    // tasks in the project: the bound list, and not a word about it.
    const listed = await w.tasks(w.dir('work/api/src'), ['list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe('');
    expect((JSON.parse(listed.stdout) as Array<{ subject: string }>).map((t) => t.subject)).toEqual([
      'Split the handlers',
      'Test the handlers',
    ]);
    // lists: the named list, with the two sessions that wrote to it.
    const rows = JSON.parse((await w.tasks(w.home, ['lists', '--json'])).stdout) as Row[];
    expect(rows.find((r) => r.id === 'refactor')?.sessions.map((s) => s.state)).toEqual(['ended', 'ended']);
    // Unbound again: a new session there uses its own list.
    expect((await w.tasks(repo, ['use', '--clear'])).code).toBe(0);
    const own = await runAgent({ configDir: w.config, listId: undefined, cwd: repo, prompt: 'own list', turns: [CREATE('Mine')] });
    expect(fs.existsSync(path.join(w.config, 'tasks', own.stream.sessionId as string, '1.json'))).toBe(true);
  });

  it('a list shared through the environment: its sessions, and nothing gone while one runs, even without its session file; stalled by the one rule', async () => {
    const w = world();
    const proj = w.dir('work/release');
    const env = { CLAUDE_CODE_TASK_LIST_ID: 'release-7' };
    await runAgent({
      configDir: w.config,
      listId: 'release-7',
      cwd: proj,
      prompt: 'plan the release',
      turns: [CREATE('Tag the release'), CREATE('Publish the notes')],
    });
    const hold = gate();
    const worker = runAgent({
      configDir: w.config,
      listId: 'release-7',
      cwd: proj,
      prompt: 'work on the release',
      // As a worker does: look at the list, take a task, and work on it (held: alive and busy).
      turns: [
        [{ name: 'TaskList', input: {} }],
        [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', owner: 'worker' } }],
        [{ name: 'TaskList', input: {} }],
      ],
      beforeTurn: (i) => (i === 2 ? hold.wait() : undefined),
      env,
    });
    await hold.arrived;
    const live = await waitFor("the worker's live file", () => liveFiles(w.config)[0]);
    const offered = async () => {
      const r = await w.tasks(proj, ['-l', 'release-7', 'release', '--gone', '-n', '--json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as Array<{ id: string }>).map((t) => t.id);
    };
    const marked = async () => {
      const r = await w.tasks(proj, ['-l', 'release-7', 'list', '--stalled', '1s']);
      return `${r.stdout}${r.stderr}`;
    };
    await new Promise((r) => setTimeout(r, 1500));
    expect(await offered()).toEqual([]);
    // Never gone. Stalled, though: the worker is held inside its turn, its model's answer
    // not come, and a busy session is at work while its transcript grows or a tool call is
    // in flight (the rule list, lists, watch and notify share); it has written nothing for
    // longer than the 1s asked for.
    expect(await marked()).not.toMatch(/gone/);
    expect(await marked()).toMatch(/task #1 is stalled/);
    const rows = JSON.parse((await w.tasks(w.home, ['lists', '--json'])).stdout) as Row[];
    const shared = rows.find((r) => r.id === 'release-7');
    expect(shared?.sessions.map((s) => s.state)).toEqual(['live', 'ended']);
    // The worker's live-session file is removed (a clean-up, a copied folder): it still runs.
    fs.rmSync(live.file);
    expect(await offered()).toEqual([]);
    expect(await marked()).not.toMatch(/gone/);
    const again = JSON.parse((await w.tasks(w.home, ['lists', '--json'])).stdout) as Row[];
    expect(again.find((r) => r.id === 'release-7')?.sessions[0]?.state).toBe('live');
    hold.open();
    await worker;
    // Both over: the worker's task is offered back.
    expect(await offered()).toEqual(['1']);
  });

  it('a TodoWrite session shows in lists, read-only', async () => {
    const w = world();
    const proj = w.dir('work/docs');
    const run = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      prompt: 'write the docs',
      env: { CLAUDE_CODE_ENABLE_TASKS: '0' },
      turns: [
        [
          {
            name: 'TodoWrite',
            input: {
              todos: [
                { content: 'Outline', status: 'completed', activeForm: 'Outlining' },
                { content: 'Draft', status: 'in_progress', activeForm: 'Drafting' },
                { content: 'Review', status: 'pending', activeForm: 'Reviewing' },
              ],
            },
          },
        ],
      ],
    });
    const sessionId = run.stream.sessionId as string;
    const rows = JSON.parse((await w.tasks(w.home, ['lists', '--json'])).stdout) as Row[];
    expect(rows.find((r) => r.id === sessionId)).toMatchObject({ kind: 'todowrite', sessionId, state: 'ended', counts: { total: 3 } });
    const read = await w.tasks(w.home, ['--session', sessionId.slice(0, 8), 'list', '--json']);
    expect(read.code, read.stderr).toBe(0);
    expect((JSON.parse(read.stdout) as Array<{ subject: string; status: string }>).map((t) => [t.subject, t.status])).toEqual([
      ['Outline', 'completed'],
      ['Draft', 'in_progress'],
      ['Review', 'pending'],
    ]);
    const write = await w.tasks(w.home, ['--session', sessionId.slice(0, 8), 'create', 'x']);
    expect(write.code).toBe(3);
    expect(write.stderr).toMatch(/TodoWrite/);
    expect(write.stderr).toContain(`tasks -l ${sessionId} import `);
  });

  it('/clear while another session is live in the same project: the old list is cleared, stranded, and carried', async () => {
    const w = world();
    const proj = w.dir('work/web');
    const byPrompt = (prompt: string) => {
      const subject = /^create (.+)$/m.exec(prompt)?.[1];
      return subject === undefined ? undefined : CREATE(subject);
    };
    const a = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
    let b: Awaited<ReturnType<typeof startInteractive>> | undefined;
    try {
      const first = await waitFor('the first live file', () => liveFiles(w.config)[0]);
      await a.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the first prompt');
      b = await startInteractive({ configDir: w.config, cwd: proj, home: w.home, byPrompt });
      const other = await waitFor('the second live file', () => liveFiles(w.config).find((f) => f.pid !== first.pid));
      await b.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the second prompt');
      // Both processes run before either session's first prompt: start times cannot tell whose a session is.
      a.type('create Left behind');
      await waitFor('the first task', () => fs.existsSync(path.join(w.config, 'tasks', first.sessionId, '1.json')));
      b.type('create Other work');
      await waitFor("the other session's task", () => fs.existsSync(path.join(w.config, 'tasks', other.sessionId, '1.json')));
      a.type('/clear');
      const cleared = await waitFor('the new session id', () =>
        liveFiles(w.config).find((f) => f.pid === first.pid && f.sessionId !== first.sessionId),
      );
      // `how`: right after /clear, with no run of tasks to have seen the process on the old
      // session, only times tie them; once the new session has had a turn, its entries name the process.
      const check = async (when: string, how: 'times' | 'transcripts') => {
        const rows = JSON.parse((await w.tasks(w.home, ['lists', '--json'])).stdout) as Row[];
        expect(rows.find((r) => r.id === first.sessionId)?.sessions[0], when).toMatchObject({
          replacedBy: cleared.sessionId,
          replacedHow: how,
        });
        expect(rows.find((r) => r.id === other.sessionId)?.sessions[0], when).toMatchObject({ state: 'live', replacedBy: null });
        const text = await w.tasks(w.home, ['lists']);
        // Piped: the row of the old list ends with the session that replaced it, and how that is known.
        expect(
          text.stdout
            .split('\n')
            .find((l) => l.startsWith(first.sessionId))
            ?.split('\t')
            .slice(-2),
          when,
        ).toEqual([cleared.sessionId, how]);
        const doctor = await w.tasks(proj, ['--session', cleared.sessionId, 'doctor', '--json']);
        const findings = (
          JSON.parse(doctor.stdout) as { findings: Array<{ code: string; list?: string; fixes: Array<{ command?: string }> }> }
        ).findings;
        expect(
          findings.find((f) => f.code === 'list_stranded'),
          when,
        ).toMatchObject({
          list: first.sessionId,
          fixes: [{ command: `tasks --session ${cleared.sessionId} carry --from ${first.sessionId}` }],
        });
        const dry = await w.tasks(proj, ['--session', cleared.sessionId, 'carry', '--dry-run']);
        expect(dry.code, dry.stderr).toBe(0);
        expect(dry.stdout + dry.stderr, when).toContain(
          how === 'times'
            ? `(session probably cleared → ${cleared.sessionId.slice(0, 8)})`
            : `(cleared -> ${cleared.sessionId.slice(0, 8)})`,
        );
        expect(dry.stdout + dry.stderr, when).toContain('Left behind');
        expect(dry.stdout + dry.stderr, when).not.toContain('Other work');
      };
      // Claude Code writes the new transcript, and the old one's end, a moment after the live file.
      await clearWritten(w.config, proj, first.sessionId, cleared.sessionId);
      await check('right after /clear', 'times');
      a.type('create After the clear');
      await waitFor("the new session's task", () => fs.existsSync(path.join(w.config, 'tasks', cleared.sessionId, '1.json')));
      // Its turn on disk: Claude Code writes its transcript behind its turns (2.1.332 at times only after the task is made).
      const newTranscript = path.join(w.config, 'projects', proj.replace(/[^a-zA-Z0-9]/g, '-'), `${cleared.sessionId}.jsonl`);
      await waitFor("the new session's turn in its transcript", () =>
        fs.readFileSync(newTranscript, 'utf8').includes('"toolUseResult":{"task":{"id":"1"') ? true : undefined,
      );
      await check("after the new session's first turn", 'transcripts');
    } finally {
      await a.stop();
      await b?.stop();
    }
  });

  it("after /clear in an interactive session, tasks create lands in the new session's list, and the agent sees it", async () => {
    const w = world();
    const proj = w.dir('work/web');
    const session = await startInteractive({
      configDir: w.config,
      cwd: proj,
      home: w.home,
      byPrompt: (prompt) => {
        if (/^list tasks$/m.test(prompt)) return [{ name: 'TaskList', input: {} }];
        const subject = /^create (.+)$/m.exec(prompt)?.[1];
        return subject === undefined ? undefined : CREATE(subject);
      },
    });
    try {
      const first = await waitFor('the live file', () => liveFiles(w.config)[0]);
      await session.waitFor((s) => /auto mode|for shortcuts/.test(s), 'the prompt');
      session.type('create Before the clear');
      await waitFor('the first task', () => fs.existsSync(path.join(w.config, 'tasks', first.sessionId, '1.json')));
      session.type('/clear');
      const cleared = await waitFor('the new session id', () => liveFiles(w.config).find((f) => f.sessionId !== first.sessionId));
      expect(cleared.pid).toBe(first.pid);
      // The new session has no list yet: a read says so, and a change makes it.
      const read = await w.tasks(proj, ['list', '--json']);
      expect(read.code, read.stderr).toBe(0);
      expect(JSON.parse(read.stdout)).toEqual([]);
      expect(read.stderr).toMatch(/no tasks yet/);
      const made = await w.tasks(proj, ['create', 'From tasks after the clear']);
      expect(made.code, made.stderr).toBe(0);
      expect(fs.existsSync(path.join(w.config, 'tasks', cleared.sessionId, '1.json'))).toBe(true);
      expect(fs.readdirSync(path.join(w.config, 'tasks', first.sessionId)).filter((f) => f.endsWith('.json'))).toEqual(['1.json']);
      // lists: the live session, and the list of the session it replaced, once Claude Code
      // has written what ties them, a moment after the live file.
      await clearWritten(w.config, proj, first.sessionId, cleared.sessionId);
      const rows = JSON.parse((await w.tasks(w.home, ['lists', '--json'])).stdout) as Row[];
      expect(rows.find((r) => r.id === cleared.sessionId)).toMatchObject({ state: 'live', counts: { total: 1 } });
      expect(rows.find((r) => r.id === first.sessionId)?.sessions[0]).toMatchObject({ state: 'ended', replacedBy: cleared.sessionId });
      // The agent's next TaskList shows the task made with tasks.
      const before = session.model.received.length;
      session.type('list tasks');
      await waitFor('the TaskList result', () => session.model.received.length > before);
      expect(session.model.received.at(-1)?.text).toContain('From tasks after the clear');
    } finally {
      await session.stop();
    }
  });
});

/**
 * Until Claude Code has written what ties a /clear's two sessions: the new transcript with
 * its first prompt, the /clear command (the file can exist before it), and the old one's end.
 */
async function clearWritten(config: string, cwd: string, oldSession: string, newSession: string): Promise<void> {
  const folder = path.join(config, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
  await waitFor('the new transcript', () => {
    const file = path.join(folder, `${newSession}.jsonl`);
    return fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('<command-name>/clear</command-name>');
  });
  await waitFor("the old transcript's end", () =>
    fs
      .readFileSync(path.join(folder, `${oldSession}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n')
      .at(-1)
      ?.includes('"cost-state"'),
  );
}
