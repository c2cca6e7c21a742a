/**
 * The marks of a task in progress whose agent is gone (`list`, `get`, `check`): one answer
 * with `release --gone` (history/list-owners.ts goneHeldInProgress), asked only when a task
 * is in progress, so a list with none reads no session for it. Against the recorded
 * fixtures of test/fixtures/claude-code-2.1.328/gone (README there), moved in time to have
 * ended 15 minutes ago.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProblems } from '../../src/core/check/findings.js';
import { goneHeldInProgress } from '../../src/core/history/list-owners.js';
import { showTask } from '../../src/core/history/shown-task.js';
import type { ListChoice } from '../../src/core/lists/list-choice-types.js';
import { listTasks } from '../../src/core/lists/task-listing.js';
import type { ClaudeProcess } from '../../src/core/sessions/claude-processes.js';
import type { GoneHeld } from '../../src/core/sessions/gone-owners.js';
import type { ProcessProbe } from '../../src/core/sessions/live-sessions.js';
import { SessionIndex } from '../../src/core/sessions/session-index.js';
import { readList } from '../../src/core/store/list-read.js';
import { scanList } from '../../src/core/store/list-scan.js';
import type { Task } from '../../src/core/store/schema.js';
import { PLAIN, type Style } from '../../src/render/style.js';
import { renderTaskTable } from '../../src/render/task-table.js';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { goneFixture } from '../helpers/gone-fixtures.js';

const CRASHED = '4aa21e64-031c-4afc-99a4-d063429beef5';
const ENDED_AGO = 15 * 60_000;

/** A session index that fails the test if anything asks it a question. */
const UNTOUCHABLE = new Proxy(
  {},
  {
    get(_, key) {
      throw new Error(`the sessions were asked (${String(key)})`);
    },
  },
) as SessionIndex;

function list(tasks: Array<Partial<Task> & { id: string }>): { dir: string; choice: ListChoice } {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'l');
  fs.mkdirSync(dir, { recursive: true });
  for (const t of tasks) writeTask(dir, { subject: `task ${t.id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...t });
  return { dir, choice: { id: 'l', dir, how: 'flag', exists: true, warnings: [] } };
}

function listing(choice: ListChoice, goneHeld: (tasks: readonly Task[]) => ReadonlyMap<string, GoneHeld>, output: 'json' | 'table') {
  return listTasks({
    choice,
    configDir: path.dirname(path.dirname(choice.dir)),
    filter: {},
    sort: 'id',
    stalledOnly: false,
    stalledAfterMs: 30 * 60_000,
    now: Date.now(),
    sessions: new SessionIndex(path.dirname(path.dirname(choice.dir))),
    output,
    goneOwners: () => undefined,
    goneHeld,
  });
}

describe('no task in progress: the sessions are not asked', () => {
  const never = () => {
    throw new Error('goneHeld was asked');
  };

  it('goneHeldInProgress reads nothing of the sessions', () => {
    const tasks = [{ id: '1', subject: 's', description: '', status: 'pending', blocks: [], blockedBy: [] } as Task];
    expect(goneHeldInProgress(UNTOUCHABLE, '/nowhere', 'l', undefined, tasks).size).toBe(0);
  });

  it('list (JSON and table) does not ask for gone agents; with a task in progress the table asks once, for the tasks shown, plain JSON never', () => {
    const { choice } = list([{ id: '1' }, { id: '2', status: 'completed' }, { id: '3', owner: 'w1' }]);
    expect(listing(choice, never, 'json').gone.size).toBe(0);
    expect(listing(choice, never, 'table').gone.size).toBe(0);
    const busy = list([{ id: '1' }, { id: '2', status: 'in_progress' }]);
    const asked: string[][] = [];
    listing(
      busy.choice,
      (tasks) => {
        asked.push(tasks.map((t) => t.id));
        return new Map();
      },
      'table',
    );
    expect(asked).toEqual([['1', '2']]);
    // Plain JSON, as scripts run it in a loop, judges no gone agent (nor a stall): it reads no session for it.
    expect(listing(busy.choice, never, 'json').gone.size).toBe(0);
  });

  it('get does not ask for a task that is not in progress', () => {
    const { choice } = list([{ id: '1' }, { id: '2', status: 'completed' }]);
    for (const id of ['1', '2'])
      for (const json of [true, false])
        expect(
          showTask(choice, id, {
            json,
            sessions: new SessionIndex(path.dirname(path.dirname(choice.dir))),
            goneOwners: () => undefined,
            goneHeld: never,
          }).gone,
        ).toBeUndefined();
  });

  it('check does not ask without a task in progress with no owner', () => {
    const { dir } = list([{ id: '1' }, { id: '2', status: 'in_progress', owner: 'w1' }, { id: '3', status: 'completed' }]);
    expect(findProblems(scanList(dir), { now: Date.now(), agentGone: never })).toEqual([]);
  });
});

describe('a solo agent killed holding #1 in progress, with no owner', () => {
  function world() {
    const w = goneFixture('crashed-unowned', { endedAgoMs: ENDED_AGO });
    // Its process is gone: the live-session file it left behind says it crashed.
    const probe: ProcessProbe = { startTime: () => undefined, domain: () => w.live.pidDomain, claudeProcesses: () => [] };
    return { w, index: new SessionIndex(w.config, { probe }) };
  }

  it('the one answer: #1, held by the crashed session, with no owner', () => {
    const { w, index } = world();
    const held = goneHeldInProgress(index, w.dir, w.list, 'someone', readList(w.dir).tasks);
    expect([...held.values()].map((h) => [h.task.id, h.unowned, h.why, h.session?.sessionId])).toEqual([
      ['1', true, 'session 4aa21e64 crashed', CRASHED],
    ]);
  });

  it('check: an agent_gone warning that --fix leaves alone', () => {
    const { w, index } = world();
    const found = findProblems(scanList(w.dir), {
      now: Date.now(),
      agentGone: (tasks) => goneHeldInProgress(index, w.dir, w.list, 'someone', tasks),
    });
    expect(found).toEqual([
      {
        code: 'agent_gone',
        severity: 'warning',
        message: 'task #1 is in progress with no owner, and its agent is gone: session 4aa21e64 crashed holding it',
        fixable: false,
        hint: 'put it back to pending for another agent or person: tasks release --gone',
        id: '1',
        session: CRASHED,
      },
    ]);
  });

  it('the table marks it gone, not stalled, even past the stall time', () => {
    const { w, index } = world();
    const tasks = readList(w.dir).tasks;
    const held = goneHeldInProgress(index, w.dir, w.list, 'someone', tasks);
    // Red for a gone agent, as for an owner gone; a stall would be yellow.
    const style: Style = { ...PLAIN, red: (s) => `<red>${s}</red>`, yellow: (s) => `<yellow>${s}</yellow>` };
    const table = renderTaskTable(tasks, new Map(), {
      style,
      width: 160,
      now: Date.now(),
      stalledFor: () => 3_600_000,
      goneHeld: (t) => held.get(t.id),
    });
    expect(table).toContain('Fix it <red>agent gone: session 4aa21e64 crashed 15 min ago</red>');
    expect(table).not.toContain('stalled');
  });

  it('a narrow terminal: the mark takes its short form, the subject keeps room, no row runs past the width', () => {
    const held = new Map<string, GoneHeld>([
      ['1', { task: {} as Task, why: 'session 4aa21e64 crashed', session: undefined, unowned: true }],
    ]);
    const tasks = [
      { id: '1', subject: 'Run the integration suite', description: '', status: 'in_progress', blocks: [], blockedBy: [] } as Task,
    ];
    for (const width of [60, 80, 100]) {
      const table = renderTaskTable(tasks, new Map(), {
        style: PLAIN,
        width,
        now: Date.now(),
        updated: new Map([['1', Date.now()]]),
        goneHeld: (t) => held.get(t.id),
      });
      const lines = table.split('\n');
      expect(Math.max(...lines.map((l) => l.length)), table).toBeLessThanOrEqual(width);
      expect(table).toMatch(width >= 80 ? /Run the integ[^\n]* agent gone/ : /agent gone/);
    }
    const wide = renderTaskTable(tasks, new Map(), { style: PLAIN, width: 160, now: Date.now(), goneHeld: (t) => held.get(t.id) });
    expect(wide).toContain('Run the integration suite agent gone: session 4aa21e64 crashed');
  });
});

describe('/clear on a shared list, the process going on with the same list', () => {
  it('main is not gone: nothing to mark', () => {
    const w = goneFixture('cleared-shared', { endedAgoMs: ENDED_AGO });
    const proc: ClaudeProcess = {
      pid: w.live.pid,
      startTime: w.live.procStart,
      cwd: w.live.cwd,
      listVariable: 'team',
      configDir: w.config,
      teamName: undefined,
    };
    const probe: ProcessProbe = {
      startTime: (pid) => (pid === w.live.pid ? w.live.procStart : undefined),
      domain: () => w.live.pidDomain,
      claudeProcess: (pid) => (pid === w.live.pid ? proc : undefined),
      claudeProcesses: () => [proc],
    };
    const index = new SessionIndex(w.config, { probe });
    expect(goneHeldInProgress(index, w.dir, w.list, 'someone', readList(w.dir).tasks).size).toBe(0);
  });
});
