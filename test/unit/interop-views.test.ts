import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Task, taskSchemas } from '../../src/core/store/schema.js';
import { FIXTURES } from '../helpers/cli.js';
import { taskGetData, taskGetText, taskListData, taskListText } from '../interop/agent-views.js';
import { callsOf, createdId, parseStream } from '../interop/stream.js';

/**
 * The interop suite's two readers, checked against what the real agent recorded
 * (fixtures from Claude Code 2.1.328): the stream parser, and our rendering of what
 * TaskList and TaskGet show for a set of files.
 */
const stream = parseStream(fs.readFileSync(path.join(FIXTURES, 'stream-json-tasks-v2.jsonl'), 'utf8'));
const listDir = path.join(FIXTURES, 'tasks', 'refactor-auth');
const files: Task[] = fs
  .readdirSync(listDir)
  .filter((n) => n.endsWith('.json'))
  .map((n) => taskSchemas().TaskSchema.parse(JSON.parse(fs.readFileSync(path.join(listDir, n), 'utf8'))))
  .sort((a, b) => Number(a.id) - Number(b.id));

describe('parseStream', () => {
  it('pairs every tool call with its text and structured result', () => {
    expect(stream.version).toBe('2.1.328');
    expect(stream.resultSubtype).toBe('success');
    expect(stream.junk).toEqual([]);
    expect(stream.calls.map((c) => c.name)).toEqual([
      'TaskCreate',
      'TaskCreate',
      'TaskCreate',
      'TaskCreate',
      'TaskUpdate',
      'TaskUpdate',
      'TaskUpdate',
      'TaskUpdate',
      'TaskUpdate',
      'TaskUpdate',
      'TaskCreate',
      'TaskList',
      'TaskGet',
      'TaskGet',
      'TaskUpdate',
    ]);
    expect(stream.calls.every((c) => c.answered)).toBe(true);
    expect(callsOf(stream, 'TaskCreate').map(createdId)).toEqual(['1', '2', '3', '4', '5']);
    const update = callsOf(stream, 'TaskUpdate')[2];
    expect(update).toMatchObject({
      input: { taskId: '1', status: 'in_progress', owner: 'researcher' },
      text: 'Updated task #1 owner, status',
      data: { success: true, taskId: '1', updatedFields: ['owner', 'status'] },
    });
    expect(callsOf(stream, 'TaskGet')[1]).toMatchObject({ text: 'Task not found', data: { task: null } });
  });
});

describe('agent views of a list', () => {
  it('TaskList text and data match what the agent was shown for these files', () => {
    const [list] = callsOf(stream, 'TaskList');
    expect(taskListText(files)).toBe(list?.text);
    expect(taskListData(files)).toEqual((list!.data as { tasks: unknown }).tasks);
  });

  it('TaskGet text and data match too', () => {
    const [get] = callsOf(stream, 'TaskGet');
    const four = files.find((t) => t.id === '4') as Task;
    expect(taskGetText(four)).toBe(get?.text);
    expect(taskGetData(four)).toEqual((get!.data as { task: unknown }).task);
  });

  it('hides _internal tasks; an empty list says so', () => {
    const hidden = { ...files[0], metadata: { _internal: true } } as Task;
    expect(taskListText([hidden])).toBe('No tasks found');
  });
});
