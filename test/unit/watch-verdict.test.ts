import { describe, expect, it } from 'vitest';
import { verdictOf } from '../../src/cli/watch/watch-verdict.js';
import { TasksError } from '../../src/core/base/errors.js';
import { indexTasks } from '../../src/core/graph/blockers.js';
import type { Task } from '../../src/core/store/schema.js';
import type { WatchOutcome } from '../../src/core/watch/watch-session.js';

const task = (id: string, status: Task['status']): Task => ({ id, subject: `T${id}`, description: '', status, blocks: [], blockedBy: [] });

function outcome(reason: WatchOutcome['reason'], extra: Partial<WatchOutcome> = {}): WatchOutcome {
  const all = [task('1', 'completed'), task('2', 'in_progress')];
  return {
    reason,
    met: false,
    view: { at: 0, exists: true, all, index: indexTasks(all), shown: all, times: new Map(), problems: [], waiting: new Map() },
    ...extra,
  };
}

const opts = { untilText: 'all-completed', timeoutMs: undefined, stallMs: undefined };
const died = outcome('session-died', {
  died: [{ sessionId: '5261ab6e-0000-4000-8000-000000000000', state: 'crashed', tasks: [task('2', 'in_progress')] }],
});

describe('watch --until: the hints of its errors name the list watched', () => {
  it('a session that died: the release command acts on the list watched', () => {
    const err = verdictOf(died, { ...opts, listArgs: ['-l', 'L'] });
    expect(err).toBeInstanceOf(TasksError);
    expect(err?.hint).toBe('tasks -l L release 2 gives its tasks back; --allow-deaths waits on');
  });

  it('a list found again by a pasted command (the variable, the binding): no -l', () => {
    expect(verdictOf(died, { ...opts, listArgs: [] })?.hint).toBe('tasks release 2 gives its tasks back; --allow-deaths waits on');
  });

  it('a list name that is not one shell word is quoted', () => {
    expect(verdictOf(died, { ...opts, listArgs: ['-l', 'my list'] })?.hint).toBe(
      "tasks -l 'my list' release 2 gives its tasks back; --allow-deaths waits on",
    );
  });

  it('stalled work: the list --stalled command lists the list watched', () => {
    const stalled = outcome('stalled', { stalled: [{ id: '2', task: task('2', 'in_progress'), idleMs: 60_000 }] });
    expect(verdictOf(stalled, { ...opts, stallMs: 30_000, listArgs: ['-l', 'L'] })?.hint).toBe(
      'is the agent stuck? tasks -l L list --stalled shows such tasks',
    );
  });
});
