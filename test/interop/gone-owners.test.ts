/**
 * Interop: gone owners among live sessions, with the real Claude Code.
 *
 * - A shared list (CLAUDE_CODE_TASK_LIST_ID): one agent claims its task and is killed
 *   (crashed) while another claims its own and works on. `release --gone` gives back the
 *   crashed agent's task, and never the live one's.
 * - A session's own list, its session ended, while another session runs in the same
 *   folder on a list of its own: `tasks list` hints `release --gone`, and the command does
 *   it without --force.
 * - A solo agent on a named list starts #1 without an owner and is killed: the watch, notify
 *   and `release --gone` all say it held #1; the release puts #1 back to pending.
 * - That agent killed, a live session goes on with #1 (a fork of it, one that edited #1, one
 *   that set it in progress again, which Claude Code answers `updatedFields: []` without a
 *   write): #1 is not gone, and `release --gone` would not put it back.
 * - That agent interrupted (SIGINT) inside a turn: Claude Code writes its end, then the cut
 *   turn's interrupt entry, and removes its live-session file: it ended, at once.
 * - That agent killed, then resumed (`--resume`, the same session) and ended cleanly: the
 *   session's fate is its last run's, `ended`, though the killed run's live-session file is
 *   still there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startWatch } from '../helpers/watch.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';
import { gate, liveFiles, waitFor, world } from './session-world.js';

const CREATE = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject}, from the agent` } }];
const CLAIM = (id: string, owner: string): Turn => [{ name: 'TaskUpdate', input: { taskId: id, status: 'in_progress', owner } }];
const LIST: Turn = [{ name: 'TaskList', input: {} }];
const START = (id: string): Turn => [{ name: 'TaskUpdate', input: { taskId: id, status: 'in_progress' } }];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the real Claude Code: gone owners while other sessions live', () => {
  it("a shared list: the crashed agent's task is given back, the live agent's is not", async () => {
    const w = world();
    const [job1, job2] = [w.dir('ci/job-1'), w.dir('ci/job-2')];
    const list = path.join(w.config, 'tasks', 'nightly');
    const held = [gate(), gate()];
    const turns = (subject: string, id: string, owner: string) => [CREATE(subject), CLAIM(id, owner), LIST];
    // The first job claims #1 and is killed mid-run; the second claims #2 and works on.
    const dying = runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job1,
      turns: turns('Build', '1', 'worker-c'),
      beforeTurn: (i) => (i === 2 ? held[0]?.wait() : undefined),
    }).catch(() => undefined);
    await held[0]?.arrived;
    const working = runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job2,
      turns: turns('Test', '2', 'worker-l'),
      beforeTurn: (i) => (i === 2 ? held[1]?.wait() : undefined),
    });
    try {
      await held[1]?.arrived;
      const victim = await waitFor('the first job', () => liveFiles(w.config).find((f) => f.cwd === job1));
      process.kill(victim.pid, 'SIGKILL');
      await waitFor('its end', () => !alive(victim.pid));
      held[0]?.open();
      await dying;
      const lists = JSON.parse((await w.tasks(job2, ['lists', '--json'])).stdout) as Array<{
        id: string;
        sessions: Array<{ sessionId: string; state: string }>;
      }>;
      expect(
        lists
          .find((l) => l.id === 'nightly')
          ?.sessions.map((s) => s.state)
          .sort(),
      ).toEqual(['crashed', 'live']);
      const dry = await w.tasks(job2, ['-l', 'nightly', 'release', '--gone', '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toBe(
        `Would release task #1 from worker-c (in_progress -> pending; session ${victim.sessionId.slice(0, 8)} crashed): Build\n`,
      );
      const released = await w.tasks(job2, ['-l', 'nightly', 'release', '--gone', '--json']);
      expect(released.code, released.stderr).toBe(0);
      expect((JSON.parse(released.stdout) as Array<{ id: string }>).map((r) => r.id)).toEqual(['1']);
      const read = (id: string) => JSON.parse(fs.readFileSync(path.join(list, `${id}.json`), 'utf8')) as { owner?: string; status: string };
      expect(read('1')).toMatchObject({ status: 'pending' });
      expect(read('1').owner).toBeUndefined();
      expect(read('2')).toMatchObject({ owner: 'worker-l', status: 'in_progress' });
    } finally {
      held[1]?.open();
      await working;
    }
    // The live agent's own TaskList, after: its claim stands, and #1 is free for it.
    expect(
      fs
        .readdirSync(list)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual(['1.json', '2.json']);
  });

  it('a shared list whose sessions are all over: the owner is told by the end of the session that gave it the task, not of one that only listed it after', async () => {
    const w = world();
    const [job1, job2] = [w.dir('ci/job-1'), w.dir('ci/job-2')];
    const held = gate();
    const dying = runAgent({
      configDir: w.config,
      listId: 'nightly',
      cwd: job1,
      turns: [CREATE('Build'), CLAIM('1', 'worker-c'), LIST],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    }).catch(() => undefined);
    await held.arrived;
    const victim = await waitFor('the first job', () => liveFiles(w.config).find((f) => f.cwd === job1));
    // Its transcript written to its claim (Claude Code appends it a moment after the call).
    const folder = path.join(w.config, 'projects');
    const transcriptOf = (id: string) =>
      fs
        .readdirSync(folder, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith(`${id}.jsonl`))
        .map((f) => fs.readFileSync(path.join(folder, f), 'utf8'))
        .join('');
    await waitFor('its claim in its transcript', () => transcriptOf(victim.sessionId).includes('"statusChange"'));
    process.kill(victim.pid, 'SIGKILL');
    await waitFor('its end', () => !alive(victim.pid));
    held.open();
    await dying;
    // A second job only lists the tasks (worker-c's claim among them) and ends cleanly, after the crash.
    await runAgent({ configDir: w.config, listId: 'nightly', cwd: job2, turns: [LIST, LIST] });
    const short = victim.sessionId.slice(0, 8);
    const got = JSON.parse((await w.tasks(job2, ['-l', 'nightly', 'get', '1', '--json'])).stdout) as { gone?: Record<string, unknown> };
    expect(got.gone).toMatchObject({ session: victim.sessionId, state: 'crashed', why: `session ${short} crashed` });
    const dry = await w.tasks(job2, ['-l', 'nightly', 'release', '--gone', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(`Would release task #1 from worker-c (in_progress -> pending; session ${short} crashed): Build\n`);
  });

  it('an ended session beside a live one on its own list in the same folder: the hint and release --gone agree', async () => {
    const w = world();
    const proj = w.dir('work/web');
    const ended = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      turns: [CREATE('Old branch work'), CLAIM('1', 'worker-1')],
    });
    const endedId = ended.stream.sessionId as string;
    const held = gate();
    const other = runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      turns: [CREATE('New branch work'), CLAIM('1', 'worker-2'), LIST],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    });
    try {
      await held.arrived;
      const otherId = await waitFor('the live session', () => liveFiles(w.config).find((f) => f.cwd === proj)?.sessionId);
      const shown = await w.tasks(proj, ['-l', endedId, 'list']);
      expect(shown.stderr).toContain(`tasks -l ${endedId.slice(0, 8)} release --gone gives them back`);
      const released = await w.tasks(proj, ['-l', endedId, 'release', '--gone']);
      expect(released.code, released.stderr).toBe(0);
      expect(released.stdout).toBe('Released task #1 from worker-1 (in_progress -> pending): Old branch work\n');
      const theirs = JSON.parse(fs.readFileSync(path.join(w.config, 'tasks', otherId, '1.json'), 'utf8')) as { owner?: string };
      expect(theirs.owner).toBe('worker-2');
    } finally {
      held.open();
      await other;
    }
  });

  it('a solo agent killed holding #1 with no owner: the watch, notify and release --gone agree it held #1', async () => {
    const w = world();
    const proj = w.dir('work/solo');
    const list = path.join(w.config, 'tasks', 'solo');
    const held = gate();
    const dying = runAgent({
      configDir: w.config,
      listId: 'solo',
      cwd: proj,
      turns: [CREATE('Fix it'), START('1'), LIST],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    }).catch(() => undefined);
    await held.arrived;
    const victim = await waitFor('the agent', () => liveFiles(w.config).find((f) => f.cwd === proj));
    const short = victim.sessionId.slice(0, 8);
    const watch = startWatch(w.config, ['-l', 'solo', 'watch', '--json', '--until', 'all-completed', '--timeout', '60s'], { HOME: w.home });
    try {
      await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      // A moment for the watch to see the session alive (it looks every second): a session over before it looked is not news.
      await new Promise((r) => setTimeout(r, 2000));
      process.kill(victim.pid, 'SIGKILL');
      await waitFor('its end', () => !alive(victim.pid));
      held.open();
      await dying;
      const watched = await watch.exited;
      expect(watched.code, watched.stderr).toBe(6);
      expect(watched.stderr).toContain(`session ${short} (pid ${victim.pid}) crashed holding #1`);
    } finally {
      await watch.stop();
    }

    const sent = path.join(w.config, 'sent.ndjson');
    const notified = await w.tasks(proj, ['-l', 'solo', 'notify', '--once', '--json', '--to', `exec:cat >> '${sent}'`], {
      XDG_STATE_HOME: path.join(w.config, 'state'),
    });
    expect(notified.code, notified.stderr).toBe(0);
    const messages = fs
      .readFileSync(sent, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; text: string });
    expect(messages).toEqual([
      expect.objectContaining({ event: 'agent-died', text: `session ${short} crashed holding #1 in list solo (~/work/solo)` }),
    ]);

    const line = `back to pending (no owner; in_progress -> pending; session ${short} crashed holding it): Fix it\n`;
    const dry = await w.tasks(proj, ['-l', 'solo', 'release', '--gone', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(`Would put task #1 ${line}`);
    const released = await w.tasks(proj, ['-l', 'solo', 'release', '--gone']);
    expect(released.code, released.stderr).toBe(0);
    expect(released.stdout).toBe(`Put task #1 ${line}`);
    const one = JSON.parse(fs.readFileSync(path.join(list, '1.json'), 'utf8')) as { owner?: string; status: string };
    expect(one).toMatchObject({ status: 'pending' });
    expect(one.owner).toBeUndefined();
  });
});

describe('the real Claude Code: an agent that gave itself #1 on a named list and was killed', () => {
  it('list, get and check say its owner is gone, only once it is (piped list warns owner_gone)', async () => {
    const w = world();
    const proj = w.dir('work/solo');
    const held = gate();
    const dying = runAgent({
      configDir: w.config,
      listId: 'solo',
      cwd: proj,
      turns: [CREATE('Run tests'), CLAIM('1', 'me'), LIST],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    }).catch(() => undefined);
    await held.arrived;
    const victim = await waitFor('the agent', () => liveFiles(w.config).find((f) => f.cwd === proj));
    const short = victim.sessionId.slice(0, 8);
    // Alive: its owner is not gone anywhere.
    const living = await w.tasks(proj, ['-l', 'solo', 'list']);
    expect(living.stderr).not.toMatch(/owner_gone|owned by agents whose/);
    expect(JSON.parse((await w.tasks(proj, ['-l', 'solo', 'get', '1', '--json'])).stdout)).not.toHaveProperty('gone');
    process.kill(victim.pid, 'SIGKILL');
    await waitFor('its end', () => !alive(victim.pid));
    held.open();
    await dying;

    const piped = await w.tasks(proj, ['-l', 'solo', 'list']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/^1\tin_progress\tme\t/m);
    expect(piped.stderr).toContain(
      `warning: 1 unfinished task is owned by agents whose session ${short} crashed: tasks -l solo release --gone gives them back`,
    );
    const got = await w.tasks(proj, ['-l', 'solo', 'get', '1']);
    expect(got.stdout).toMatch(new RegExp(`^Owner: +me \\(gone: session ${short} crashed\\)`, 'm'));
    expect(got.stdout).not.toMatch(/agent gone/);
    const json = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'get', '1', '--json'])).stdout) as { gone?: Record<string, unknown> };
    expect(json.gone).toMatchObject({ session: victim.sessionId, state: 'crashed', unowned: false });
    const checked = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'check', '--json'])).stdout) as { findings: Array<{ code: string }> };
    expect(checked.findings.map((f) => f.code)).toEqual(['owner_gone']);
  });
});

describe('the real Claude Code: a crashed agent’s task that a live session goes on with is never gone', () => {
  /** A solo agent on list `solo` starts #1 with no owner and is killed: its session id. */
  async function killedHolding(w: ReturnType<typeof world>, proj: string): Promise<string> {
    const held = gate();
    const dying = runAgent({
      configDir: w.config,
      listId: 'solo',
      cwd: proj,
      turns: [CREATE('Fix it'), START('1'), LIST],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    }).catch(() => undefined);
    await held.arrived;
    const victim = await waitFor('the agent', () => liveFiles(w.config).find((f) => f.cwd === proj));
    // Its transcript written to the start of #1 (Claude Code appends it a moment after the call).
    await waitFor('its transcript', () => transcripts(w).some((t) => t.id === victim.sessionId && t.text.includes('"statusChange"')));
    process.kill(victim.pid, 'SIGKILL');
    await waitFor('its end', () => !alive(victim.pid));
    held.open();
    await dying;
    const got = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'get', '1', '--json'])).stdout) as { gone?: { session: string } };
    expect(got.gone?.session).toBe(victim.sessionId);
    return victim.sessionId;
  }

  /** The transcripts of the config folder: each session's id and text. */
  function transcripts(w: ReturnType<typeof world>): Array<{ id: string; text: string }> {
    const folder = path.join(w.config, 'projects');
    const files = fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }) : [];
    return files
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => ({ id: path.basename(f, '.jsonl'), text: fs.readFileSync(path.join(folder, f), 'utf8') }));
  }

  /**
   * While `live` runs (held before its second turn): #1 is not gone to get, check and release --gone.
   * `answer`: what its first turn's answer holds in its transcript (default: any tool's answer).
   */
  async function notGoneWhile(
    w: ReturnType<typeof world>,
    proj: string,
    killed: string,
    live: Parameters<typeof runAgent>[0],
    answer = '"toolUseResult"',
  ): Promise<void> {
    const held = gate();
    const run = runAgent({ ...live, beforeTurn: (i) => (i === 1 ? held.wait() : undefined) });
    try {
      await held.arrived;
      // Its first turn's answer in its own transcript (Claude Code appends it a moment after the call).
      await waitFor('its transcript', () => transcripts(w).some((t) => t.id !== killed && t.text.includes(answer)));
      const got = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'get', '1', '--json'])).stdout) as Record<string, unknown>;
      expect(got).not.toHaveProperty('gone');
      const checked = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'check', '--json'])).stdout) as { findings: Array<{ code: string }> };
      expect(checked.findings.map((f) => f.code)).not.toContain('agent_gone');
      const dry = await w.tasks(proj, ['-l', 'solo', 'release', '--gone', '--dry-run']);
      expect(dry.stdout).not.toMatch(/back to pending/);
    } finally {
      held.open();
      await run;
    }
  }

  it('a live fork of the killed session (--resume --fork-session)', async () => {
    const w = world();
    const proj = w.dir('work/solo');
    const killed = await killedHolding(w, proj);
    await notGoneWhile(w, proj, killed, {
      configDir: w.config,
      listId: 'solo',
      cwd: proj,
      args: ['--resume', killed, '--fork-session'],
      turns: [[{ name: 'TaskGet', input: { taskId: '1' } }], LIST],
    });
  });

  it('the killed session resumed (--resume) and ended cleanly: it ended, though the killed run left its live-session file', async () => {
    const w = world();
    const proj = w.dir('work/solo');
    const killed = await killedHolding(w, proj);
    const short = killed.slice(0, 8);
    const left = liveFiles(w.config).filter((f) => f.sessionId === killed);
    expect(left.map((f) => alive(f.pid))).toEqual([false]);
    await runAgent({
      configDir: w.config,
      listId: 'solo',
      cwd: proj,
      args: ['--resume', killed],
      turns: [[{ name: 'TaskGet', input: { taskId: '1' } }]],
    });
    // The resume wrote its end (`cost-state`) and removed its own file; the killed run's is still there.
    await waitFor('the end in its transcript', () =>
      transcripts(w).some((t) => t.id === killed && t.text.trimEnd().split('\n').at(-1)?.startsWith('{"type":"cost-state"')),
    );
    expect(liveFiles(w.config).map((f) => f.file)).toEqual(left.map((f) => f.file));
    const got = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'get', '1', '--json'])).stdout) as { gone?: Record<string, unknown> };
    expect(got.gone).toMatchObject({ session: killed, state: 'ended', why: `session ${short} ended`, unowned: true });
    const checked = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'check', '--json'])).stdout) as { findings: Array<{ message: string }> };
    expect(checked.findings.map((f) => f.message)).toEqual([
      `task #1 is in progress with no owner, and its agent is gone: session ${short} ended holding it`,
    ]);
    const dry = await w.tasks(proj, ['-l', 'solo', 'release', '--gone', '--dry-run']);
    expect(dry.stdout).toBe(
      `Would put task #1 back to pending (no owner; in_progress -> pending; session ${short} ended holding it): Fix it\n`,
    );
  });

  it('interrupted (SIGINT, as Ctrl-C) inside a turn: its end is read though the cut turn writes after it; ended at once, not live for 10 minutes', async () => {
    const w = world();
    const proj = w.dir('work/solo');
    const held = gate();
    const dying = runAgent({
      configDir: w.config,
      listId: 'solo',
      cwd: proj,
      turns: [CREATE('Fix it'), START('1'), LIST],
      beforeTurn: (i) => (i === 2 ? held.wait() : undefined),
    }).catch(() => undefined);
    await held.arrived;
    const victim = await waitFor('the agent', () => liveFiles(w.config).find((f) => f.cwd === proj));
    const short = victim.sessionId.slice(0, 8);
    await waitFor('its transcript', () => transcripts(w).some((t) => t.id === victim.sessionId && t.text.includes('"statusChange"')));
    // Inside its third turn (the model's answer held back): SIGINT cuts the turn short.
    process.kill(victim.pid, 'SIGINT');
    await waitFor('its end', () => !alive(victim.pid));
    held.open();
    await dying;
    // What Claude Code wrote: its end (`cost-state`), then, most times, the cut turn's
    // interrupt entry after it (the case read wrong before); now and then (on a loaded
    // machine) the interrupt entry first and `cost-state` last. Either way it ended, at once.
    const lines = (transcripts(w).find((t) => t.id === victim.sessionId)?.text ?? '').trimEnd().split('\n');
    const end = lines.map((l) => l.startsWith('{"type":"cost-state"')).lastIndexOf(true);
    expect(end).toBeGreaterThan(0);
    for (const after of lines.slice(end + 1)) expect(after).toContain('[Request interrupted by user');
    expect(liveFiles(w.config).filter((f) => f.sessionId === victim.sessionId)).toEqual([]);

    const got = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'get', '1', '--json'])).stdout) as { gone?: Record<string, unknown> };
    expect(got.gone).toMatchObject({ session: victim.sessionId, state: 'ended', why: `session ${short} ended`, unowned: true });
    const checked = JSON.parse((await w.tasks(proj, ['-l', 'solo', 'check', '--json'])).stdout) as { findings: Array<{ message: string }> };
    expect(checked.findings.map((f) => f.message)).toEqual([
      `task #1 is in progress with no owner, and its agent is gone: session ${short} ended holding it`,
    ]);
    const dry = await w.tasks(proj, ['-l', 'solo', 'release', '--gone', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(
      `Would put task #1 back to pending (no owner; in_progress -> pending; session ${short} ended holding it): Fix it\n`,
    );
  });

  it('a live session that took #1 up by editing it', async () => {
    const w = world();
    const proj = w.dir('work/solo');
    const killed = await killedHolding(w, proj);
    await notGoneWhile(w, proj, killed, {
      configDir: w.config,
      listId: 'solo',
      cwd: w.dir('work/other'),
      turns: [[{ name: 'TaskUpdate', input: { taskId: '1', description: 'Fix it, taken up' } }], LIST],
    });
  });

  it('a live session that set #1 in progress again: Claude Code changes nothing and writes nothing', async () => {
    const w = world();
    const proj = w.dir('work/solo');
    const killed = await killedHolding(w, proj);
    const file = path.join(w.config, 'tasks', 'solo', '1.json');
    const before = { text: fs.readFileSync(file, 'utf8'), mtime: fs.statSync(file).mtimeMs };
    await notGoneWhile(
      w,
      proj,
      killed,
      { configDir: w.config, listId: 'solo', cwd: w.dir('work/other'), turns: [START('1'), LIST] },
      // Its TaskUpdate answered with no field changed: only its transcript says it took #1 up.
      '"toolUseResult":{"success":true,"taskId":"1","updatedFields":[]}',
    );
    expect({ text: fs.readFileSync(file, 'utf8'), mtime: fs.statSync(file).mtimeMs }).toEqual(before);
  });
});
