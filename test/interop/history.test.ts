/**
 * Interop: who changed what. A real Claude Code session creates, updates, claims and
 * completes tasks in its own list; between its turns a person reassigns one task and
 * unblocks another with `tasks`. `tasks log` then shows every change in order, each with
 * its author: the agent of that session (from its transcript) or the person (from the
 * journal).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';

const create = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject} (agent)` } }];
const update = (input: Record<string, unknown>): Turn => [{ name: 'TaskUpdate', input }];

describe('the real Claude Code and tasks: one history', () => {
  it('tasks log names every change and its author, in order; log 4 --json is exact', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const env = { USER: 'carol' };
    let sessionList = '';
    const tasks = (...args: string[]) => runAsync(config, ['-l', sessionList, ...args], { cwd: project, env });
    const turns: Turn[] = [
      create('Plan'),
      create('Build'),
      create('Test'),
      create('Ship'),
      update({ taskId: '4', addBlockedBy: ['2'] }),
      update({ taskId: '1', status: 'in_progress', owner: 'agent-a' }),
      update({ taskId: '1', status: 'completed' }),
      update({ taskId: '4', status: 'in_progress' }),
    ];
    const run = await runAgent({
      configDir: config,
      listId: undefined,
      cwd: project,
      prompt: 'ship the release',
      turns,
      beforeTurn: async (i) => {
        if (i !== 7) return;
        // Between the agent's turns: a person reassigns #3 and unblocks #4.
        sessionList = fs.readdirSync(path.join(config, 'tasks')).filter((f) => !f.startsWith('.'))[0] as string;
        expect(await tasks('update', '3', '--owner', 'bob')).toMatchObject({ code: 0 });
        expect(await tasks('unblock', '4', '--by', '2')).toMatchObject({ code: 0 });
      },
    });
    const session = run.stream.sessionId as string;
    expect(sessionList).toBe(session);

    const log = await tasks('log');
    expect(log.code, log.stderr).toBe(0);
    // Piped: tab-separated (time, task, who, what).
    const lines = log.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t').slice(1).join('  '));
    const agent = `agent of session ${session.slice(0, 8)}`;
    expect(lines).toEqual([
      `#1  ${agent}  created Plan`,
      `#2  ${agent}  created Build`,
      `#3  ${agent}  created Test`,
      `#4  ${agent}  created Ship`,
      `#4  ${agent}  blocked by #2`,
      `#1  ${agent}  status pending → in_progress, owner (none) → agent-a`,
      `#1  ${agent}  status in_progress → completed`,
      '#3  carol (person)  owner (none) → bob',
      '#4  carol (person)  no longer blocked by #2',
      '#2  carol (person)  no longer blocks #4',
      `#4  ${agent}  status pending → in_progress`,
    ]);
    expect(log.stderr).toMatch(/^history from \S+ \S+ \(the journal of tasks' own changes, and 1 transcript of this list's sessions\)\n$/);

    // One document: the changes as an array.
    const json = JSON.parse((await tasks('log', '4', '--json')).stdout) as Array<Record<string, unknown>>;
    const who = { kind: 'agent', name: null, session };
    const person = { kind: 'person', name: 'carol', session: null };
    const fromAgent = { list: session, source: 'transcript', command: null, txn: null };
    expect(json).toEqual([
      {
        at: expect.any(String),
        task: '4',
        op: 'create',
        who,
        changes: { subject: { new: 'Ship' }, description: { new: 'Ship (agent)' }, status: { new: 'pending' } },
        ...fromAgent,
      },
      {
        at: expect.any(String),
        task: '4',
        op: 'update',
        who,
        changes: { blockedBy: { old: [], new: ['2'] } },
        ...fromAgent,
      },
      {
        at: expect.any(String),
        task: '4',
        op: 'update',
        who: person,
        changes: { blockedBy: { old: ['2'], new: [] } },
        list: session,
        source: 'journal',
        command: 'unblock',
        txn: expect.any(String),
      },
      {
        at: expect.any(String),
        task: '4',
        op: 'update',
        who,
        changes: { status: { old: 'pending', new: 'in_progress' } },
        ...fromAgent,
      },
    ]);
    const times = json.map((e) => Date.parse(e.at as string));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // get ends with the last change, the agent's.
    expect((await tasks('get', '4')).stdout).toMatch(new RegExp(`last changed \\d+s ago by ${agent}: status pending → in_progress\\n$`));
  });
});
