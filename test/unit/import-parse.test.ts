import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TasksError } from '../../src/core/base/errors.js';
import { parseImportText } from '../../src/core/snapshots/import-parse.js';
import type { ImportFormatChoice } from '../../src/core/snapshots/import-snapshot.js';
import { FIXTURES } from '../helpers/cli.js';

const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const todo = (content: string, status = 'pending', activeForm?: string) => ({ content, status, ...(activeForm ? { activeForm } : {}) });
const lastSnapshot = [
  { ref: '1', subject: 'Analyse code', description: '', status: 'completed', activeForm: 'Analysing code', blockedBy: [] },
  { ref: '2', subject: 'Refactor auth', description: '', status: 'in_progress', activeForm: 'Refactoring auth', blockedBy: [] },
  { ref: '3', subject: 'Run tests', description: '', status: 'pending', activeForm: 'Running tests', blockedBy: [] },
];

function refusal(text: string, format: ImportFormatChoice = 'auto'): string {
  try {
    parseImportText(text, format);
  } catch (err) {
    expect(err).toBeInstanceOf(TasksError);
    expect((err as TasksError).code).toBe('usage');
    expect((err as Error).message).not.toContain('\n');
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('parseImportText on the real samples', () => {
  it('stream-json with TodoWrite: the last snapshot', () => {
    const s = parseImportText(fixture('stream-json-todowrite-v1.jsonl'), 'auto');
    expect(s.format).toBe('stream-json');
    expect(s.found).toMatch(/last TodoWrite snapshot, line 4 \(3 todos; 1 earlier snapshot superseded\)/);
    expect(s.items).toEqual(lastSnapshot);
    expect(s.warnings).toEqual([]);
  });

  it('a transcript with TodoWrite: the same snapshot, told apart as a transcript', () => {
    const s = parseImportText(fixture('transcript-todowrite-v1.jsonl'), 'auto');
    expect(s.format).toBe('transcript');
    expect(s.found).toMatch(/line 23/);
    expect(s.items).toEqual(lastSnapshot);
  });

  it('an explicit format is used as given', () => {
    expect(parseImportText(fixture('transcript-todowrite-v1.jsonl'), 'stream-json').format).toBe('stream-json');
  });
});

describe('TodoWrite shapes', () => {
  it('a bare array, {"todos"}, {"newTodos"} and the oldest {id, content, status, priority}', () => {
    const todos = [todo('A', 'completed', 'Aing'), todo('B')];
    for (const text of [JSON.stringify(todos), JSON.stringify({ todos }), JSON.stringify({ oldTodos: [], newTodos: todos })]) {
      const s = parseImportText(text, 'auto');
      expect(s.format).toBe('todowrite');
      expect(s.items.map((i) => [i.ref, i.subject, i.status, i.activeForm])).toEqual([
        ['1', 'A', 'completed', 'Aing'],
        ['2', 'B', 'pending', undefined],
      ]);
    }
    const oldest = parseImportText(JSON.stringify([{ id: '1', content: 'Old', status: 'in_progress', priority: 'high' }]), 'todowrite');
    expect(oldest.found).toMatch(/old todos file/);
    expect(oldest.items[0]).toMatchObject({ subject: 'Old', status: 'in_progress', metadata: { priority: 'high' } });
  });

  it('an empty array is an empty snapshot, not an error', () => {
    expect(parseImportText('[]', 'auto').items).toEqual([]);
  });

  it('names the item and the field that is wrong', () => {
    expect(refusal(JSON.stringify([todo('A'), todo('B', 'finished')]))).toBe(
      // The second item: people count from 1 (an index in a document counts from 0, as in jq).
      'item 2: status: expected pending, in_progress, completed, got "finished"',
    );
    // The short forms the command line takes are taken here too.
    const short = parseImportText(JSON.stringify([todo('A', 'done'), todo('B', 'todo'), todo('C', 'active')]), 'todowrite');
    expect(short.items.map((i) => i.status)).toEqual(['completed', 'pending', 'in_progress']);
    expect(refusal(JSON.stringify({ todos: [todo('A'), { status: 'pending' }] }))).toBe('todos[1].content: missing (expected string)');
    expect(refusal(JSON.stringify({ todos: [todo('  ')] }))).toBe('todos[0].content: must not be empty');
    expect(refusal(JSON.stringify({ todos: 'x' }))).toBe('todos: expected an array of todos, got a string');
    expect(refusal(JSON.stringify([todo('A'), 7]), 'todowrite')).toBe(
      'item 2: expected a todo object {content, status, activeForm}, got a number',
    );
  });
});

describe('tasks from another list', () => {
  const task = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    subject: `T${id}`,
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    ...extra,
  });

  it('keeps edges from either side and drops those to tasks outside the import', () => {
    const s = parseImportText(
      JSON.stringify([task('4', { blocks: ['7'] }), task('7'), task('9', { blockedBy: ['7', '12'], owner: 'amy', custom: 1 })]),
      'auto',
    );
    expect(s.format).toBe('tasks');
    expect(s.items.map((i) => [i.ref, i.blockedBy])).toEqual([
      ['4', []],
      ['7', ['4']],
      ['9', ['7']],
    ]);
    expect(s.items[2]).toMatchObject({ owner: 'amy', extra: { custom: 1 } });
    expect(s.warnings).toEqual(['#9 names #12 in its blockedBy, which is not in the import: dropped']);
  });

  it('reads JSON Lines of tasks and a single task', () => {
    expect(
      parseImportText(`${JSON.stringify(task('1'))}\n${JSON.stringify(task('2', { blockedBy: ['1'] }))}\n`, 'auto').items.map(
        (i) => i.blockedBy,
      ),
    ).toEqual([[], ['1']]);
    expect(parseImportText(JSON.stringify(task('3')), 'auto').items).toHaveLength(1);
  });

  it('refuses an invalid task or a repeated id, naming it', () => {
    expect(refusal(JSON.stringify([task('1'), { ...task('2'), owner: null }]))).toBe(
      'item 2: not a task: owner: Expected string, received null',
    );
    expect(refusal(JSON.stringify([task('1'), task('1')]))).toBe('item 2: task id "1" appears twice (also item 1)');
    expect(refusal(`${JSON.stringify(task('1'))}\n${JSON.stringify({ ...task('2'), status: 'deleted' })}`, 'tasks')).toMatch(
      /^line 2: not a task: status:/,
    );
  });
});

describe('bad input', () => {
  it('empty, whitespace, a BOM alone', () => {
    for (const text of ['', '  \n\n', '\uFEFF']) expect(refusal(text)).toBe('the input is empty');
  });

  it('JSON Lines cut short: names the last line', () => {
    const lines = fixture('stream-json-todowrite-v1.jsonl').trimEnd().split('\n');
    const cut = [...lines.slice(0, 4), (lines[4] ?? '').slice(0, 80)].join('\n');
    expect(refusal(cut)).toMatch(/^line 5: not valid JSON \(.*\); the input looks cut short$/);
  });

  it('a broken line in the middle', () => {
    expect(refusal('{"type":"system"}\n{oops}\n{"type":"result"}')).toMatch(/^line 2: not valid JSON \(/);
    expect(refusal('{"type":"system"}\n[1]')).toBe('line 2: expected a JSON object, got an array');
  });

  it('one broken document: its own error, with line and column', () => {
    expect(refusal('{\n  "todos": [\n    {"content": "a",, }\n  ]\n}')).toMatch(/^not valid JSON: .* at line 3, column \d+$/);
  });

  it('wrong shapes', () => {
    expect(refusal('{"a": 1}')).toBe(
      'unrecognised input: an object with keys a; expected a TodoWrite snapshot, tasks, or Claude Code JSON Lines',
    );
    expect(refusal('42')).toMatch(/^unrecognised input: a number/);
    expect(refusal('[{"x": 1}]')).toBe(
      'item 1: neither a todo {content, status, activeForm} nor a task {id, subject, ...}: got an object with keys x',
    );
    // The second item is the odd one, not the first.
    expect(refusal('[{"id":"1","subject":"a","blocks":[]},{"y": 2}]')).toBe(
      'item 2: neither a todo {content, status, activeForm} nor a task {id, subject, ...}: got an object with keys y',
    );
    // Todos and tasks together: neither is odd, the mix is.
    expect(refusal('[{"content":"a","status":"pending","activeForm":"A"},{"id":"1","subject":"b","blocks":[]}]')).toBe(
      'the array mixes todos and tasks (item 1 is a todo, item 2 a task): import one kind at a time',
    );
    expect(refusal('[{"id":"1","subject":"b","blocks":[]},{"content":"a","status":"pending","activeForm":"A"}]')).toBe(
      'the array mixes todos and tasks (item 2 is a todo, item 1 a task): import one kind at a time',
    );
    // The same mix one a line: not a stream with no "type", but the mix, by line (blank lines count).
    const todoLine = '{"content":"a","status":"pending","activeForm":"A"}';
    const taskLine = '{"id":"1","subject":"b","description":"","status":"pending","blocks":[],"blockedBy":[]}';
    expect(refusal(`${todoLine}\n${taskLine}`)).toBe(
      'the lines mix todos and tasks (line 1 is a todo, line 2 a task): import one kind at a time',
    );
    expect(refusal(`${taskLine}\n\n${todoLine}\n${todoLine}`)).toBe(
      'the lines mix todos and tasks (line 3 is a todo, line 1 a task): import one kind at a time',
    );
    // A Claude Code entry with content is no todo: a stream with tasks on its lines stays a stream.
    expect(refusal(`{"type":"system","content":"x"}\n${taskLine}`)).toBe(
      'no TodoWrite snapshot and no Task tool calls in this stream-json (2 lines)',
    );
    expect(refusal('{"a": 1}', 'todowrite')).toMatch(/^not a TodoWrite snapshot/);
    expect(refusal('{"type":"a"}\n{"type":"b"}', 'todowrite')).toMatch(/the input is JSON Lines/);
    // Todos one a line are read; a bad one is named by its line.
    expect(refusal(`${todoLine}\n\n{"content":"b","status":"doing"}`)).toMatch(/^line 3: /);
    expect(refusal(`${todoLine}\n{"content":"b","status":"doing"}`, 'todowrite')).toMatch(/^line 2: /);
    expect(refusal('{"a":1}\n{"b":2}')).toMatch(/no line has a "type"/);
  });

  it('todos one a line, as jq -c ".[]" prints a todos array', () => {
    const lines = [
      '{"content":"Plan","status":"completed","activeForm":"Planning"}',
      '',
      '{"content":"Build","status":"in_progress","activeForm":"Building"}',
      '{"content":"Ship","status":"pending","activeForm":"Shipping"}',
    ].join('\n');
    // One todo alone: a one-item array through jq -c.
    for (const choice of ['auto', 'todowrite'] as const) {
      const one = parseImportText('{"content":"Only","status":"in_progress","activeForm":"Doing"}\n', choice);
      expect([one.found, one.items.map((i) => [i.subject, i.status])]).toEqual(['todos, one a line (1 todo)', [['Only', 'in_progress']]]);
    }
    // Tasks that keep a `content` key of their own (unknown keys are kept and exported) stay tasks.
    const withContent = [
      '{"id":"1","subject":"Fix auth","description":"d","status":"pending","blocks":["2"],"blockedBy":[],"content":"legacy"}',
      '{"id":"2","subject":"Write tests","description":"","status":"in_progress","blocks":[],"blockedBy":["1"],"content":"x"}',
    ].join('\n');
    const tasks = parseImportText(withContent, 'auto');
    expect([tasks.format, tasks.items.map((i) => [i.ref, i.subject, i.blockedBy])]).toEqual([
      'tasks',
      [
        ['1', 'Fix auth', []],
        ['2', 'Write tests', ['1']],
      ],
    ]);
    expect(() => parseImportText(`{"content":"a","status":"pending","activeForm":"A"}\n${withContent}`, 'auto')).toThrow(
      /^the lines mix todos and tasks \(line 1 is a todo, line 2 a task\)/,
    );
    // A line that is neither, among todos: named, as an array's item is.
    expect(() => parseImportText('{"content":"a","status":"pending","activeForm":"A"}\n{"foo":1}', 'auto')).toThrow(
      /^line 2: neither a todo \{content, status, activeForm\} nor a task \{id, subject, \.\.\.\}: got an object with keys foo$/,
    );
    for (const choice of ['auto', 'todowrite'] as const) {
      const snap = parseImportText(lines, choice);
      expect(snap.format).toBe('todowrite');
      expect(snap.found).toBe('todos, one a line (3 todos)');
      expect(snap.items.map((i) => [i.ref, i.subject, i.status, i.activeForm])).toEqual([
        ['1', 'Plan', 'completed', 'Planning'],
        ['2', 'Build', 'in_progress', 'Building'],
        ['3', 'Ship', 'pending', 'Shipping'],
      ]);
    }
  });

  it('a stream with neither TodoWrite nor Task tools', () => {
    expect(refusal('{"type":"system","session_id":"s"}\n{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}')).toBe(
      'no TodoWrite snapshot and no Task tool calls in this stream-json (2 lines)',
    );
  });

  it('a malformed last TodoWrite names its line', () => {
    const use = (todos: unknown) =>
      JSON.stringify({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'TodoWrite', input: { todos } }] },
      });
    expect(refusal(`{"type":"system"}\n${use([{ content: 'a', status: 'nope', activeForm: 'A' }])}`)).toBe(
      'line 2: TodoWrite todos[0].status: expected pending, in_progress, completed, got "nope"',
    );
  });
});
