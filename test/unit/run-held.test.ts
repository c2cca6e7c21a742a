/**
 * The work a run holds (RunModel.held): what a run that ends before its result leaves in
 * progress, named as a dead agent's. Only what its own TaskUpdate took up: on a shared
 * list, another agent's task in progress is not the run's.
 */
import { describe, expect, it } from 'vitest';
import { heldByDeaths } from '../../src/cli/watch/watch-live.js';
import { deathState } from '../../src/core/runs/run-death.js';
import { RunModel } from '../../src/core/runs/run-model.js';
import type { Task } from '../../src/core/store/schema.js';
import { goneMark } from '../../src/render/task-table.js';
import { deathWords } from '../../src/render/watch-outcome.js';
import { StreamScript } from '../helpers/stream-lines.js';

function applyLines(model: RunModel, lines: readonly string[]): RunModel {
  for (const [i, l] of lines.entries()) model.apply(JSON.parse(l) as Record<string, unknown>, i + 1);
  return model;
}

const feed = (model: RunModel, s: StreamScript) => applyLines(model, s.lines);

const task = (id: string, status: Task['status'], owner?: string): Task => ({
  id,
  subject: `task ${id}`,
  description: '',
  status,
  blocks: [],
  blockedBy: [],
  ...(owner === undefined ? {} : { owner }),
});

describe('RunModel.held: the tasks in progress the run took up', () => {
  it('set in progress by the run: held; pending, or completed since: not', () => {
    const model = feed(
      new RunModel(),
      new StreamScript().init().create('1', 'A').create('2', 'B').create('3', 'C').update('1', { status: 'in_progress' }),
    );
    expect(model.held().map((t) => t.id)).toEqual(['1']);
    feed(model, new StreamScript().update('1', { status: 'completed' }));
    expect(model.held()).toEqual([]);
  });

  it("a shared list: another agent's task in progress (in the files) is not held; one the run gave an owner, or retook, is", () => {
    const model = new RunModel();
    model.adoptFiles(
      new Map([
        ['3', task('3', 'in_progress', 'other')],
        ['4', task('4', 'in_progress')],
        ['5', task('5', 'in_progress')],
      ]),
    );
    // #4: an owner given; #5: set in progress again, though the agent's tool changed nothing (updatedFields: []).
    const s = new StreamScript().init().update('4', { owner: 'me' });
    const retake = new StreamScript().update('5', { status: 'in_progress' });
    const noop = retake.lines.map((l) => l.replace('"updatedFields":["status"]', '"updatedFields":[]'));
    feed(model, s);
    applyLines(model, noop);
    expect(model.held().map((t) => t.id)).toEqual(['4', '5']);
  });

  it('killed between its write and its result: the call alone takes the task up, as its file in progress says', () => {
    const model = new RunModel();
    model.adoptFiles(new Map([['4', task('4', 'in_progress')]]));
    const call = new StreamScript().init().update('4', { status: 'in_progress' }).lines.slice(0, 2);
    applyLines(model, call);
    expect(model.held().map((t) => t.id)).toEqual(['4']);
  });

  it('a refused TaskUpdate takes nothing up', () => {
    const model = new RunModel();
    model.adoptFiles(new Map([['3', task('3', 'in_progress', 'other')]]));
    const s = new StreamScript().init().update('3', { status: 'in_progress' });
    const refused = s.lines.map((l) => l.replace('"success":true', '"success":false'));
    applyLines(model, refused);
    expect(model.held()).toEqual([]);
  });
});

describe('RunModel.held: a TodoWrite run', () => {
  it("holds nothing: its todos in progress are its session's own, on no list to give them back to", () => {
    const model = new RunModel();
    const call = {
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 't1',
            name: 'TodoWrite',
            input: { todos: [{ content: 'Fix', status: 'in_progress', activeForm: 'Fixing' }] },
          },
        ],
      },
    };
    const result = { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] } };
    model.apply({ type: 'system', subtype: 'init', session_id: 'abc' }, 1);
    model.apply(call, 2);
    model.apply(result, 3);
    expect([...model.shown().values()].map((t) => t.status)).toEqual(['in_progress']);
    expect(model.held()).toEqual([]);
  });
});

describe("a run's death as its process ended (run-death.ts)", () => {
  const d = { sessionId: '7c0ffee0-1111-4222-8333-944445555666', tasks: [task('1', 'in_progress'), task('2', 'in_progress', 'me')] };

  it('state: ended for an exit 0, crashed for a signal, a non-zero status, or nothing known', () => {
    expect(deathState({ code: 0, signal: null })).toBe('ended');
    expect(deathState({ code: null, signal: 'SIGKILL' })).toBe('crashed');
    expect(deathState({ code: 3, signal: null })).toBe('crashed');
    expect(deathState(undefined)).toBe('crashed');
  });

  it('words: the signal, else the status, else the state', () => {
    expect(deathWords({ state: 'crashed', exit: { code: null, signal: 'SIGKILL' } })).toBe('was killed by SIGKILL');
    expect(deathWords({ state: 'crashed', exit: { code: 3, signal: null } })).toBe('exited with status 3');
    expect(deathWords({ state: 'ended', exit: { code: 0, signal: null } })).toBe('exited with status 0');
    expect(deathWords({ state: 'crashed' })).toBe('crashed');
  });

  it('the rows it marks: each task it held, as list marks an agent gone', () => {
    const held = heldByDeaths([{ ...d, state: 'crashed', exit: { code: null, signal: 'SIGTERM' } }]);
    expect([...held.keys()]).toEqual(['1', '2']);
    expect(goneMark(held.get('1'), Date.now())).toBe('agent gone: session 7c0ffee0 was killed by SIGTERM');
    expect(held.get('1')?.unowned).toBe(true);
    expect(held.get('2')?.unowned).toBe(false);
    expect(heldByDeaths(undefined).size).toBe(0);
  });
});
