import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import { callsOf, createdId } from './stream.js';
import { TasksCli } from './tasks-cli.js';

/**
 * Scenario 3: ids are never reused, whichever side deleted and whichever side creates
 * next. The deleted task is always the highest one, so only the high-water mark can
 * carry its id: a side that ignores the mark (or does not raise it) reuses the id.
 */

const mark = (cli: TasksCli) => fs.readFileSync(path.join(cli.dir, '.highwatermark'), 'utf8');

describe('scenario 3: deleted ids stay used on both sides', () => {
  it('tasks delete, then the agent creates: the agent takes a fresh id', async () => {
    const config = tempConfig();
    const cli = new TasksCli(config, 'ids-a');
    for (const subject of ['One', 'Two', 'Three']) await cli.ok('create', subject);
    expect(await cli.ok('delete', '3')).toBe('Deleted task #3: Three\n');
    expect(mark(cli)).toBe('3');

    const { stream } = await runAgent({
      configDir: config,
      listId: cli.listId,
      turns: [[{ name: 'TaskCreate', input: { subject: 'Four', description: 'after a delete' } }], [{ name: 'TaskList', input: {} }]],
    });
    const [create] = callsOf(stream, 'TaskCreate');
    expect(create?.text).toBe('Task #4 created successfully: Four');
    expect(createdId(create!)).toBe('4');
    expect(callsOf(stream, 'TaskList')[0]?.text).toBe('#1 [pending] One\n#2 [pending] Two\n#4 [pending] Four');
    expect([...cli.files().keys()].sort()).toEqual(['1', '2', '4']);
    expect((await cli.list()).map((t) => [t.id, t.subject])).toEqual([
      ['1', 'One'],
      ['2', 'Two'],
      ['4', 'Four'],
    ]);
  });

  it('the agent deletes (TaskUpdate status deleted), then tasks creates: tasks takes a fresh id', async () => {
    const config = tempConfig();
    const cli = new TasksCli(config, 'ids-b');
    const { stream } = await runAgent({
      configDir: config,
      listId: cli.listId,
      turns: [
        [
          { name: 'TaskCreate', input: { subject: 'One', description: '' } },
          { name: 'TaskCreate', input: { subject: 'Two', description: '' } },
          { name: 'TaskCreate', input: { subject: 'Three', description: '' } },
        ],
        [{ name: 'TaskUpdate', input: { taskId: '2', addBlocks: ['3'] } }],
        [{ name: 'TaskUpdate', input: { taskId: '3', status: 'deleted' } }],
      ],
    });
    expect(callsOf(stream, 'TaskUpdate').at(-1)?.text).toBe('Updated task #3 deleted');
    expect(mark(cli)).toBe('3');
    expect(cli.files().get('2')).toMatchObject({ blocks: [] });

    expect(await cli.ok('create', 'Four')).toBe('4\n');
    expect(await cli.json('get', '4')).toMatchObject({ id: '4', subject: 'Four' });
    expect([...cli.files().keys()].sort()).toEqual(['1', '2', '4']);

    // And back to the agent once more: after our create and delete of #4, it goes on at 5.
    expect(await cli.ok('delete', '4')).toBe('Deleted task #4: Four\n');
    const again = await runAgent({
      configDir: config,
      listId: cli.listId,
      turns: [[{ name: 'TaskCreate', input: { subject: 'Five', description: '' } }]],
    });
    expect(callsOf(again.stream, 'TaskCreate')[0]?.text).toBe('Task #5 created successfully: Five');
    expect(mark(cli)).toBe('4');
  });
});
