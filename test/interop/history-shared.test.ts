/**
 * Interop: a shared list's history. Two real Claude Code sessions work on one list named
 * by CLAUDE_CODE_TASK_LIST_ID, a person changes it with `tasks` between them, and a fork
 * of the first session (sharing the list too) adds its own change. `tasks log` of the list
 * names each agent change's session, counts each change once (the fork's copies of its
 * parent's entries are not counted again), and shows the person's change as the person's.
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

describe('the real Claude Code on a shared list: each change once, with its session', () => {
  it('two sessions, a person and a fork on one named list', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const env = { USER: 'carol' };
    const a = await runAgent({
      configDir: config,
      listId: 'shared',
      cwd: project,
      prompt: 'plan the release',
      turns: [create('Plan'), create('Build'), update({ taskId: '1', status: 'in_progress', owner: 'agent-a' })],
    });
    expect(await runAsync(config, ['-l', 'shared', 'update', '2', '--owner', 'bob'], { cwd: project, env })).toMatchObject({ code: 0 });
    const b = await runAgent({
      configDir: config,
      listId: 'shared',
      cwd: project,
      prompt: 'test the release',
      turns: [create('Test'), update({ taskId: '3', status: 'completed' })],
    });
    const fork = await runAgent({
      configDir: config,
      listId: 'shared',
      cwd: project,
      args: ['--resume', a.stream.sessionId as string, '--fork-session'],
      turns: [update({ taskId: '1', status: 'completed' })],
    });
    const [sa, sb, sf] = [a.stream.sessionId, b.stream.sessionId, fork.stream.sessionId] as string[];
    expect(new Set([sa, sb, sf]).size).toBe(3);
    const r = await runAsync(config, ['-l', 'shared', 'log', '--json'], { cwd: project, env });
    expect(r.code, r.stderr).toBe(0);
    const got = (JSON.parse(r.stdout) as Event[]).map(
      (e) =>
        `${e.op} #${e.task} ${e.who.kind === 'person' ? e.who.name : e.who.session === sa ? 'A' : e.who.session === sb ? 'B' : e.who.session === sf ? 'fork' : e.who.session}`,
    );
    expect(got).toEqual(['create #1 A', 'create #2 A', 'update #1 A', 'update #2 carol', 'create #3 B', 'update #3 B', 'update #1 fork']);
    const text = await runAsync(config, ['-l', 'shared', 'log'], { cwd: project, env });
    expect(text.stderr).toMatch(/and 3 transcripts of this list's sessions/);
    expect(text.stderr).toMatch(
      /3 changes in entries a forked session copied from its parent, which shares this list: counted once, as the parent's/,
    );
    expect(text.stderr).not.toMatch(/counted in the parent's list/);
    expect(text.stdout).not.toContain('no record');
  });
});
