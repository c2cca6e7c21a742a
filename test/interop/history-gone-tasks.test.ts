/**
 * Interop: a named list's history when none of the tasks its sessions wrote is left. A real
 * Claude Code session on a list named by CLAUDE_CODE_TASK_LIST_ID creates two tasks,
 * completes one and deletes both; another later creates a third on a shared list after
 * the first deleted its only task. `tasks log` of the list still finds the sessions (their
 * transcripts wrote to it) and shows every change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';

const create = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject} (agent)` } }];
const update = (input: Record<string, unknown>): Turn => [{ name: 'TaskUpdate', input }];
type Event = { task: string; op: string; source: string; who: { kind: string; name: string | null; session: string | null } };

describe('the real Claude Code on a named list whose tasks are all gone', () => {
  it('log still shows every change of the session that deleted them', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const a = await runAgent({
      configDir: config,
      listId: 'named',
      cwd: project,
      turns: [
        create('Plan'),
        create('Build'),
        update({ taskId: '1', status: 'completed' }),
        update({ taskId: '1', status: 'deleted' }),
        update({ taskId: '2', status: 'deleted' }),
      ],
    });
    const sa = a.stream.sessionId as string;
    if (process.env.KEEP_CONFIG) fs.writeFileSync(process.env.KEEP_CONFIG, config);
    expect(fs.readdirSync(path.join(config, 'tasks', 'named')).filter((n) => n.endsWith('.json'))).toEqual([]);
    const r = await runAsync(config, ['-l', 'named', 'log', '--json'], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    const got = (JSON.parse(r.stdout) as Event[]).map((e) => `${e.op} #${e.task} ${e.who.session === sa ? 'A' : e.who.session}`);
    expect(got).toEqual(['create #1 A', 'create #2 A', 'update #1 A', 'delete #1 A', 'delete #2 A']);
  });

  it('a shared list: the change of a session whose task is gone is not lost', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const a = await runAgent({
      configDir: config,
      listId: 'shared',
      cwd: project,
      turns: [create('Plan'), update({ taskId: '1', status: 'deleted' })],
    });
    const b = await runAgent({ configDir: config, listId: 'shared', cwd: project, turns: [create('Test')] });
    const [sa, sb] = [a.stream.sessionId, b.stream.sessionId] as string[];
    const r = await runAsync(config, ['-l', 'shared', 'log', '--json'], { cwd: project });
    expect(r.code, r.stderr).toBe(0);
    const got = (JSON.parse(r.stdout) as Event[]).map(
      (e) => `${e.op} #${e.task} ${e.who.session === sa ? 'A' : e.who.session === sb ? 'B' : e.who.session}`,
    );
    expect(got).toEqual(['create #1 A', 'delete #1 A', 'create #2 B']);
  });
});
