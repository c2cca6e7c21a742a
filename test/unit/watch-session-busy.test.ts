/**
 * WatchSession with sessions at work on the list (`busy`): all-completed and empty are not
 * met while one is; looked at again on a timer; a rescan of the list before the pass.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/store/schema.js';
import { parseUntil } from '../../src/core/watch/watch-condition.js';
import { snapshotOf } from '../../src/core/watch/watch-diff.js';
import { type BusySession, type WatchEnd, WatchSession, type WatchSink, type WatchView } from '../../src/core/watch/watch-session.js';
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

/** A list source whose disk (`onDisk`) the watch sees only on a rescan. */
class Source implements WatchSource {
  handlers: WatchSourceHandlers | undefined;
  seen: Task[];
  rescans = 0;
  constructor(
    private readonly clock: FakeClock,
    public onDisk: Task[],
  ) {
    this.seen = onDisk;
  }
  start(): WatchUpdate {
    return { at: this.clock.now(), events: [], exists: true, snapshot: snapshotOf(this.seen), problems: [] };
  }
  close(): void {}
  rescan(): void {
    this.rescans++;
    if (JSON.stringify(this.onDisk) === JSON.stringify(this.seen)) return;
    this.seen = this.onDisk;
    this.handlers?.onUpdate({ at: this.clock.now(), events: [], exists: true, snapshot: snapshotOf(this.seen), problems: [] });
  }
}

class Sink implements WatchSink {
  waits: string[] = [];
  ended: WatchEnd | undefined;
  begin(): void {}
  change(): void {}
  end(_v: WatchView, end: WatchEnd): void {
    this.ended = end;
  }
  warn(): void {}
  waiting(_v: WatchView, busy: readonly BusySession[]): void {
    this.waits.push(busy.map((b) => `${b.sessionId ?? b.pid}:${b.state}`).join(' '));
  }
}

function setUp(until: string, tasks: Task[], busy: () => BusySession[], timeoutMs?: number) {
  const clock = new FakeClock();
  const source = new Source(clock, tasks);
  const sink = new Sink();
  const session = new WatchSession(
    {
      source: (h) => {
        source.handlers = h;
        return source;
      },
      filter: {},
      until: parseUntil(until),
      timeoutMs,
      clock,
      timers: clock,
      busy: { look: busy, everyMs: 1000 },
    },
    sink,
  );
  return { clock, source, sink, outcome: session.run() };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('WatchSession: a condition met while a session of the list works', () => {
  it('all-completed waits while a session is busy, says so once, and passes once it is not', async () => {
    let busy: BusySession[] = [{ sessionId: 's1', pid: 7, state: 'busy' }];
    const { clock, sink, outcome } = setUp('all-completed', [task('1', 'completed')], () => busy);
    await settle();
    clock.advance(5000);
    expect(sink.ended).toBeUndefined();
    expect(sink.waits).toEqual(['s1:busy']);
    busy = [];
    clock.advance(1000);
    expect(await outcome).toMatchObject({ reason: 'condition-met', met: true });
    // Told, with no session, that the wait is over (the live view takes its note down).
    expect(sink.waits).toEqual(['s1:busy', '']);
  });

  it('reads the list again before the pass: a last task written as the agent ended is judged', async () => {
    let busy: BusySession[] = [{ sessionId: 's1', state: 'busy' }];
    const { clock, source, sink, outcome } = setUp('all-completed', [task('1', 'completed')], () => busy);
    await settle();
    // The agent wrote #2 and ended; the watch has not seen #2 yet.
    source.onDisk = [task('1', 'completed'), task('2')];
    busy = [];
    clock.advance(1000);
    expect(source.rescans).toBe(1);
    expect(sink.ended).toBeUndefined();
    clock.advance(10_000);
    expect(sink.ended).toBeUndefined();
    source.onDisk = [task('1', 'completed'), task('2', 'completed')];
    source.rescan();
    expect(await outcome).toMatchObject({ reason: 'condition-met', met: true });
  });

  it('a deadline while it waits: timeout, not met', async () => {
    const { clock, outcome } = setUp('all-completed', [task('1', 'completed')], () => [{ pid: 9, state: 'starting' }], 3000);
    await settle();
    clock.advance(3000);
    expect(await outcome).toMatchObject({ reason: 'timeout', met: false });
  });

  it('empty waits too; ready and task:<id> do not', async () => {
    const busy = () => [{ sessionId: 's1', state: 'busy' as const }];
    const empty = setUp('empty', [], busy);
    await settle();
    empty.clock.advance(2000);
    expect(empty.sink.ended).toBeUndefined();
    expect(empty.sink.waits).toEqual(['s1:busy']);
    for (const until of ['ready', 'task:1:pending']) {
      const s = setUp(until, [task('1')], busy);
      await settle();
      expect(await s.outcome).toMatchObject({ reason: 'condition-met', met: true });
    }
  });
});
