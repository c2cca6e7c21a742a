import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAsync } from '../helpers/cli.js';
import { type SshHost, sshAvailable, startSshd } from '../helpers/sshd.js';
import { runAgent } from './agent.js';
import { callsOf } from './stream.js';

/**
 * `tasks -H` next to a real Claude Code agent on the host: the agent runs as the host's
 * user (the loopback sshd's, test/helpers/sshd.ts) on that user's ~/.claude, and `tasks
 * -H box` claims on the same list over ssh between the agent's turns. The claim takes the
 * work the agent left, never the agent's own, under the host's locks; the agent's next
 * TaskList shows it.
 */
describe.skipIf(!sshAvailable())('tasks -H next to an agent on the host', () => {
  let host: SshHost;
  let local: string;
  let ids: { uid: number; gid: number };

  beforeAll(async () => {
    host = await startSshd();
    local = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-remote-agent-')), 'claude');
    fs.mkdirSync(path.join(host.claudeDir, 'tasks'), { recursive: true });
    execFileSync('chown', ['-R', `${host.user}:`, host.claudeDir]);
    const id = (flag: string) => Number(execFileSync('id', [flag, host.user], { encoding: 'utf8' }));
    ids = { uid: id('-u'), gid: id('-g') };
  });

  afterAll(() => {
    host?.stop();
  });

  it('claims the next task the agent left, never its own, and the agent sees the claim', async () => {
    const onHost = (args: string[]) => runAsync(local, ['-H', 'box', '-l', 'shared', ...args], { env: host.env, cwd: os.tmpdir() });
    const claims: Array<{ code: number; stdout: string; stderr: string }> = [];
    const run = await runAgent({
      configDir: host.claudeDir,
      listId: 'shared',
      user: ids,
      turns: [
        [
          { name: 'TaskCreate', input: { subject: 'Build', description: 'make' } },
          { name: 'TaskCreate', input: { subject: 'Test', description: 'make test' } },
          { name: 'TaskCreate', input: { subject: 'Ship', description: 'make ship' } },
        ],
        [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', owner: 'agent-1' } }],
        [{ name: 'TaskList', input: {} }],
      ],
      // Between the agent's turns, while its session is live: tasks claims from afar.
      beforeTurn: async (index) => {
        if (index !== 2) return;
        claims.push(await onHost(['claim', '--next', '--as', 'remote-worker', '--json']));
        claims.push(await onHost(['claim', '1', '--as', 'remote-worker']));
      },
    });
    const [next, taken] = claims;
    expect(next?.code, next?.stderr).toBe(0);
    expect(JSON.parse(next?.stdout ?? '{}')).toMatchObject({ id: '2', owner: 'remote-worker' });
    // The agent's own task is refused, with the host's exit status.
    expect(taken?.code, taken?.stderr).toBe(4);
    expect(taken?.stderr).toMatch(/agent-1/);
    const task = (n: number) => JSON.parse(fs.readFileSync(path.join(host.claudeDir, 'tasks', 'shared', `${n}.json`), 'utf8'));
    expect(task(1)).toMatchObject({ owner: 'agent-1', status: 'in_progress' });
    expect(task(2).owner).toBe('remote-worker');
    // The files are the host user's still: tasks ran there as that user.
    expect(fs.statSync(path.join(host.claudeDir, 'tasks', 'shared', '2.json')).uid).toBe(ids.uid);
    // The agent's next TaskList shows the claim (TaskGet shows no owner).
    const [list] = callsOf(run.stream, 'TaskList');
    expect(list?.isError).toBe(false);
    expect(list?.text).toMatch(/#1 \[in_progress\] Build \(agent-1\)/);
    expect(list?.text).toMatch(/#2 \[pending\] Test \(remote-worker\)/);
    // Nothing of it was read or written on this machine.
    expect(fs.existsSync(local)).toBe(false);
  });
});
