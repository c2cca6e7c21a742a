/**
 * Interop: the real Claude Code and `tasks` share one list and one TaskCompleted hook,
 * and both are held to it, through the suite's runner (agent.ts) and loopback model.
 *
 * Run with the rest of the interop suite: npm run test:interop.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, run } from '../helpers/cli.js';
import { hookWorld, logLines, script, settingsWith, writeSettings, writeTeam } from '../helpers/hooks.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';

/** Run Claude Code on the shared list from `project`; returns the tool results it got back, in order. */
async function claude(config: string, project: string, listId: string, turns: Turn[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const { stream } = await runAgent({ configDir: config, listId, turns, cwd: project, env });
  return stream.calls.map((c) => c.text);
}

describe('the real Claude Code and tasks on one list: hooks and inboxes', () => {
  it('both are held to it: blocked while the gate is closed, allowed once it opens', async () => {
    const world = hookWorld();
    const listDir = path.join(world.config, 'tasks', 'shared');
    const log = path.join(world.root, 'hook.log');
    const passFile = path.join(world.project, 'tests-pass');
    // The gate: a stand-in for "run the test suite"; it passes once tests-pass exists.
    const gate = script(
      world,
      'gate.sh',
      `input=$(cat); printf '%s\\n' "$input" >> "${log}"
[ -f "$CLAUDE_PROJECT_DIR/tests-pass" ] && exit 0
echo "test suite fails" >&2; exit 2`,
    );
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: gate }] }));
    const tasks = (args: string[]) => run(world.config, ['-l', 'shared', ...args], { cwd: world.project });

    expect(tasks(['create', 'Agent task', '-d', 'done by the agent']).stdout).toBe('1\n');
    expect(tasks(['create', 'Person task', '-d', 'done from the terminal']).stdout).toBe('2\n');

    // Gate closed: the agent's completion and ours are both refused; nothing changes.
    const agentBlocked = await claude(world.config, world.project, 'shared', [
      [{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }],
    ]);
    expect(agentBlocked.join('\n')).toMatch(/TaskCompleted hook feedback:[\s\S]*test suite fails/);
    const ours = tasks(['update', '2', '--status', 'completed']);
    expect(ours).toMatchObject({ code: 4, stderr: 'error: TaskCompleted hook blocked completing task #2: test suite fails\n' });
    expect(readJson(path.join(listDir, '1.json'))).toMatchObject({ status: 'pending' });
    expect(readJson(path.join(listDir, '2.json'))).toMatchObject({ status: 'pending' });

    // Gate open: both go through.
    fs.writeFileSync(passFile, '');
    const agentAllowed = await claude(world.config, world.project, 'shared', [
      [{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }],
    ]);
    expect(agentAllowed).toContain('Updated task #1 status');
    expect(tasks(['update', '2', '--status', 'completed'])).toMatchObject({ code: 0, stdout: 'Updated task #2 status\n' });
    expect(readJson(path.join(listDir, '1.json'))).toMatchObject({ status: 'completed' });
    expect(readJson(path.join(listDir, '2.json'))).toMatchObject({ status: 'completed' });

    // The hook saw the same kind of input from both, told apart by session_id.
    const inputs = logLines(log) as Array<Record<string, unknown>>;
    expect(inputs.map((i) => [i.hook_event_name, i.task_id, i.cwd])).toEqual([
      ['TaskCompleted', '1', world.project],
      ['TaskCompleted', '2', world.project],
      ['TaskCompleted', '1', world.project],
      ['TaskCompleted', '2', world.project],
    ]);
    expect(inputs.map((i) => String(i.session_id).startsWith('tasks-cli-'))).toEqual([false, true, false, true]);
    for (const input of inputs) {
      expect(input).toMatchObject({
        task_subject: expect.any(String),
        task_description: expect.any(String),
        transcript_path: expect.any(String),
      });
    }
  }, 240_000);

  it('an owner change writes the same task_assignment message from the agent and from tasks', async () => {
    const world = hookWorld();
    writeTeam(world, 'core', ['team-lead', 'alice', 'bob']);
    const inbox = (agent: string) => path.join(world.config, 'teams', 'core', 'inboxes', `${agent}.json`);
    const tasks = (args: string[]) => run(world.config, ['-l', 'core', ...args], { cwd: world.project });
    expect(tasks(['create', 'First', '-d', 'one']).stdout).toBe('1\n');
    expect(tasks(['create', 'Second', '-d', 'two']).stdout).toBe('2\n');
    // The agent (agent teams on; its team is the list) assigns #1 to alice, we assign #2.
    const results = await claude(world.config, world.project, 'core', [[{ name: 'TaskUpdate', input: { taskId: '1', owner: 'alice' } }]], {
      CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
    });
    expect(results).toContain('Updated task #1 owner');
    expect(tasks(['update', '2', '--owner', 'alice']).code).toBe(0);
    const messages = readJson(inbox('alice')) as Array<Record<string, unknown>>;
    expect(messages).toHaveLength(2);
    const [agent, ours] = messages as [Record<string, unknown>, Record<string, unknown>];
    expect(Object.keys(ours)).toEqual(Object.keys(agent));
    const strip = (m: Record<string, unknown>) => ({ ...m, msg_id: '<id>', timestamp: '<ts>' });
    expect(strip(ours)).toEqual({ ...strip(agent), text: expect.any(String) });
    const agentText = JSON.parse(agent.text as string) as Record<string, unknown>;
    const ourText = JSON.parse(ours.text as string) as Record<string, unknown>;
    expect(Object.keys(ourText)).toEqual(Object.keys(agentText));
    expect({ ...ourText, timestamp: '<ts>' }).toEqual({
      ...agentText,
      taskId: '2',
      subject: 'Second',
      description: 'two',
      timestamp: '<ts>',
    });
  }, 240_000);
});
