/**
 * Is an agent gone holding work? One answer for the watch, notify and `release --gone`,
 * against the files the real Claude Code 2.1.328 wrote (test/fixtures/claude-code-2.1.328/
 * gone, README there): a solo agent that set #1 in progress with no owner and was killed;
 * a session on a shared list that `/clear` replaced while its process went on with the list.
 */
import { describe, expect, it } from 'vitest';
import { planGoneRelease } from '../../src/core/history/gone-release.js';
import { goneHeldTasks } from '../../src/core/history/list-owners.js';
import { listFacts } from '../../src/core/notify/list-facts.js';
import { listEvents } from '../../src/core/notify/notify-events.js';
import { NOTIFY_EVENTS } from '../../src/core/notify/notify-plan.js';
import type { ClaudeProcess } from '../../src/core/sessions/claude-processes.js';
import type { ProcessProbe } from '../../src/core/sessions/live-sessions.js';
import { holdersOf } from '../../src/core/sessions/session-deaths.js';
import { SessionIndex } from '../../src/core/sessions/session-index.js';
import { readList } from '../../src/core/store/list-read.js';
import { goneFixture } from '../helpers/gone-fixtures.js';

const CRASHED = '4aa21e64-031c-4afc-99a4-d063429beef5';
const CLEARED = '0501500a-0102-45c0-a9d1-40a96af97d11';
const AFTER_CLEAR = 'b8c060f7-fa3b-4c80-b903-cb3706295d74';

/** What notify would tell of the list now. */
function agentDied(index: SessionIndex, w: { config: string; dir: string; list: string }, now: number) {
  const tasks = readList(w.dir).tasks;
  const facts = listFacts({
    listId: w.list,
    dir: w.dir,
    shortId: w.list,
    tasks,
    times: new Map(),
    wanted: new Set(['agent-died']),
    now,
    stalledMs: 60_000,
    person: 'someone',
    home: '',
    sessions: () => index,
    errorsSince: new Map(),
    checkFiles: false,
    errorGraceMs: 0,
  });
  return listEvents(facts, new Set(NOTIFY_EVENTS)).filter((e) => e.type === 'agent-died');
}

describe('a solo agent killed while it held #1 in progress, with no owner', () => {
  function world() {
    const w = goneFixture('crashed-unowned');
    // Its process is gone: the live-session file it left behind says it crashed.
    const probe: ProcessProbe = { startTime: () => undefined, domain: () => w.live.pidDomain, claudeProcesses: () => [] };
    const index = new SessionIndex(w.config, { probe, now: () => w.newest + 60_000 });
    return { w, index };
  }

  it("the watch's answer: the crashed session holds #1", () => {
    const { w, index } = world();
    expect(index.session(CRASHED)?.state).toBe('crashed');
    expect([...holdersOf(index, [CRASHED], readList(w.dir).tasks, w.dir)]).toEqual([['1', CRASHED]]);
  });

  it('release --gone puts #1 back to pending, saying which session held it', () => {
    const { w, index } = world();
    const plan = planGoneRelease(index, w.config, w.list, 'someone', true);
    expect(plan.targets.map((t) => t.id)).toEqual(['1']);
    expect(plan.live).toEqual([]);
    const { held } = goneHeldTasks(index, w.dir, w.list, 'someone');
    expect(held.map((h) => [h.task.id, h.unowned, h.why, h.session?.sessionId])).toEqual([
      ['1', true, 'session 4aa21e64 crashed', CRASHED],
    ]);
  });

  it('notify tells the agent gone, once, naming the session', () => {
    const { w, index } = world();
    const events = agentDied(index, w, w.newest + 60_000);
    expect(events).toHaveLength(1);
    // Keyed by its death: the transcript's last entry, as the message dates it.
    expect(events[0]?.happenedAt).toBeGreaterThan(0);
    expect(events[0]).toMatchObject({
      key: `agent-died|solo|session ${CRASHED}|1|${Math.round(events[0]?.happenedAt ?? 0)}`,
      session: CRASHED,
      title: 'Agent gone: session 4aa21e64 in solo',
      text: 'session 4aa21e64 crashed holding #1 in list solo (/tmp/tmp.W6AEOdfKWk/work)',
      action: 'tasks -l solo release --gone',
      tasks: [{ id: '1', status: 'in_progress', owner: null }],
    });
  });
});

describe('/clear on a shared list: the process goes on with the same list', () => {
  function world(listVariable: string | undefined) {
    const w = goneFixture('cleared-shared');
    const proc: ClaudeProcess = {
      pid: w.live.pid,
      startTime: w.live.procStart,
      cwd: w.live.cwd,
      listVariable,
      configDir: w.config,
      teamName: undefined,
    };
    // The interactive process still runs, now on session b8c060f7.
    const probe: ProcessProbe = {
      startTime: (pid) => (pid === w.live.pid ? w.live.procStart : undefined),
      domain: () => w.live.pidDomain,
      claudeProcess: (pid) => (pid === w.live.pid ? proc : undefined),
      claudeProcesses: () => [proc],
    };
    const index = new SessionIndex(w.config, { probe, now: () => w.newest + 60_000 });
    return { w, index };
  }

  it('the cleared session went on as the live one', () => {
    const { index } = world('team');
    expect(index.session(CLEARED)?.replacedBy).toBe(AFTER_CLEAR);
    expect(index.session(AFTER_CLEAR)?.state).toBe('live');
  });

  it('main is not gone: notify tells nothing, release --gone takes nothing', () => {
    const { w, index } = world('team');
    expect(agentDied(index, w, w.newest + 60_000)).toEqual([]);
    expect(planGoneRelease(index, w.config, w.list, 'someone', true).targets).toEqual([]);
    expect(goneHeldTasks(index, w.dir, w.list, 'someone').held).toEqual([]);
  });

  it('where the process went on to a list of its own, the old session is over: main is gone, as before', () => {
    const { w, index } = world(undefined);
    expect(agentDied(index, w, w.newest + 60_000).map((e) => e.text)).toEqual([
      'main holds #1 in list team (/tmp/tmp.r7tLlELe6r/work), but session 0501500a was cleared',
    ]);
    expect(planGoneRelease(index, w.config, w.list, 'someone', true).targets.map((t) => t.id)).toEqual(['1']);
    const { held } = goneHeldTasks(index, w.dir, w.list, 'someone');
    expect(held.map((h) => [h.task.id, h.unowned, h.why])).toEqual([['1', false, 'session 0501500a was cleared']]);
  });
});
