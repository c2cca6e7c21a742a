/**
 * Interop: an undo refused because a real Claude Code agent changed a task since names the
 * agent's session, even when a later change made with tasks (one of those taken back) is
 * the task's last change: `undo --since` of a person's commands, between which the agent
 * worked on one of the tasks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAsync, tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';

describe('the real Claude Code changed a task since: undo says who', () => {
  it('undo --since names the agent of the session that changed the task between the commands taken back', async () => {
    const config = tempConfig();
    const project = path.join(config, 'home', 'work', 'app');
    fs.mkdirSync(project, { recursive: true });
    const tasks = (...args: string[]) => runAsync(config, ['-l', 'shared', ...args], { cwd: project, env: { USER: 'carol' } });
    expect((await tasks('create', 'Ship')).code).toBe(0);
    const run = await runAgent({
      configDir: config,
      listId: 'shared',
      cwd: project,
      prompt: 'ship it',
      turns: [[{ name: 'TaskUpdate', input: { taskId: '1', subject: 'Ship it' } }]],
    });
    const session = (run.stream.sessionId as string).slice(0, 8);
    expect((await tasks('update', '1', '--owner', 'dan')).code).toBe(0);
    const before = fs.readFileSync(path.join(config, 'tasks', 'shared', '1.json'), 'utf8');
    const undo = await tasks('undo', '--since', '1h');
    expect(undo.code).toBe(4);
    expect(undo.stderr).toMatch(new RegExp(`#1 was changed since it was created \\(changed by agent of session ${session} at `));
    expect(fs.readFileSync(path.join(config, 'tasks', 'shared', '1.json'), 'utf8')).toBe(before);
  });
});
