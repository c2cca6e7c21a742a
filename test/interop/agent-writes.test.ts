import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/store/schema.js';
import { tempConfig } from '../helpers/cli.js';
import { claudeVersion, runAgent } from './agent.js';
import { taskGetData, taskGetText, taskGetViewFor, taskListData, taskListText } from './agent-views.js';
import type { Turn } from './mock-model.js';
import { callsOf, createdId } from './stream.js';
import { TasksCli } from './tasks-cli.js';

/**
 * Scenario 1: the agent creates, links and updates tasks; `tasks list --json` and
 * `tasks get` show exactly that. Eleven tasks, so that numeric id order ("10" after "9")
 * is exercised, and the agent's own TaskList/TaskGet are compared with ours.
 */

const docs = [5, 6, 7, 8, 9, 10, 11].map((n) => ({
  name: 'TaskCreate' as const,
  input: { subject: `Write docs part ${n}`, description: `part ${n}` },
}));

const turns: Turn[] = [
  [
    { name: 'TaskCreate', input: { subject: 'Analyse code', description: 'Read src/ and list modules', activeForm: 'Analysing code' } },
    { name: 'TaskCreate', input: { subject: 'Refactor auth', description: 'Split auth.py', activeForm: 'Refactoring auth' } },
    { name: 'TaskCreate', input: { subject: 'Refactor api', description: 'Split api.py' } },
    { name: 'TaskCreate', input: { subject: 'Run tests', description: 'npm test', metadata: { priority: 'high' } } },
  ],
  docs,
  [
    { name: 'TaskUpdate', input: { taskId: '1', addBlocks: ['2', '3'] } },
    { name: 'TaskUpdate', input: { taskId: '4', addBlockedBy: ['2', '3'] } },
    { name: 'TaskUpdate', input: { taskId: '11', addBlockedBy: ['10', '9'] } },
  ],
  [
    { name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', owner: 'researcher' } },
    { name: 'TaskUpdate', input: { taskId: '2', subject: 'Refactor auth module', description: 'Split auth.py in two' } },
    { name: 'TaskUpdate', input: { taskId: '5', metadata: { n: 3, tags: ['a', 'b'] } } },
  ],
  [
    { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
    { name: 'TaskUpdate', input: { taskId: '10', status: 'completed' } },
  ],
  // A turn of its own: the agent runs one turn's calls at once, and its TaskUpdate merges
  // from a copy read before the task lock (docs/task-store.md section 6.2), so an update
  // of #1 beside the delete that cleans #3 out of #1's blocks could write '3' back (seen
  // once in CI-like runs).
  [{ name: 'TaskUpdate', input: { taskId: '3', status: 'deleted' } }],
  [{ name: 'TaskUpdate', input: { taskId: '4', metadata: { priority: null, note: 'after refactor' } } }],
  [
    { name: 'TaskList', input: {} },
    { name: 'TaskGet', input: { taskId: '4' } },
    { name: 'TaskGet', input: { taskId: '11' } },
    { name: 'TaskGet', input: { taskId: '3' } },
  ],
];

/** What the script must leave, written out by hand from the agents' rules. */
function expectedTasks(): Task[] {
  const plain = (id: string, subject: string, description: string, extra: Partial<Task> = {}): Task => ({
    id,
    subject,
    description,
    status: 'pending',
    blocks: [],
    blockedBy: [],
    ...extra,
  });
  return [
    plain('1', 'Analyse code', 'Read src/ and list modules', {
      activeForm: 'Analysing code',
      owner: 'researcher',
      status: 'completed',
      blocks: ['2'],
    }),
    plain('2', 'Refactor auth module', 'Split auth.py in two', { activeForm: 'Refactoring auth', blocks: ['4'], blockedBy: ['1'] }),
    // 3 deleted: gone from 1.blocks and 4.blockedBy too
    plain('4', 'Run tests', 'npm test', { blockedBy: ['2'], metadata: { note: 'after refactor' } }),
    plain('5', 'Write docs part 5', 'part 5', { metadata: { n: 3, tags: ['a', 'b'] } }),
    plain('6', 'Write docs part 6', 'part 6'),
    plain('7', 'Write docs part 7', 'part 7'),
    plain('8', 'Write docs part 8', 'part 8'),
    plain('9', 'Write docs part 9', 'part 9', { blocks: ['11'] }),
    plain('10', 'Write docs part 10', 'part 10', { status: 'completed', blocks: ['11'] }),
    plain('11', 'Write docs part 11', 'part 11', { blockedBy: ['10', '9'] }),
  ];
}

describe('scenario 1: the agent writes, tasks reads', () => {
  it('tasks list --json and tasks get show exactly what the agent created, linked and updated', async () => {
    const config = tempConfig();
    const cli = new TasksCli(config, 'agent-writes');
    const { stream } = await runAgent({ configDir: config, listId: cli.listId, turns });

    // The agent was told what we expect it to have done.
    expect(callsOf(stream, 'TaskCreate').map(createdId)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    expect(callsOf(stream, 'TaskUpdate').every((c) => c.text.startsWith('Updated task #'))).toBe(true);

    // Files: exactly the intended state, each valid for both readers.
    const expected = expectedTasks();
    const files = cli.files();
    expect([...files.keys()].sort((a, b) => Number(a) - Number(b))).toEqual(expected.map((t) => t.id));
    for (const task of expected) expect(files.get(task.id)).toEqual(task);
    expect(fs.readFileSync(path.join(cli.dir, '.highwatermark'), 'utf8')).toBe('3');

    // tasks list --json: the files, as they are, in numeric id order.
    const listed = await cli.list();
    expect(listed).toEqual(expected);
    expect(listed.map((t) => JSON.stringify(t, null, 2))).toEqual(expected.map((t) => cli.raw(t.id)));

    // tasks get --json for every task: the file itself.
    for (const task of expected) expect(await cli.json('get', task.id)).toEqual({ ...files.get(task.id), updatedAt: expect.any(String) });

    // Our reading agrees with the agent's own TaskList and TaskGet, text and data.
    const [taskList, get4, get11, get3] = stream.calls.slice(-4);
    expect(taskList?.text).toBe(taskListText(listed));
    expect((taskList!.data as { tasks: unknown }).tasks).toEqual(taskListData(listed));
    expect(taskList?.text).toContain('#11 [pending] Write docs part 11 [blocked by #9]');
    const four = files.get('4') as Task;
    const eleven = files.get('11') as Task;
    const view = taskGetViewFor(claudeVersion(), files.values());
    expect(get4).toMatchObject({ text: taskGetText(four, view), data: { task: taskGetData(four, view) } });
    expect(get11).toMatchObject({ text: taskGetText(eleven, view), data: { task: taskGetData(eleven, view) } });
    expect(get3).toMatchObject({ text: 'Task not found', data: { task: null } });
    expect(await cli.run('get', '3')).toMatchObject({ code: 3, stdout: '' });

    // Piped `tasks list`: id, status, owner, open blockers, subject; the same open blockers.
    const piped = await cli.run('list');
    expect(piped.stderr).toBe('10 tasks: 2 done, 0 in progress, 8 pending (2 blocked)\n');
    const lines = piped.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      '1\tcompleted\tresearcher\t-\tAnalyse code',
      '2\tpending\t-\t-\tRefactor auth module',
      '4\tpending\t-\t2\tRun tests',
      '5\tpending\t-\t-\tWrite docs part 5',
      '6\tpending\t-\t-\tWrite docs part 6',
      '7\tpending\t-\t-\tWrite docs part 7',
      '8\tpending\t-\t-\tWrite docs part 8',
      '9\tpending\t-\t-\tWrite docs part 9',
      '10\tcompleted\t-\t-\tWrite docs part 10',
      '11\tpending\t-\t9\tWrite docs part 11',
    ]);

    // tasks get (text): open and completed blockers told apart, as the agent tells them.
    const detail = await cli.ok('get', '11');
    expect(detail).toMatch(/Blocked by:\s+1 open\n\s+#9 Write docs part 9 .* open\n\s+#10 Write docs part 10 /);
    expect(cli.leftoverLocks()).toEqual([]);
  });
});
