import { describe, expect, it } from 'vitest';
import { tallyBy, WHOLE } from '../../src/core/cost/cost-groups.js';
import { attribute, coveredMs, type SessionWork, type StatusMark, spellsOf, type UsageMessage } from '../../src/core/cost/cost-rule.js';
import { bucketKey, splitTokens, type Tokens } from '../../src/core/cost/usage-tally.js';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (s: number) => T0 + s * 1000;
const tokens = (input: number, output = 0, cacheRead = 0, cacheCreation = 0, cacheCreation1h = 0): Tokens => ({
  input,
  output,
  cacheRead,
  cacheCreation,
  cacheCreation1h,
});
const msg = (s: number, t: Tokens, model = 'claude-opus-5-5'): UsageMessage => ({
  at: at(s),
  bucket: bucketKey({ model, fast: false, long: false }),
  tokens: t,
});
const mark = (s: number, task: string, status: StatusMark['status'], session?: string, list = 'L'): StatusMark => ({
  at: at(s),
  list,
  task,
  status,
  ...(session === undefined ? {} : { session }),
});
const work = (session: string, messages: UsageMessage[], end: number): SessionWork => ({ session, messages, end: at(end) });
const sharesOf = (r: ReturnType<typeof attribute>) => r.messages.map((m) => m.shares.map((s) => `${s.task}:${s.tokens.input}`).join(','));

describe('the cost rule', () => {
  it('counts a message toward the task in progress from the result that started it to the result that completed it', () => {
    const a = work('A', [msg(1, tokens(10)), msg(3, tokens(20)), msg(5, tokens(40)), msg(7, tokens(80))], 10);
    // Started by A's call whose result came at 2 s; completed by A's call whose result came at 6 s.
    const r = attribute([a], [mark(2, '1', 'in_progress', 'A'), mark(6, '1', 'completed', 'A')]);
    expect(sharesOf(r)).toEqual(['', '1:20', '1:40', '']);
    expect(r.spells).toEqual([{ session: 'A', list: 'L', task: '1', from: at(2), to: at(6) }]);
    // A message that begins at the very instant of the start counts; one at the completion's does not.
    const edges = attribute(
      [work('A', [msg(2, tokens(1)), msg(6, tokens(2))], 10)],
      [mark(2, '1', 'in_progress', 'A'), mark(6, '1', 'completed', 'A')],
    );
    expect(sharesOf(edges)).toEqual(['1:1', '']);
  });

  it('splits a message evenly among the tasks in progress at once, in whole tokens that add up', () => {
    const a = work('A', [msg(3, tokens(101, 7, 5, 9, 3)), msg(4, tokens(101)), msg(5, tokens(100))], 10);
    const r = attribute([a], [mark(1, '2', 'in_progress', 'A'), mark(2, '10', 'in_progress', 'A')]);
    expect(sharesOf(r)).toEqual(['2:51,10:50', '2:50,10:51', '2:50,10:50']);
    const first = r.messages[0]?.shares.map((s) => s.tokens) ?? [];
    for (const kind of ['input', 'output', 'cacheRead', 'cacheCreation', 'cacheCreation1h'] as const)
      expect(first.reduce((n, t) => n + t[kind], 0)).toBe(tokens(101, 7, 5, 9, 3)[kind]);
    for (const t of first) expect(t.cacheCreation1h).toBeLessThanOrEqual(t.cacheCreation);
  });

  it('leaves a message with no task in progress unattributed', () => {
    const a = work('A', [msg(1, tokens(10))], 10);
    const r = attribute([a], []);
    expect(r.messages).toHaveLength(1);
    expect(r.messages[0]?.shares).toEqual([]);
  });

  it('ends a spell when anyone changes the status: a person with tasks done, another session, a delete', () => {
    const marks = [
      mark(1, '1', 'in_progress', 'A'),
      mark(3, '1', 'completed'), // a person: tasks done
      mark(1, '2', 'in_progress', 'A'),
      mark(4, '2', 'pending', 'B'), // another session put it back
      mark(1, '3', 'in_progress', 'A'),
      mark(5, '3', 'deleted', 'B'),
    ];
    const spells = spellsOf(work('A', [], 100), marks);
    expect(spells.map((s) => `${s.task}:${(s.to - s.from) / 1000}`).sort()).toEqual(['1:2', '2:3', '3:4']);
  });

  it('starts a spell only for the session that set the task in progress (its own call or tasks --as on its behalf)', () => {
    const marks = [mark(1, '1', 'in_progress', 'B'), mark(2, '2', 'in_progress')];
    expect(spellsOf(work('A', [], 100), marks)).toEqual([]);
    expect(spellsOf(work('B', [], 100), marks).map((s) => s.task)).toEqual(['1']);
  });

  it('ends an open spell at the session end (now, while it runs), and a later change does not reach past it', () => {
    const spells = spellsOf(work('A', [], 50), [mark(10, '1', 'in_progress', 'A'), mark(90, '1', 'completed')]);
    expect(spells).toEqual([{ session: 'A', list: 'L', task: '1', from: at(10), to: at(50) }]);
    expect(spellsOf(work('A', [], 50), [mark(60, '1', 'in_progress', 'A')])).toEqual([]);
  });

  it("ends a spell where the session's process ended, and a resumed run goes on with the task from its first entry", () => {
    // The process ended at 20 s (its last entry, a message), #1 still in progress; resumed at 45 s, #1 completed at 50 s.
    const a: SessionWork = {
      ...work('A', [msg(5, tokens(1)), msg(20, tokens(2)), msg(46, tokens(4)), msg(55, tokens(8))], 60),
      gaps: [{ from: at(20), to: at(45) }],
    };
    const r = attribute([a], [mark(10, '1', 'in_progress', 'A'), mark(50, '1', 'completed', 'A')]);
    expect(r.spells.map((s) => [(s.from - T0) / 1000, (s.to - T0) / 1000])).toEqual([
      [10, 20],
      [45, 50],
    ]);
    // The message the process ended on began with #1 in progress; the resumed run's turn counts too.
    expect(sharesOf(r)).toEqual(['', '1:2', '1:4', '']);
    // A person who completes the task while no process runs ends it at the process's end.
    const done = spellsOf(a, [mark(10, '1', 'in_progress', 'A'), mark(30, '1', 'completed')]);
    expect(done.map((s) => (s.to - s.from) / 1000)).toEqual([10]);
    // A session that ended and was never resumed (a gap with no end) stops at its process's end.
    const over = spellsOf({ ...work('A', [], 60), gaps: [{ from: at(20), to: Number.POSITIVE_INFINITY }] }, [
      mark(10, '1', 'in_progress', 'A'),
    ]);
    expect(over.map((s) => (s.to - s.from) / 1000)).toEqual([10]);
  });

  it('keeps the messages of a window, and the part of each spell inside it', () => {
    const a = work('A', [msg(5, tokens(1)), msg(15, tokens(2)), msg(25, tokens(4))], 100);
    const r = attribute([a], [mark(0, '1', 'in_progress', 'A'), mark(30, '1', 'completed', 'A')], { since: at(10), until: at(20) });
    expect(r.messages.map((m) => m.message.tokens.input)).toEqual([2]);
    expect(r.spells.map((s) => (s.to - s.from) / 1000)).toEqual([10]);
  });

  it('counts a message with no time as unattributed, and leaves it out of a window', () => {
    const timeless: UsageMessage = { ...msg(0, tokens(5)), at: Number.NaN };
    const a = work('A', [timeless], 100);
    expect(attribute([a], [mark(0, '1', 'in_progress', 'A')]).messages[0]?.shares).toEqual([]);
    expect(attribute([a], [], { since: at(0) }).messages).toEqual([]);
  });
});

describe('sums by group', () => {
  it('counts a message once in a group and shared time once', () => {
    const a = work('A', [msg(3, tokens(100))], 10);
    const r = attribute([a], [mark(1, '1', 'in_progress', 'A'), mark(2, '2', 'in_progress', 'A')]);
    const byTask = tallyBy(r.messages, r.spells, { share: (_l, t) => t, unattributed: () => undefined });
    expect(byTask.get('1')?.messages).toBe(1);
    expect(byTask.get('1')?.activeMs).toBe(9000);
    expect(byTask.get('2')?.activeMs).toBe(8000);
    const whole = tallyBy(r.messages, r.spells, WHOLE).get('');
    expect(whole?.messages).toBe(1);
    expect(whole?.tokens().input).toBe(100);
    expect(whole?.activeMs).toBe(9000);
  });

  it('coveredMs merges overlapping spells', () => {
    expect(
      coveredMs([
        { from: 0, to: 10 },
        { from: 5, to: 20 },
        { from: 30, to: 40 },
      ]),
    ).toBe(30);
  });

  it('splitTokens turns the odd tokens from message to message', () => {
    const shares = [0, 1, 2].map((turn) => splitTokens(tokens(4), 3, turn).map((t) => t.input));
    expect(shares).toEqual([
      [2, 1, 1],
      [1, 2, 1],
      [1, 1, 2],
    ]);
    expect(splitTokens(tokens(4), 3, 7).map((t) => t.input)).toEqual([1, 2, 1]);
  });
});
