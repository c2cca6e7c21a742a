/**
 * WatchSession with a session of the list that waits for a person (`personWait`): the
 * tasks in progress wait on it in every view, the sink is told when it begins (or already
 * waits), changes and ends, and the end says what a timeout waited on.
 */
import { describe, expect, it } from 'vitest';
import type { WaitingSession } from '../../src/core/progress/stalled-work.js';
import type { Task } from '../../src/core/store/schema.js';
import { parseUntil } from '../../src/core/watch/watch-condition.js';
import { snapshotOf } from '../../src/core/watch/watch-diff.js';
import { shownWaiting, type WatchEnd, WatchSession, type WatchSink, type WatchView } from '../../src/core/watch/watch-session.js';
import type { WatchSource, WatchSourceHandlers, WatchUpdate } from '../../src/core/watch/watch-source.js';
import { FakeClock } from '../helpers/fake-clock.js';

const task = (id: string, status: Task['status'] = 'pending'): Task => ({
  id,
  subject: `task ${id}`,
  description: '',
  status,
  blocks: [],
  blockedBy: [],
});

const prompt = (since = 1000): WaitingSession => ({ session: 's1', name: 'proj-w1', waitingFor: 'permission prompt', since });

class Source implements WatchSource {
  handlers: WatchSourceHandlers | undefined;
  constructor(
    private readonly clock: FakeClock,
    private readonly tasks: Task[],
  ) {}
  start(): WatchUpdate {
    return { at: this.clock.now(), events: [], exists: true, snapshot: snapshotOf(this.tasks), problems: [] };
  }
  close(): void {}
}

class Sink implements WatchSink {
  /** Each time told: the session's id (or "-") and the ids that wait, as the view says. */
  told: string[] = [];
  /** When each was told, as its view says (what a needs-you event carries). */
  toldAt: number[] = [];
  first: WatchView | undefined;
  ended: { view: WatchView; end: WatchEnd } | undefined;
  begin(view: WatchView): void {
    this.first = view;
  }
  change(): void {}
  end(view: WatchView, end: WatchEnd): void {
    this.ended = { view, end };
  }
  warn(): void {}
  personWaiting(view: WatchView, on: WaitingSession | undefined): void {
    this.told.push(`${on?.session ?? '-'}:${shownWaiting(view).join(',')}`);
    this.toldAt.push(view.at);
  }
}

function setUp(look: () => WaitingSession | undefined, timeoutMs = 10_000) {
  const clock = new FakeClock();
  const source = new Source(clock, [task('1', 'in_progress'), task('2'), task('3', 'in_progress')]);
  const sink = new Sink();
  const session = new WatchSession(
    {
      source: (h) => {
        source.handlers = h;
        return source;
      },
      filter: {},
      until: parseUntil('all-completed'),
      timeoutMs,
      clock,
      timers: clock,
      personWait: { look, everyMs: 1000 },
    },
    sink,
  );
  return { clock, sink, outcome: session.run() };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('WatchSession: a session of the list waits for a person', () => {
  it('already waiting: the first view marks every task in progress, and the sink is told at once', async () => {
    const { sink } = setUp(() => prompt());
    await settle();
    expect([...(sink.first?.waiting.keys() ?? [])]).toEqual(['1', '3']);
    expect(sink.told).toEqual(['s1:1,3']);
  });

  it('told when it begins, when a new spell begins, and when it is over; not again while nothing changes', async () => {
    let on: WaitingSession | undefined;
    const { clock, sink } = setUp(() => on);
    const t0 = clock.now();
    await settle();
    expect(sink.first?.waiting.size).toBe(0);
    clock.advance(3000);
    expect(sink.told).toEqual([]);
    on = prompt(5000);
    clock.advance(1000);
    clock.advance(3000);
    expect(sink.told).toEqual(['s1:1,3']);
    // Answered, then at a prompt again: another spell (its own start time).
    on = prompt(9000);
    clock.advance(1000);
    on = undefined;
    clock.advance(1000);
    expect(sink.told).toEqual(['s1:1,3', 's1:1,3', '-:']);
    // Each as of the look that saw it, not the list's last change.
    expect(sink.toldAt).toEqual([t0 + 4000, t0 + 8000, t0 + 9000]);
  });

  it('a timeout names the session it waited on, looked at as it ends; the view marks the tasks', async () => {
    const { clock, outcome } = setUp(() => prompt(), 3000);
    await settle();
    clock.advance(3000);
    const o = await outcome;
    expect(o).toMatchObject({ reason: 'timeout', met: false, waiting: prompt() });
    expect(shownWaiting(o.view)).toEqual(['1', '3']);
  });

  it('nobody waits: the end says nothing of it', async () => {
    const { clock, outcome } = setUp(() => undefined, 2000);
    await settle();
    clock.advance(2000);
    const o = await outcome;
    expect(o.reason).toBe('timeout');
    expect(o).not.toHaveProperty('waiting');
    expect(o.view.waiting.size).toBe(0);
  });
});
