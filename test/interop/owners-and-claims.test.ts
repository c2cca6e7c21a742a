import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/store/schema.js';
import { tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import { taskListData, taskListText } from './agent-views.js';
import { callsOf } from './stream.js';
import { TasksCli } from './tasks-cli.js';

/**
 * Scenario 6: owners set by agents and by `tasks`, and claims, with the agents' rules
 * (docs/task-store.md sections 6.2 and 6.5).
 *
 * - TaskUpdate's owner rule: setting `owner` replaces whatever owner there was (that is
 *   how agents claim and hand over work), changes nothing else, and `owner: ""` is stored
 *   as is (an empty owner counts as nobody). `tasks update --owner/--no-owner` must give
 *   the agent the same picture: the new owner, or no `owner` key at all (never `null`,
 *   which would hide the task from agents).
 * - claim(id, agent), checked in this order: task_not_found, already_claimed (owned by
 *   someone else; your own is fine), already_resolved (completed), blocked (an open
 *   blocker that exists), and with the busy check agent_busy. Success sets only `owner`.
 *   `tasks claim` comes with its own issue; until this build has it, that part is skipped
 *   with a message.
 */

describe('scenario 6: owners and claims', () => {
  it("owners set by tasks update and by the agent's TaskUpdate follow the agents' rules on both sides", async () => {
    const config = tempConfig();
    const cli = new TasksCli(config, 'owners');
    await runAgent({
      configDir: config,
      listId: cli.listId,
      turns: [
        [
          { name: 'TaskCreate', input: { subject: 'Build', description: 'make' } },
          { name: 'TaskCreate', input: { subject: 'Test', description: 'make test' } },
          { name: 'TaskCreate', input: { subject: 'Ship', description: 'make ship' } },
        ],
        [
          { name: 'TaskUpdate', input: { taskId: '1', owner: 'alice', status: 'in_progress' } },
          { name: 'TaskUpdate', input: { taskId: '2', owner: 'alice' } },
        ],
      ],
    });
    expect(cli.files().get('1')).toMatchObject({ owner: 'alice', status: 'in_progress' });

    // Hand over, unassign and assign with tasks: as TaskUpdate does, owner only.
    expect(await cli.ok('update', '1', '--owner', 'bob')).toBe('Updated task #1 owner\n');
    expect(await cli.ok('update', '2', '--no-owner')).toBe('Updated task #2 owner\n');
    expect(await cli.ok('update', '3', '--owner', 'carol', '--status', 'in_progress')).toBe('Updated task #3 owner, status\n');
    const afterOurs = cli.files();
    expect(afterOurs.get('1')).toMatchObject({ owner: 'bob', status: 'in_progress' });
    expect(Object.keys(afterOurs.get('2') as Task)).not.toContain('owner');
    expect(cli.raw('2')).not.toContain('null');

    const { stream } = await runAgent({
      configDir: config,
      listId: cli.listId,
      turns: [
        [{ name: 'TaskList', input: {} }],
        [
          { name: 'TaskUpdate', input: { taskId: '2', owner: 'dave' } },
          { name: 'TaskUpdate', input: { taskId: '3', owner: '' } },
          { name: 'TaskUpdate', input: { taskId: '1', owner: 'bob' } },
        ],
        [{ name: 'TaskList', input: {} }],
      ],
    });
    const [before, after] = callsOf(stream, 'TaskList');
    expect(before?.text).toBe('#1 [in_progress] Build (bob)\n#2 [pending] Test\n#3 [in_progress] Ship (carol)');
    expect((before!.data as { tasks: unknown }).tasks).toEqual(
      taskListData([...afterOurs.values()].sort((a, b) => Number(a.id) - Number(b.id))),
    );

    // The agent takes #2 and empties #3's owner; setting bob again on #1 changes nothing.
    expect(callsOf(stream, 'TaskUpdate').map((c) => c.text)).toEqual([
      'Updated task #2 owner',
      'Updated task #3 owner',
      'Updated task #1 ',
    ]);
    const listed = await cli.list();
    expect(after?.text).toBe(taskListText(listed));
    expect(after?.text).toBe('#1 [in_progress] Build (bob)\n#2 [pending] Test (dave)\n#3 [in_progress] Ship');
    expect(await cli.json('get', '3')).toMatchObject({ owner: '', status: 'in_progress' });
    // An empty owner is nobody, for us as for the agents.
    expect((await cli.list('--unowned')).map((t) => t.id)).toEqual(['3']);
    expect((await cli.list('--owner', 'dave')).map((t) => t.id)).toEqual(['2']);
    expect((await cli.ok('list')).split('\n')[2]).toBe('3\tin_progress\t-\t-\tShip');
  });

  it("tasks claim gives the outcomes of the agents' claim rules on a list the agent set up", async (ctx) => {
    const config = tempConfig();
    const cli = new TasksCli(config, 'claims');
    // Commander answers `--help` after an unknown command with the root help and exit 0:
    // the command is there only if its own usage line comes back.
    const help = await cli.run('claim', '--help');
    if (help.code !== 0 || !help.stdout.startsWith('Usage: tasks claim')) {
      const note = '`tasks claim --help` fails: this build has no claim command yet, so the claim rules are not checked here';
      console.warn(`skipped: ${note}`);
      ctx.skip(note);
    }

    await runAgent({
      configDir: config,
      listId: cli.listId,
      turns: [
        ['Owned by alice', 'Free', 'Done by alice', 'Done', 'Blocked by open', 'Blocked by done', 'Blocked by missing', 'Free too'].map(
          (subject) => ({ name: 'TaskCreate' as const, input: { subject, description: '' } }),
        ),
        [
          { name: 'TaskUpdate', input: { taskId: '1', owner: 'alice', status: 'in_progress' } },
          { name: 'TaskUpdate', input: { taskId: '3', owner: 'alice', status: 'completed' } },
          { name: 'TaskUpdate', input: { taskId: '4', status: 'completed' } },
          { name: 'TaskUpdate', input: { taskId: '5', addBlockedBy: ['2'] } },
          { name: 'TaskUpdate', input: { taskId: '6', addBlockedBy: ['4'] } },
        ],
      ],
    });
    // A blocker that names no task (the agents' delete cleans edges, so this is made by
    // hand, as a crash between the unlink and the clean-up would leave it): it does not block.
    const seven = JSON.parse(cli.raw('7')) as Task;
    fs.writeFileSync(path.join(cli.dir, '7.json'), JSON.stringify({ ...seven, blockedBy: ['99'] }, null, 2));

    const refused = async (id: string, agent: string, reason: string, ...flags: string[]) => {
      const before = cli.raw(id);
      const r = await cli.run('claim', id, '--as', agent, ...flags, '--json');
      expect(r.code, `claim #${id} as ${agent}: ${r.stderr}`).toBe(4);
      expect(`${r.stdout}${r.stderr}`, `claim #${id} as ${agent}`).toContain(reason);
      expect(cli.raw(id), `#${id} unchanged after a refused claim`).toBe(before);
    };
    const granted = async (id: string, agent: string, ...flags: string[]) => {
      const before = JSON.parse(cli.raw(id)) as Task;
      const r = await cli.run('claim', id, '--as', agent, ...flags, '--json');
      expect(r.code, `claim #${id} as ${agent}: ${r.stderr}`).toBe(0);
      // Only the owner changes; the status stays as it was.
      expect(JSON.parse(cli.raw(id))).toEqual({ ...before, owner: agent });
    };

    await refused('1', 'bob', 'already_claimed');
    await granted('1', 'alice'); // your own task
    await refused('3', 'bob', 'already_claimed'); // owner is checked before status
    await refused('3', 'alice', 'already_resolved');
    await refused('4', 'bob', 'already_resolved');
    await refused('5', 'bob', 'blocked');
    await granted('6', 'bob'); // its blocker is completed
    await granted('7', 'carol'); // its blocker does not exist
    await refused('8', 'alice', 'agent_busy', '--busy-check'); // alice still has #1 open
    await granted('8', 'dave', '--busy-check');
    const missing = await cli.run('claim', '99', '--as', 'bob', '--json');
    expect(missing.code).toBe(3);

    const { stream } = await runAgent({ configDir: config, listId: cli.listId, turns: [[{ name: 'TaskList', input: {} }]] });
    const listed = await cli.list();
    expect(callsOf(stream, 'TaskList')[0]?.text).toBe(taskListText(listed));
    expect(listed.map((t) => [t.id, t.owner ?? null])).toEqual([
      ['1', 'alice'],
      ['2', null],
      ['3', 'alice'],
      ['4', null],
      ['5', null],
      ['6', 'bob'],
      ['7', 'carol'],
      ['8', 'dave'],
    ]);
  });
});
