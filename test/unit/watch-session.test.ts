import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/store/schema.js';
import { parseUntil } from '../../src/core/watch/watch-condition.js';
import { diffSnapshots, snapshotOf } from '../../src/core/watch/watch-diff.js';
import { type StallWatch, type WatchEnd, WatchSession, type WatchSink, type WatchView } from '../../src/core/watch/watch-session.js';
import type { RunEnd, WatchSource, WatchSourceHandlers, WatchUpdate } from '../../src/core/watch/watch-source.js';
import { FakeClock } from '../helpers/fake-clock.js';

const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

/** A source the test drives: its first state comes when `first` resolves; then updates and a run's end by hand. */
class FakeSource implements WatchSource {
  handlers: WatchSourceHandlers | undefined;
  closed = false;
  private tasks: Task[] = [];
  private resolveFirst: ((u: WatchUpdate) => void) | undefined;
  private readonly first: Promise<WatchUpdate>;

  constructor(private readonly clock: FakeClock) {
    this.first = new Promise((resolve) => (this.resolveFirst = resolve));
  }

  open(handlers: WatchSourceHandlers): WatchSource {
    this.handlers = handlers;
    return this;
  }

  start(): Promise<WatchUpdate> {
    return this.first;
  }

  close(): void {
    this.closed = true;
  }

  /** The first state arrives. */
  begin(tasks: Task[]): void {
    this.tasks = tasks;
    this.resolveFirst?.({ at: this.clock.now(), events: [], exists: true, snapshot: snapshotOf(tasks), problems: [] });
  }

  /** The list becomes `tasks`; the update carries the diff. */
  change(tasks: Task[]): void {
    const events = diffSnapshots(snapshotOf(this.tasks), snapshotOf(tasks));
    this.tasks = tasks;
    this.handlers?.onUpdate({ at: this.clock.now(), events, exists: true, snapshot: snapshotOf(tasks), problems: [] });
  }

  /** The session was cleared: followed, the list is now `tasks` (from its first state), and `left` is what was left behind. */
  switchTo(tasks: Task[], left: Task[], followed = true): void {
    const switched = { from: 'old', to: 'new', sessionId: 'old', newSessionId: 'new', sure: true, followed };
    const leftLists = followed ? [{ list: 'old', exists: true, snapshot: snapshotOf(left) }] : undefined;
    if (followed) this.tasks = tasks;
    this.handlers?.onUpdate({
      at: this.clock.now(),
      events: [],
      exists: true,
      snapshot: snapshotOf(this.tasks),
      problems: [],
      switched,
      left: leftLists,
    });
  }

  /** After a followed switch: the new list is `tasks`, the list left behind `left`. */
  changeBoth(tasks: Task[], left: Task[]): void {
    const events = diffSnapshots(snapshotOf(this.tasks), snapshotOf(tasks));
    this.tasks = tasks;
    this.handlers?.onUpdate({
      at: this.clock.now(),
      events,
      exists: true,
      snapshot: snapshotOf(tasks),
      problems: [],
      left: [{ list: 'old', exists: true, snapshot: snapshotOf(left) }],
    });
  }

  runEnds(end: RunEnd): void {
    this.handlers?.onRunEnd?.(end);
  }
}

/** A run's source: it says when its input last brought anything. */
class FakeRun extends FakeSource {
  lastInputAt: number;
  constructor(clock: FakeClock) {
    super(clock);
    this.lastInputAt = clock.now();
  }
  activityAt(): number {
    return this.lastInputAt;
  }
}

/** A sink that records what it was told, in order. */
class RecordingSink implements WatchSink {
  calls: string[] = [];
  views: WatchView[] = [];
  ended: WatchEnd | undefined;
  begin(view: WatchView): void {
    this.calls.push(`begin ${view.shown.map((t) => `${t.id}:${t.status}`).join(' ')}`);
    this.views.push(view);
  }
  change(view: WatchView, events: Parameters<WatchSink['change']>[1]): void {
    this.calls.push(`change ${events.map((e) => (e.type === 'list-cleared' ? e.type : `${e.type} ${e.task.id}`)).join(', ')}`);
    this.views.push(view);
  }
  end(_view: WatchView, end: WatchEnd): void {
    this.calls.push(`end ${end.reason}`);
    this.ended = end;
  }
  abort(): void {
    this.calls.push('abort');
  }
  warn(message: string): void {
    this.calls.push(`warn ${message}`);
  }
  switched(view: WatchView, change: { to: string; followed: boolean }): void {
    this.calls.push(
      `switched ${change.followed ? `to ${change.to}` : 'not followed'} ${view.shown.map((t) => `${t.id}:${t.status}`).join(' ')}`,
    );
    this.views.push(view);
  }
}

function setUp(opts: { until?: string; timeoutMs?: number; stall?: StallWatch; stop?: AbortSignal; run?: boolean } = {}) {
  const clock = new FakeClock();
  const source = opts.run ? new FakeRun(clock) : new FakeSource(clock);
  const sink = new RecordingSink();
  const session = new WatchSession(
    {
      source: (h) => source.open(h),
      filter: {},
      until: opts.until === undefined ? undefined : parseUntil(opts.until),
      timeoutMs: opts.timeoutMs,
      stall: opts.stall,
      clock,
      timers: clock,
      stop: opts.stop,
    },
    sink,
  );
  return { clock, source, sink, session, outcome: session.run() };
}

/** Let promise callbacks run (the session starts its source on a microtask). */
const settle = () => new Promise((r) => setImmediate(r));

describe('WatchSession', () => {
  it('ends at once when the condition holds on the first state', async () => {
    const { source, sink, clock, outcome } = setUp({ until: 'all-completed', timeoutMs: 60_000 });
    await settle();
    source.begin([task('1', { status: 'completed' })]);
    expect(await outcome).toMatchObject({ reason: 'condition-met', met: true });
    expect(sink.calls).toEqual(['begin 1:completed', 'end condition-met']);
    expect(source.closed).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it('ends when a change makes the condition hold, after telling the sink of the change', async () => {
    const { source, sink, outcome } = setUp({ until: 'all-completed' });
    await settle();
    source.begin([task('1'), task('2', { status: 'completed' })]);
    await settle();
    source.change([task('1', { status: 'in_progress' }), task('2', { status: 'completed' })]);
    expect(sink.ended).toBeUndefined();
    source.change([task('1', { status: 'completed' }), task('2', { status: 'completed' })]);
    expect(await outcome).toMatchObject({ reason: 'condition-met', met: true });
    expect(sink.calls).toEqual(['begin 1:pending 2:completed', 'change updated 1', 'change updated 1', 'end condition-met']);
  });

  it('times out when the deadline passes first; not a moment before', async () => {
    const { source, sink, clock, outcome } = setUp({ until: 'all-completed', timeoutMs: 90_000 });
    await settle();
    source.begin([task('1')]);
    await settle();
    clock.advance(89_999);
    expect(sink.ended).toBeUndefined();
    clock.advance(1);
    expect(await outcome).toMatchObject({ reason: 'timeout', met: false });
    expect(clock.pending).toBe(0);
  });

  it('a deadline passed before the first state: the end waits for it a moment, and reports the list as it is', async () => {
    const { source, sink, outcome } = setUp({ timeoutMs: 0 });
    await settle();
    expect(sink.ended).toBeUndefined();
    source.begin([task('1')]);
    expect(await outcome).toMatchObject({ reason: 'timeout' });
    expect(sink.calls).toEqual(['begin 1:pending', 'end timeout']);
    expect(source.closed).toBe(true);
  });

  it('a first state that never comes: the end, on an empty list, after the grace; the source is closed (nothing keeps the process)', async () => {
    const { source, sink, clock, outcome } = setUp({ timeoutMs: 0 });
    await settle();
    clock.advance(1_999);
    expect(sink.ended).toBeUndefined();
    clock.advance(1);
    expect(await outcome).toMatchObject({ reason: 'timeout' });
    expect(source.closed).toBe(true);
    // The first state coming after the end changes nothing.
    source.closed = false;
    source.begin([task('1')]);
    await settle();
    expect(source.closed).toBe(true);
    expect(sink.calls).toEqual(['begin ', 'end timeout']);
    expect(clock.pending).toBe(0);
  });

  it('a run whose input brought nothing by its deadline (a FIFO no writer opened): the end comes at the deadline', async () => {
    const { source, sink, clock, outcome } = setUp({ timeoutMs: 1_000, run: true });
    await settle();
    clock.advance(999);
    expect(sink.ended).toBeUndefined();
    clock.advance(1);
    expect(sink.ended).toBeUndefined();
    // One step later, not after the 2 s a first state on its way is given.
    clock.advance(50);
    expect(await outcome).toMatchObject({ reason: 'timeout' });
    expect(sink.calls).toEqual(['begin ', 'end timeout']);
    expect(source.closed).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it('a run whose input is being read as its deadline passes: its first state is waited for, and the end reports it', async () => {
    const { source, sink, clock, outcome } = setUp({ timeoutMs: 1_000, run: true });
    await settle();
    clock.advance(900);
    (source as FakeRun).lastInputAt = clock.now();
    clock.advance(1_000);
    expect(sink.ended).toBeUndefined();
    source.begin([task('1')]);
    expect(await outcome).toMatchObject({ reason: 'timeout' });
    expect(sink.calls).toEqual(['begin 1:pending', 'end timeout']);
  });

  it('waits a deadline longer than one timer can in steps', async () => {
    const days40 = 40 * 86_400_000;
    const { source, sink, clock, outcome } = setUp({ timeoutMs: days40 });
    await settle();
    source.begin([task('1')]);
    await settle();
    clock.advance(days40 - 1);
    expect(sink.ended).toBeUndefined();
    clock.advance(1);
    expect(await outcome).toMatchObject({ reason: 'timeout' });
  });

  it('stalls when a task shown stays in progress, unchanged, while no session is busy; a busy session defers it', async () => {
    let busy = true;
    const clock0 = Date.UTC(2026, 0, 1);
    const stall: StallWatch = {
      afterMs: 60_000,
      // Task 1's file last changed 30 s before the watch began.
      initialTimes: () => new Map([['1', clock0 - 30_000]]),
      sessionBusy: () => busy,
    };
    const { source, sink, clock, outcome } = setUp({ stall });
    await settle();
    source.begin([task('1', { status: 'in_progress' }), task('2')]);
    await settle();
    clock.advance(29_000);
    expect(sink.ended).toBeUndefined();
    clock.advance(5_000); // 64 s unchanged, but the session is busy on a turn
    expect(sink.ended).toBeUndefined();
    busy = false;
    clock.advance(1_000); // asked again a second later
    const end = await outcome;
    expect(end).toMatchObject({ reason: 'stalled', stalled: [expect.objectContaining({ id: '1' })] });
    expect(end.stalled?.[0]?.idleMs).toBeGreaterThanOrEqual(60_000);
  });

  it('a task file dated in the future (clock skew, a copied file) stalls the stall time after the watch first saw it, not hours on', async () => {
    const clock0 = Date.UTC(2026, 0, 1);
    const stall: StallWatch = {
      afterMs: 60_000,
      // Task 1's file says it changed 3 h from now: by that time alone, the gate would stay quiet for 3 h.
      initialTimes: () => new Map([['1', clock0 + 3 * 3_600_000]]),
      sessionBusy: () => false,
    };
    const { source, sink, clock, outcome } = setUp({ stall });
    await settle();
    source.begin([task('1', { status: 'in_progress' })]);
    await settle();
    clock.advance(59_000);
    expect(sink.ended).toBeUndefined();
    clock.advance(2_000);
    await settle();
    expect(sink.ended?.reason).toBe('stalled');
    const end = await outcome;
    expect(end).toMatchObject({ reason: 'stalled', stalled: [expect.objectContaining({ id: '1' })] });
    expect(end.stalled?.[0]?.idleMs).toBeGreaterThanOrEqual(60_000);
  });

  it('a change to a task in progress restarts its stall time', async () => {
    const stall: StallWatch = { afterMs: 60_000, initialTimes: () => new Map(), sessionBusy: () => false };
    const { source, sink, clock, outcome } = setUp({ stall });
    await settle();
    source.begin([task('1', { status: 'in_progress' })]);
    await settle();
    clock.advance(50_000);
    source.change([task('1', { status: 'in_progress', activeForm: 'Still going' })]);
    clock.advance(50_000);
    expect(sink.ended).toBeUndefined();
    clock.advance(10_001);
    expect(await outcome).toMatchObject({ reason: 'stalled' });
  });

  it('keeps updates that arrive before the first state, and tells them after it, in order', async () => {
    const { source, sink, outcome, session } = setUp();
    await settle();
    // A run's lines arrive in bursts: the source reports changes while its first state is on its way.
    source.change([task('1')]);
    source.change([task('1'), task('2')]);
    expect(sink.calls).toEqual([]);
    source.begin([]);
    await settle();
    expect(sink.calls).toEqual(['begin ', 'change created 1', 'change created 2']);
    session.stop();
    expect(await outcome).toMatchObject({ reason: 'stopped', met: false });
  });

  it('ends with the followed run: its reason and result', async () => {
    const { source, sink, clock, outcome } = setUp({ until: 'all-completed', timeoutMs: 60_000 });
    await settle();
    source.begin([task('1')]);
    await settle();
    source.runEnds({ how: 'result', subtype: 'success' });
    expect(await outcome).toMatchObject({ reason: 'run-ended', met: false, run: { how: 'result', subtype: 'success' } });
    expect(sink.calls.at(-1)).toBe('end run-ended');
    expect(clock.pending).toBe(0);
    source.runEnds({ how: 'input-ended' });
    expect(sink.calls.filter((c) => c.startsWith('end'))).toHaveLength(1);
  });

  it('stops when its signal is aborted, and lets go of the signal when it ends', async () => {
    const controller = new AbortController();
    const { source, outcome } = setUp({ until: 'all-completed', stop: controller.signal });
    await settle();
    source.begin([task('1')]);
    await settle();
    controller.abort();
    expect(await outcome).toMatchObject({ reason: 'stopped', met: false });
    expect(source.closed).toBe(true);
  });

  it('fails as interrupted when stopped before the first state came', async () => {
    const controller = new AbortController();
    const { sink, source, outcome } = setUp({ stop: controller.signal });
    await settle();
    controller.abort();
    await expect(outcome).rejects.toMatchObject({ code: 'interrupted', message: 'stopped before the run began' });
    expect(sink.calls).toEqual(['abort']);
    expect(source.closed).toBe(true);
  });

  it('fails when the source fails, undoing what the sink began', async () => {
    const { sink, source, outcome } = setUp();
    await settle();
    source.begin([task('1')]);
    await settle();
    source.handlers?.onError(new Error('disk gone'));
    await expect(outcome).rejects.toThrow('disk gone');
    expect(sink.calls).toEqual(['begin 1:pending', 'abort']);
  });

  describe('a session cleared (/clear)', () => {
    it('followed: the new list from its first state; all-completed waits for the work left behind too', async () => {
      const { source, sink, outcome } = setUp({ until: 'all-completed' });
      await settle();
      const old = [task('1', { status: 'completed' }), task('2', { status: 'in_progress' })];
      source.begin(old);
      await settle();
      source.switchTo([], old);
      source.changeBoth([task('1', { status: 'completed' })], old);
      expect(sink.ended).toBeUndefined();
      source.changeBoth([task('1', { status: 'completed' })], [task('1', { status: 'completed' }), task('2', { status: 'completed' })]);
      expect(await outcome).toMatchObject({ reason: 'condition-met', met: true });
      expect(sink.calls).toEqual([
        'begin 1:completed 2:in_progress',
        'switched to new ',
        'change created 1',
        'change ',
        'end condition-met',
      ]);
    });

    it('not followed (--no-follow), with --until: ends as session-cleared; without, goes on', async () => {
      const gate = setUp({ until: 'all-completed' });
      await settle();
      gate.source.begin([task('1')]);
      await settle();
      gate.source.switchTo([], [], false);
      expect(await gate.outcome).toMatchObject({ reason: 'session-cleared', met: false, cleared: { to: 'new', followed: false } });
      const plain = setUp();
      await settle();
      plain.source.begin([task('1')]);
      await settle();
      plain.source.switchTo([], [], false);
      expect(plain.sink.ended).toBeUndefined();
      plain.session.stop();
      expect(await plain.outcome).toMatchObject({ reason: 'stopped' });
    });

    it("the new list's tasks start their stall time at the switch, not at the old list's task of the same id", async () => {
      const stall: StallWatch = { afterMs: 60_000, initialTimes: () => new Map(), sessionBusy: () => false };
      const { source, sink, clock, outcome } = setUp({ stall });
      await settle();
      source.begin([task('1', { status: 'in_progress' })]);
      await settle();
      clock.advance(50_000);
      source.switchTo([task('1', { status: 'in_progress', subject: 'new work' })], [task('1', { status: 'completed' })]);
      clock.advance(30_000);
      expect(sink.ended).toBeUndefined();
      clock.advance(31_000);
      expect(await outcome).toMatchObject({ reason: 'stalled' });
    });
  });
});
