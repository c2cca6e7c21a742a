import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/store/schema.js';
import { tempConfig } from '../helpers/cli.js';
import { claudeVersion, runAgent } from './agent.js';
import { taskGetData, taskGetText, taskGetViewFor, taskListData, taskListText } from './agent-views.js';
import { callsOf } from './stream.js';
import { TasksCli } from './tasks-cli.js';

/**
 * Scenario 2: `tasks` creates, blocks, assigns, completes and deletes; the agent's
 * TaskList and TaskGet then show exactly that (ids, statuses, owners, "blocked by"), and
 * not one of our files is dropped by its schema check (a dropped file reads as
 * "Task not found" in TaskGet and is missing from TaskList).
 */

describe('scenario 2: tasks writes, the agent reads', () => {
  it("the agent's TaskList and TaskGet match every change made with tasks", async () => {
    const config = tempConfig();
    const cli = new TasksCli(config, 'tasks-writes');

    expect(await cli.ok('create', 'Analyse code', '-d', 'Read src/ and list modules', '--active-form', 'Analysing code')).toBe('1\n');
    expect(await cli.ok('create', 'Refactor auth', '-d', 'Split auth.py')).toBe('2\n');
    expect(await cli.ok('create', 'Refactor api', '-d', 'Split api.py')).toBe('3\n');
    expect(await cli.ok('create', 'Run tests', '-d', 'npm test', '--meta', 'priority=high')).toBe('4\n');
    expect(await cli.ok('create', 'Write changelog', '-d', 'docs', '--owner', 'writer')).toBe('5\n');
    expect(await cli.ok('create', 'Bookkeeping', '--meta', '_internal:=true')).toBe('6\n');
    expect(await cli.ok('create', 'Release', '-d', 'tag and publish', '--blocked-by', '4,5')).toBe('7\n');

    // Block with update flags (both sides written), assign, start, complete, unassign, delete.
    expect(await cli.ok('update', '4', '--add-blocked-by', '2,3')).toBe('Updated task #4 blockedBy\n');
    expect(await cli.ok('update', '2', '--add-blocked-by', '1')).toBe('Updated task #2 blockedBy\n');
    expect(await cli.ok('update', '1', '--owner', 'researcher', '--status', 'in_progress')).toBe('Updated task #1 owner, status\n');
    expect(await cli.ok('update', '1', '--status', 'completed')).toBe('Updated task #1 status\n');
    expect(await cli.ok('update', '3', '--owner', 'bob')).toBe('Updated task #3 owner\n');
    expect(await cli.ok('update', '5', '--no-owner')).toBe('Updated task #5 owner\n');
    expect(await cli.ok('update', '2', '--owner', 'alice', '--meta', 'estimate:=3')).toBe('Updated task #2 owner, metadata\n');
    expect(await cli.ok('delete', '3')).toBe('Deleted task #3: Refactor api (removed from #4)\n');

    // Every task file we left, valid or not: the agent is asked for each of them.
    const ids = fs
      .readdirSync(cli.dir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.replace(/\.json$/, ''))
      .sort((a, b) => Number(a) - Number(b));
    expect(ids).toEqual(['1', '2', '4', '5', '6', '7']);

    const { stream } = await runAgent({
      configDir: config,
      listId: cli.listId,
      turns: [
        [{ name: 'TaskList', input: {} }],
        ids.map((id) => ({ name: 'TaskGet' as const, input: { taskId: id } })),
        [{ name: 'TaskGet', input: { taskId: '3' } }],
      ],
    });

    const [taskList] = callsOf(stream, 'TaskList');
    // Exactly what the agent must be shown, spelled out once by hand.
    expect(taskList?.text).toBe(
      [
        '#1 [completed] Analyse code (researcher)',
        '#2 [pending] Refactor auth (alice)',
        '#4 [pending] Run tests [blocked by #2]',
        '#5 [pending] Write changelog',
        '#7 [pending] Release [blocked by #4, #5]',
      ].join('\n'),
    );
    // ...and it is what our own reading of the list says the agent sees.
    const files = cli.files();
    expect(files.get('5')).not.toHaveProperty('owner');
    const listed: Task[] = await cli.list('--all');
    expect(listed.map((t) => t.id)).toEqual(ids);
    expect(taskList?.text).toBe(taskListText(listed));
    expect((taskList!.data as { tasks: unknown }).tasks).toEqual(taskListData(listed));

    // TaskGet found every file we wrote (none dropped by its schema check), _internal included.
    const gets = callsOf(stream, 'TaskGet');
    const view = taskGetViewFor(claudeVersion(), files.values());
    for (const [i, id] of ids.entries()) {
      const task = files.get(id) as Task;
      expect(gets[i]?.text, `TaskGet ${id}`).toBe(taskGetText(task, view));
      expect((gets[i]!.data as { task: unknown }).task).toEqual(taskGetData(task, view));
    }
    expect(gets[ids.indexOf('4')]?.text).toBe('Task #4: Run tests\nStatus: pending\nDescription: npm test\nBlocked by: #2\nBlocks: #7');
    expect(gets.at(-1)).toMatchObject({ text: 'Task not found', data: { task: null } });

    // The agent's reads changed nothing.
    for (const id of ids) expect(cli.raw(id)).toBe(JSON.stringify(files.get(id), null, 2));
    expect(fs.readFileSync(path.join(cli.dir, '.highwatermark'), 'utf8')).toBe('3');
  });
});
