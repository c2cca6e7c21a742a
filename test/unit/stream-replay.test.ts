import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseImportText } from '../../src/core/snapshots/import-parse.js';
import { FIXTURES } from '../helpers/cli.js';

/** Build stream-json lines by hand: tool calls and their results. */
let n = 0;
const use = (name: string, input: unknown, id = `t${++n}`, extra: Record<string, unknown> = {}) => ({
  id,
  line: JSON.stringify({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    parent_tool_use_id: null,
    ...extra,
  }),
});
const result = (id: string, data: unknown, text = '', isError = false) =>
  JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text, ...(isError ? { is_error: true } : {}) }] },
    tool_use_result: data,
  });
const stream = (...lines: string[]) => [JSON.stringify({ type: 'system', subtype: 'init', session_id: 's' }), ...lines].join('\n');
const created = (id: string, subject: string) => ({ task: { id, subject } });

describe('rebuilding the list a Task-tools run ended with', () => {
  it('gives exactly the tasks the real run left on disk (refactor-auth)', () => {
    const s = parseImportText(fs.readFileSync(path.join(FIXTURES, 'stream-json-tasks-v2.jsonl'), 'utf8'), 'auto');
    expect(s.found).toBe('Task tool calls (5 created, 5 updated, 1 deleted); the list they ended with: 4 tasks');
    const dir = path.join(FIXTURES, 'tasks', 'refactor-auth');
    const onDisk = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
    expect(s.items.map((i) => i.ref)).toEqual(onDisk.map((t) => t.id));
    for (const [i, task] of onDisk.entries()) {
      const { ref, blockedBy, ...fields } = s.items[i]!;
      expect(ref).toBe(task.id);
      expect(blockedBy).toEqual(task.blockedBy);
      const { id: _id, blocks: _blocks, blockedBy: _b, ...rest } = task;
      expect(fields).toEqual(rest);
    }
    expect(s.warnings).toEqual([]);
  });

  it('applies results in the order they came back, and only the ones that succeeded', () => {
    const a = use('TaskCreate', { subject: 'A', description: 'a' });
    const b = use('TaskCreate', { subject: 'B', description: 'b' });
    const u1 = use('TaskUpdate', { taskId: '2', status: 'in_progress' });
    const u2 = use('TaskUpdate', { taskId: '2', status: 'completed' });
    const bad = use('TaskUpdate', { taskId: '1', owner: 'x' });
    const s = parseImportText(
      stream(
        a.line,
        b.line,
        result(b.id, created('2', 'B')),
        result(a.id, created('1', 'A')),
        u2.line,
        u1.line,
        result(u1.id, { success: true }),
        result(u2.id, { success: true }),
        bad.line,
        result(bad.id, { success: false, error: 'denied' }),
      ),
      'auto',
    );
    expect(s.items.map((i) => [i.ref, i.subject, i.status, i.owner])).toEqual([
      ['1', 'A', 'pending', undefined],
      ['2', 'B', 'completed', undefined],
    ]);
  });

  it('reads the id from the result text when there is no structured result; honours aliases', () => {
    const a = use('TaskCreate', { title: 'Aliased', content: 'desc', active_form: 'Aliasing' });
    const u = use('TaskUpdate', { id: '7', metadata: { k: 1 } });
    const s = parseImportText(
      stream(a.line, result(a.id, undefined, 'Task #7 created successfully: Aliased'), u.line, result(u.id, { success: true })),
      'auto',
    );
    expect(s.items).toEqual([
      { ref: '7', subject: 'Aliased', description: 'desc', activeForm: 'Aliasing', status: 'pending', metadata: { k: 1 }, blockedBy: [] },
    ]);
  });

  it('drops a deleted task and every reference to it; edges need both tasks', () => {
    const [a, b, c] = ['A', 'B', 'C'].map((s) => use('TaskCreate', { subject: s, description: '' }));
    const e1 = use('TaskUpdate', { taskId: '1', addBlocks: ['2', '3', '99'] });
    const e2 = use('TaskUpdate', { taskId: '3', addBlockedBy: ['2'] });
    const del = use('TaskUpdate', { taskId: '2', status: 'deleted' });
    const s = parseImportText(
      stream(
        a!.line,
        result(a!.id, created('1', 'A')),
        b!.line,
        result(b!.id, created('2', 'B')),
        c!.line,
        result(c!.id, created('3', 'C')),
        e1.line,
        result(e1.id, { success: true }),
        e2.line,
        result(e2.id, { success: true }),
        del.line,
        result(del.id, { success: true }),
      ),
      'auto',
    );
    expect(s.items.map((i) => [i.ref, i.blockedBy])).toEqual([
      ['1', []],
      ['3', ['1']],
    ]);
  });

  it('warns about calls without a result, refused creates and tasks from before the stream', () => {
    const a = use('TaskCreate', { subject: 'A', description: '' });
    const refused = use('TaskCreate', { subject: 'Refused', description: '' });
    const old = use('TaskUpdate', { taskId: '40', status: 'completed' });
    const pending = use('TaskUpdate', { taskId: '1', status: 'completed' });
    const s = parseImportText(
      stream(
        a.line,
        result(a.id, created('1', 'A')),
        refused.line,
        result(refused.id, undefined, 'hook said no', true),
        old.line,
        result(old.id, { success: true }),
        pending.line,
      ),
      'auto',
    );
    expect(s.items.map((i) => [i.ref, i.status])).toEqual([['1', 'pending']]);
    expect(s.warnings).toEqual([
      expect.stringMatching(/^line \d+: TaskUpdate of #40, a task this stream did not create/),
      expect.stringMatching(/^line \d+: TaskUpdate has no result in the stream/),
    ]);
  });
});

describe('what a stream cannot tell', () => {
  it('an owner the agent set itself (team auto-claim) is reported, not invented', () => {
    const a = use('TaskCreate', { subject: 'A', description: '' });
    const u = use('TaskUpdate', { taskId: '1', status: 'in_progress' });
    const s = parseImportText(
      stream(
        a.line,
        result(a.id, created('1', 'A')),
        u.line,
        result(u.id, { success: true, taskId: '1', updatedFields: ['owner', 'status'] }),
      ),
      'auto',
    );
    expect(s.items[0]).toMatchObject({ status: 'in_progress' });
    expect(s.items[0]).not.toHaveProperty('owner');
    expect(s.warnings).toEqual([expect.stringMatching(/made itself owner of #1 .* left unset$/)]);
  });
});

describe('TodoWrite snapshots in a stream', () => {
  const todos = (...names: string[]) => ({ todos: names.map((c) => ({ content: c, status: 'pending', activeForm: `${c}ing` })) });

  it("ignores a refused TodoWrite and subagents' lists", () => {
    const good = use('TodoWrite', todos('A', 'B'));
    const refused = use('TodoWrite', todos('Refused'));
    const sub = use('TodoWrite', todos('Sub'), undefined, { parent_tool_use_id: 'toolu_parent' });
    const s = parseImportText(
      stream(
        good.line,
        result(good.id, { oldTodos: [], newTodos: todos('A', 'B').todos }),
        refused.line,
        result(refused.id, undefined, 'InputValidationError', true),
        sub.line,
      ),
      'auto',
    );
    expect(s.items.map((i) => i.subject)).toEqual(['A', 'B']);
    expect(s.found).toMatch(/1 subagent snapshot ignored/);
  });

  it('takes newTodos from a result whose call is not in the stream', () => {
    const s = parseImportText(stream(result('gone', { oldTodos: [], newTodos: todos('Late').todos })), 'auto');
    expect(s.items.map((i) => i.subject)).toEqual(['Late']);
  });

  it('when a stream has both, the one used last wins and the other is reported', () => {
    const t = use('TodoWrite', todos('Todo'));
    const c = use('TaskCreate', { subject: 'Task', description: '' });
    const s = parseImportText(
      stream(t.line, result(t.id, { oldTodos: [], newTodos: todos('Todo').todos }), c.line, result(c.id, created('1', 'Task'))),
      'auto',
    );
    expect(s.items.map((i) => i.subject)).toEqual(['Task']);
    expect(s.warnings).toEqual([expect.stringMatching(/TodoWrite snapshots .* come before its last Task tool call .*: ignored/)]);
  });

  it('an empty last snapshot imports nothing, with a word on why', () => {
    const t = use('TodoWrite', { todos: [] });
    const s = parseImportText(stream(t.line), 'auto');
    expect(s.items).toEqual([]);
    expect(s.warnings).toEqual([expect.stringMatching(/is empty: the agent cleared its list/)]);
  });
});
