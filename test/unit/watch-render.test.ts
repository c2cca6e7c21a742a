import { beforeAll, describe, expect, it } from 'vitest';
import { blockerAnswers, countTasks, indexTasks } from '../../src/core/graph/blockers.js';
import type { SessionInfo } from '../../src/core/sessions/session-index.js';
import type { Task } from '../../src/core/store/schema.js';
import { diffSnapshots, snapshotOf } from '../../src/core/watch/watch-diff.js';
import { formatDuration, formatElapsed, formatLimit } from '../../src/render/duration.js';
import { fitStyled } from '../../src/render/fit.js';
import { renderProgressBar } from '../../src/render/progress-bar.js';
import { renderRunWaiting } from '../../src/render/run-waiting.js';
import { SCREEN, screenPatch } from '../../src/render/screen.js';
import { loadColour, makeStyle, PLAIN } from '../../src/render/style.js';
import { visibleWidth } from '../../src/render/text.js';
import { describeEvents } from '../../src/render/watch-change.js';
import { renderChangeEvent, renderEndEvent, renderNeedsYouEvent, renderSnapshotEvent } from '../../src/render/watch-events.js';
import { renderWatchFrame, SPINNER, type WatchFrameModel } from '../../src/render/watch-frame.js';
import { renderPersonWaiting, watchEndMessage } from '../../src/render/watch-outcome.js';

// Coloured styles need chalk loaded first, as the CLI does at start-up.
beforeAll(loadColour);

const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  subject: `Task number ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

const tasks = [
  task('1', { status: 'completed', owner: 'researcher', blocks: ['2'] }),
  task('2', { status: 'in_progress', activeForm: 'Refactoring auth', owner: 'coder', blockedBy: ['1'], blocks: ['4'] }),
  task('4', { blockedBy: ['2'] }),
  task('5', { subject: 'Write \u001b[2Jchangelog' }),
];
/** A frame's model of `extra.tasks` (default: tasks), each task's blockers and the counts answered by core. */
const model = (extra: Partial<WatchFrameModel> = {}): WatchFrameModel => {
  const shown = extra.tasks ?? tasks;
  const index = indexTasks(shown);
  return {
    listId: 'refactor-auth',
    dir: '/c/tasks/refactor-auth',
    exists: true,
    tasks: shown,
    blockers: blockerAnswers(shown, index),
    counts: countTasks(shown, index),
    hidden: 0,
    problems: [],
    ...extra,
  };
};
const frame = (m: WatchFrameModel, width = 100, height = 30, now = 1_000_000) => renderWatchFrame(m, { style: PLAIN, width, height, now });

describe('renderWatchFrame', () => {
  it('shows progress, every task with its symbol, activeForm and spinner, owner and open blockers', () => {
    const lines = frame(model());
    expect(lines[0]).toMatch(/^ refactor-auth {2}█+░+ {2}1\/4 done {2}1 in progress · 2 pending \(1 blocked\)$/);
    const row = (id: string) => lines.find((l) => l.includes(`#${id} `)) ?? '';
    expect(row('1')).toMatch(/✔ #1 {2}Task number 1 +@researcher$/);
    expect(row('2')).toMatch(new RegExp(`[${SPINNER.join('')}] #2  Refactoring auth +@coder$`));
    expect(row('4')).toMatch(/○ #4 {2}Task number 4 +blocked by #2$/);
    expect(row('5')).toContain('○ #5  Write [2Jchangelog'); // the escape character is stripped
    expect(lines.join('\n')).not.toContain('\u001b');
    expect(lines.at(-2)).toBe(' No changes yet.');
    expect(lines.at(-1)).toBe(' q quit · / filter');
  });

  it('marks a task whose session waits for a person as list does, and names the session on a line of its own', () => {
    const on = { session: '66666666-6666-4666-8666-666666666666', name: 'proj-w1', waitingFor: 'permission prompt', since: 1 };
    const personNote = renderPersonWaiting(on, ['2']);
    expect(personNote).toBe('session proj-w1 (66666666) waits for a person (permission prompt): #2 waits on it');
    const lines = frame(model({ waiting: new Map([['2', on]]), personNote }), 120);
    // Its symbol stands still: nothing moves until someone answers.
    expect(lines.find((l) => l.includes('#2 '))).toMatch(/▶ #2 {2}Refactoring auth waiting: permission prompt +@coder/);
    expect(lines.filter((l) => l.includes('waiting:'))).toHaveLength(1);
    expect(lines).toContain(` ⚠ ${personNote}`);
    // Narrow: the subject is cut, the mark kept whole.
    expect(frame(model({ waiting: new Map([['2', on]]) }), 40).find((l) => l.includes('#2 '))).toContain('waiting: permission prompt');
    // The frame left behind at the end says it too.
    const final = renderWatchFrame(model({ waiting: new Map([['2', on]]), personNote }), {
      style: PLAIN,
      width: 120,
      height: 30,
      now: 0,
      final: true,
    });
    expect(final.at(-1)).toBe(` ⚠ ${personNote}`);
    expect(watchEndMessage.timeout(3000, 'all-completed', countTasks(tasks, indexTasks(tasks)), { on, ids: ['2'], list: '66666666' })).toBe(
      'timed out after 3s before all-completed held, while session proj-w1 (66666666) waits for a person (permission prompt): #2 of list 66666666 waits on it; 4 tasks: 1 done, 1 in progress, 2 pending (1 blocked)',
    );
  });

  it('marks a task whose agent is gone as list does, in place of its spinner, and keeps the mark whole when narrow', () => {
    const held = {
      task: tasks[1] as Task,
      why: 'session 4aa21e64 crashed',
      session: { lastActivity: 1_000_000 - 4000 } as SessionInfo,
      unowned: true,
    };
    const gone = new Map([['2', held]]);
    const row = (m: WatchFrameModel, width: number, now: number) => frame(m, width, 30, now).find((l) => l.includes('#2 '));
    // The same row one spinner step later: nothing turns.
    expect(row(model({ gone }), 120, 1_000_000)).toMatch(/▶ #2 {2}Refactoring auth agent gone: session 4aa21e64 crashed 4s ago +@coder/);
    expect(row(model({ gone }), 120, 1_000_100)?.replace('4s', '')).toBe(row(model({ gone }), 120, 1_000_000)?.replace('4s', ''));
    expect(row(model({ gone }), 64, 1_000_000)).toMatch(/#2 {2}Ref… agent gone: session 4aa21e64 crashed 4s ago/);
    // Gone comes first: nobody will answer the prompt of a session that is over.
    const on = { session: '4aa21e64-031c-4afc-99a4-d063429beef5', name: undefined, waitingFor: 'permission prompt', since: 1 };
    expect(row(model({ gone, waiting: new Map([['2', on]]) }), 120, 1_000_000)).not.toContain('waiting:');
    // A task no longer in progress is not marked, whatever the last look said.
    const done = [task('2', { status: 'completed', owner: 'coder' })];
    expect(row(model({ tasks: done, gone }), 120, 1_000_000)).not.toContain('gone');
  });

  it('moves the spinner with time, and only while a task is in progress', () => {
    const a = frame(model(), 100, 30, 1_000_000);
    const b = frame(model(), 100, 30, 1_000_100);
    expect(a).not.toEqual(b);
    const idle = tasks.map((t) => ({ ...t, status: 'pending' as const }));
    expect(frame(model({ tasks: idle }), 100, 30, 1_000_000)).toEqual(frame(model({ tasks: idle }), 100, 30, 1_000_100));
  });

  it('never writes a line wider than the terminal, or more lines than it has', () => {
    const many = Array.from({ length: 60 }, (_, i) =>
      task(String(i + 1), { subject: 'x'.repeat(200), owner: 'o'.repeat(50), status: i % 3 === 0 ? 'completed' : 'pending' }),
    );
    for (const [w, h] of [
      [12, 3],
      [20, 5],
      [40, 10],
      [80, 24],
      [200, 60],
    ] as const) {
      const lines = renderWatchFrame(model({ tasks: many }), {
        style: makeStyle(true),
        width: w,
        height: h,
        now: 0,
      });
      expect(lines.length).toBeLessThanOrEqual(h);
      for (const l of lines) expect(visibleWidth(l)).toBeLessThan(w);
    }
  });

  it('when tasks do not fit, keeps those in progress and says how many are left out', () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      task(String(i + 1), { status: i === 25 ? 'in_progress' : i < 20 ? 'completed' : 'pending' }),
    );
    const lines = frame(model({ tasks: many }), 80, 12);
    expect(lines).toHaveLength(12);
    expect(lines.some((l) => l.includes('#26 '))).toBe(true);
    expect(lines.find((l) => l.includes('more'))).toMatch(/… 24 more: \d+ pending, \d+ done/);
  });

  it('says what changed last and when, and counts down the timeout', () => {
    const before = snapshotOf(tasks);
    const after = snapshotOf(tasks.map((t) => (t.id === '4' ? { ...t, owner: 'amy', status: 'in_progress' as const } : t)));
    const events = diffSnapshots(before, after);
    const lines = frame(model({ lastChange: { at: 1_000_000 - 3000, events }, until: 'all-completed', deadline: 1_000_000 + 65_000 }));
    expect(lines.at(-2)).toBe(' Last change 3s ago: #4 Task number 4: status pending → in progress; owner → amy');
    expect(lines.at(-1)).toBe(' q quit · until all-completed · timeout in 1m 05s · / filter');
  });

  it('waits for a list that does not exist yet, and tells an empty list from a filtered one', () => {
    expect(frame(model({ exists: false, tasks: [] })).join('\n')).toContain('Waiting for the list to appear: /c/tasks/refactor-auth');
    expect(frame(model({ tasks: [] })).join('\n')).toContain('No tasks yet.');
    // A run with no list named, whose agent has not said its session: no list folder to name.
    const unknown = frame(model({ exists: false, tasks: [], listUnknown: true, dir: '/c/tasks' })).join('\n');
    expect(unknown).toContain("Waiting for the agent to say its session: the run's list is its session's own");
    expect(unknown).not.toContain('Waiting for the list to appear');
    const ended = renderWatchFrame(model({ exists: false, tasks: [], listUnknown: true, dir: '/c/tasks' }), {
      style: PLAIN,
      width: 100,
      height: 30,
      now: 1_000_000,
      final: true,
    }).join('\n');
    expect(ended).toContain('No list: none was named, and the agent never said its session.');
    expect(ended).not.toContain('Waiting');
    expect(frame(model({ tasks: [], hidden: 3, filterLabel: 'owner amy' })).join('\n')).toContain('No tasks match the filter (3 hidden).');
  });

  it('a list named that is still not there: said with the near name meant, waited for while the view runs', () => {
    const missing = 'list "build-9" does not exist yet (did you mean build-99?)';
    const live = frame(model({ exists: false, tasks: [], missing, dir: '/c/tasks/build-9' }));
    expect(live.join('\n')).toContain(`${missing}; waiting for it`);
    expect(live.join('\n')).toContain('/c/tasks/build-9 (agents create it on first use)');
    expect(live.join('\n')).not.toContain('Waiting for the list to appear');
    const ended = renderWatchFrame(model({ exists: false, tasks: [], missing, dir: '/c/tasks/build-9' }), {
      style: PLAIN,
      width: 100,
      height: 30,
      now: 1_000_000,
      final: true,
    }).join('\n');
    expect(ended).toContain(missing);
    expect(ended).not.toContain('waiting for it');
    expect(ended).not.toMatch(new RegExp(`[${SPINNER.join('')}]`));
  });

  it("tasks run's waiting line: what it waits for, the seconds, the list missing first, fitted to the terminal", () => {
    const waiting = { command: 'claude', pid: 4242, listNamed: false, elapsedMs: 5_900 };
    expect(renderRunWaiting(waiting, '⠋', 100)).toBe('⠋ waiting for claude (pid 4242) to say its session… 5s');
    expect(renderRunWaiting({ ...waiting, listNamed: true, elapsedMs: 65_000 }, '⠋', 100)).toBe(
      '⠋ waiting for claude (pid 4242) to begin its run… 1m 05s',
    );
    const missing = renderRunWaiting({ ...waiting, listNamed: true, missing: 'list "build-9" does not exist yet' }, '⠋', 40);
    expect(missing).toBe('⠋ list "build-9" does not exist yet; w…');
    expect(visibleWidth(missing)).toBe(39);
  });

  it('the final frame has every task, no spinner and no key help', () => {
    const many = Array.from({ length: 40 }, (_, i) => task(String(i + 1), { status: 'in_progress' }));
    const lines = renderWatchFrame(model({ tasks: many }), {
      style: PLAIN,
      width: 80,
      height: 10,
      now: 0,
      final: true,
    });
    expect(lines).toHaveLength(42);
    expect(lines.join('\n')).not.toMatch(/q quit|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(lines[2]).toMatch(/▶ +#1 /);
  });

  it('warns about unreadable files', () => {
    expect(frame(model({ problems: [{ file: '7.json', reason: 'not valid JSON' }] })).join('\n')).toContain(
      '⚠ 7.json is unreadable (agents skip it too): not valid JSON',
    );
    const two = [
      { file: '7.json', reason: 'x' },
      { file: '9.json', reason: 'y' },
    ];
    expect(frame(model({ problems: two })).join('\n')).toContain('⚠ 2 files are unreadable (agents skip them too): 7.json, 9.json');
  });
});

describe('describeEvents', () => {
  it('names the most telling change of a batch and counts the rest', () => {
    const before = snapshotOf([task('1'), task('2')]);
    const after = snapshotOf([task('1', { blocks: ['3'] }), task('2'), task('3', { subject: 'New', blockedBy: ['1'] })]);
    expect(describeEvents(diffSnapshots(before, after), PLAIN)).toBe('#3 created: New (+1 more)');
    expect(describeEvents(diffSnapshots(before, new Map()), PLAIN)).toBe('list cleared: 2 tasks removed');
  });
});

describe('screenPatch', () => {
  it('writes every non-empty row of a first frame', () => {
    expect(screenPatch(undefined, ['a', '', 'c'])).toBe(`${SCREEN.syncStart}\u001b[1;1Ha\u001b[K\u001b[3;1Hc\u001b[K${SCREEN.syncEnd}`);
  });
  it('writes nothing for an unchanged frame, and only the changed rows otherwise', () => {
    expect(screenPatch(['a', 'b'], ['a', 'b'])).toBe('');
    expect(screenPatch(['a', 'b', 'c'], ['a', 'B'])).toBe(`${SCREEN.syncStart}\u001b[2;1HB\u001b[K\u001b[3;1H\u001b[2K${SCREEN.syncEnd}`);
  });
});

describe('fitStyled', () => {
  it('cuts by visible width, keeps colour codes and resets at the cut; a line without colour gets no code', () => {
    const red = makeStyle(true).red('abcdef');
    expect(fitStyled(red, 4)).toBe('\u001b[31mabc\u001b[0m…');
    expect(fitStyled(red, 6)).toBe(red);
    // Plain text (NO_COLOR) stays plain.
    expect(fitStyled('日本語', 4)).toBe('日…');
    expect(fitStyled('日本語', 5)).toBe('日本…');
  });
});

describe('NDJSON events', () => {
  it('carry the event name, an ISO timestamp and tasks in the shape of their files', () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5, 6);
    expect(JSON.parse(renderSnapshotEvent(at, 'x', true, [{ ...(tasks[0] as Task), updatedAt: null }]))).toEqual({
      event: 'snapshot',
      at: '2025-01-02T03:04:05.006Z',
      list: 'x',
      exists: true,
      tasks: [{ ...tasks[0], updatedAt: null }],
    });
    // Tasks get their change time where the caller knows it.
    expect(JSON.parse(renderChangeEvent(at, { type: 'created', task: tasks[0] as Task }, () => at)).task.updatedAt).toBe(
      '2025-01-02T03:04:05.006Z',
    );
    const [updated] = diffSnapshots(snapshotOf([task('1', { owner: 'a' })]), snapshotOf([task('1', { status: 'completed' })]));
    expect(JSON.parse(renderChangeEvent(at, updated!, () => undefined))).toEqual({
      event: 'updated',
      at: '2025-01-02T03:04:05.006Z',
      task: { ...task('1', { status: 'completed' }), updatedAt: null },
      changes: { status: { old: 'pending', new: 'completed' }, owner: { old: 'a' } },
    });
    const end = JSON.parse(
      renderEndEvent({
        at,
        list: 'x',
        reason: 'timeout',
        until: 'empty',
        met: false,
        exists: true,
        counts: { total: 0, completed: 0, inProgress: 0, pending: 0, blocked: 0, blockedInProgress: 0, blockedPending: 0 },
        tasks: [],
      }),
    );
    expect(end).toMatchObject({ event: 'end', reason: 'timeout', until: 'empty', met: false });
    expect(renderChangeEvent(at, { type: 'created', task: task('1') }, () => at)).not.toContain('\n');
  });

  it('a task whose session waits for a person carries `waiting`, as list --json gives it; needs-you says when that begins and ends', () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5, 6);
    const on = { session: 's1', name: undefined, waitingFor: 'permission prompt', since: at };
    const waiting = { for: 'permission prompt', session: 's1', name: null, since: '2025-01-02T03:04:05.006Z' };
    const started = task('2', { status: 'in_progress' });
    expect(
      JSON.parse(
        renderChangeEvent(
          at,
          { type: 'created', task: started },
          () => at,
          () => on,
        ),
      ).task.waiting,
    ).toEqual(waiting);
    // A task gone waits on nobody.
    expect(
      JSON.parse(
        renderChangeEvent(
          at,
          { type: 'deleted', task: started },
          () => at,
          () => on,
        ),
      ).task,
    ).not.toHaveProperty('waiting');
    expect(JSON.parse(renderNeedsYouEvent(at, on, ['2']))).toEqual({
      event: 'needs-you',
      at: '2025-01-02T03:04:05.006Z',
      waiting: { ...waiting, ids: ['2'] },
    });
    expect(JSON.parse(renderNeedsYouEvent(at, undefined, []))).toEqual({
      event: 'needs-you',
      at: '2025-01-02T03:04:05.006Z',
      waiting: null,
    });
  });
});

describe('small pieces', () => {
  it('progress bar and durations', () => {
    expect(renderProgressBar(1, 4, 8, PLAIN)).toBe('██░░░░░░');
    expect(renderProgressBar(0, 0, 4, PLAIN)).toBe('░░░░');
    expect(formatDuration(65_000)).toBe('1m 05s');
    expect(formatDuration(3_700_000)).toBe('1h 01m');
    expect(formatDuration(1)).toBe('1s');
  });

  it('a time passed is never said longer than it was; a limit given is said as given', () => {
    // 4.006 s since the run fell silent: "4s", not "5s".
    expect(formatElapsed(4006)).toBe('4s');
    expect(formatElapsed(65_999)).toBe('1m 05s');
    expect(formatElapsed(4874)).toBe('4.8s');
    expect(formatElapsed(999)).toBe('0.9s');
    for (const [ms, said] of [
      [4000, '4s'],
      [1500, '1.5s'],
      [500, '500ms'],
      [90_000, '1m 30s'],
      [3_600_000, '1h'],
      [5_400_500, '1h 30m 0.5s'],
    ] as const) {
      expect(formatLimit(ms)).toBe(said);
    }
  });
});
