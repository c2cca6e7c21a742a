import { describe, expect, it } from 'vitest';
import { type RecordedChange, replayChanges } from '../../src/core/restore/replay-changes.js';

type AgentChange = RecordedChange;

let clock = 0;
const create = (taskId: string, subject: string): AgentChange => ({
  at: ++clock,
  taskId,
  op: 'create',
  fields: { subject: { new: subject }, status: { new: 'pending' } },
  source: 'agent',
});
const update = (taskId: string, fields: AgentChange['fields']): AgentChange => ({
  at: ++clock,
  taskId,
  op: 'update',
  fields,
  source: 'agent',
});
const del = (taskId: string): AgentChange => ({ at: ++clock, taskId, op: 'delete', fields: {}, source: 'agent' });

describe('replayChanges', () => {
  it('a lower id never seen before is no new start (two sessions creating at once, results out of order)', () => {
    const r = replayChanges([create('5', 'Five'), create('4', 'Four')]);
    expect(r.restarts).toBe(0);
    expect(r.items.map((i) => i.ref)).toEqual(['4', '5']);
    expect(r.highestId).toBe('5');
  });

  it('an id created again is a new start; a deleted id counts for the mark; edges only between tasks that exist', () => {
    const r = replayChanges([
      create('1', 'A'),
      create('2', 'B'),
      update('2', { addBlockedBy: { new: ['1', '7'] } }),
      create('3', 'C'),
      del('3'),
      create('2', 'B again'),
      update('9', { status: { new: 'completed' } }),
    ]);
    expect(r.restarts).toBe(1);
    expect(r.items.map((i) => [i.ref, i.subject, i.blockedBy])).toEqual([
      ['2', 'B again', []],
      ['1@1', 'A', []],
      ['2@1', 'B', ['1@1']],
    ]);
    // Since the new start: #2 and the #9 an agent changed.
    expect(r.highestId).toBe('9');
    expect(r.warnings).toContain('#9: changed by an agent, but no record read shows it created; not restored');
  });

  it('metadata merges key by key and null removes; a delete takes the references with it', () => {
    const r = replayChanges([
      create('1', 'A'),
      create('2', 'B'),
      update('1', { addBlocks: { new: ['2'] }, metadata: { new: { a: 1, b: 2 } } }),
      update('1', { metadata: { new: { b: null, c: 3 } }, owner: { new: 'me' } }),
      del('2'),
    ]);
    expect(r.items).toEqual([
      { ref: '1', subject: 'A', description: '', status: 'pending', owner: 'me', metadata: { a: 1, c: 3 }, blockedBy: [] },
    ]);
    expect(r.deleted).toBe(1);
  });
});

describe('replayChanges: changes made with tasks', () => {
  it('set each field to its recorded value, edges included; a task put back under its id is no new start', () => {
    const tasks = (taskId: string, op: RecordedChange['op'], fields: RecordedChange['fields']): RecordedChange => ({
      at: ++clock,
      taskId,
      op,
      fields,
      source: 'tasks',
    });
    const r = replayChanges([
      create('1', 'A'),
      tasks('2', 'create', {
        id: { new: '2' },
        subject: { new: 'B' },
        description: { new: 'd' },
        status: { new: 'pending' },
        blocks: { new: [] },
        blockedBy: { new: [] },
      }),
      tasks('1', 'update', { status: { old: 'pending', new: 'completed' }, owner: { new: 'me' }, weird: { new: 1 } }),
      tasks('1', 'update', { owner: { old: 'me' } }),
      tasks('2', 'update', { blockedBy: { old: [], new: ['1'] } }),
      del('2'),
      tasks('2', 'create', {
        subject: { new: 'B' },
        description: { new: 'd' },
        status: { new: 'pending' },
        blocks: { new: [] },
        blockedBy: { new: ['1'] },
      }),
    ]);
    expect(r.restarts).toBe(0);
    expect(r.items).toEqual([
      { ref: '1', subject: 'A', description: '', status: 'completed', blockedBy: [], extra: { weird: 1 } },
      { ref: '2', subject: 'B', description: 'd', status: 'pending', blockedBy: ['1'] },
    ]);
  });
});
