import { describe, expect, it } from 'vitest';
import type { AgentChange } from '../../src/core/history/transcript-events.js';
import { replayChanges } from '../../src/core/restore/replay-changes.js';

let clock = 0;
const create = (taskId: string, subject: string): AgentChange => ({
  at: ++clock,
  taskId,
  op: 'create',
  fields: { subject: { new: subject }, status: { new: 'pending' } },
  sessionId: 's',
});
const update = (taskId: string, fields: AgentChange['fields']): AgentChange => ({ at: ++clock, taskId, op: 'update', fields, sessionId: 's' });
const del = (taskId: string): AgentChange => ({ at: ++clock, taskId, op: 'delete', fields: {}, sessionId: 's' });

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
    expect(r.warnings).toContain('#9: changed by an agent, but no transcript read shows it created; not restored');
  });

  it('metadata merges key by key and null removes; a delete takes the references with it', () => {
    const r = replayChanges([
      create('1', 'A'),
      create('2', 'B'),
      update('1', { addBlocks: { new: ['2'] }, metadata: { new: { a: 1, b: 2 } } }),
      update('1', { metadata: { new: { b: null, c: 3 } }, owner: { new: 'me' } }),
      del('2'),
    ]);
    expect(r.items).toEqual([{ ref: '1', subject: 'A', description: '', status: 'pending', owner: 'me', metadata: { a: 1, c: 3 }, blockedBy: [] }]);
    expect(r.deleted).toBe(1);
  });
});
