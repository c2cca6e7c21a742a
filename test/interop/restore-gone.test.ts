/**
 * Interop: a session's own list whose folder was removed, restored by the short id that
 * `tasks lists --all` shows it by: the tasks come back in the session's own folder (never
 * a new folder named by the short id), and the agent, resumed, sees them in its TaskList.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from './agent.js';
import { world } from './session-world.js';

describe('the real Claude Code: restore by short id', () => {
  it('restore -l <short id> of a gone list rebuilds the folder the agent reads', async () => {
    const w = world();
    const proj = w.dir('work/app');
    const first = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      turns: [
        [{ name: 'TaskCreate', input: { subject: 'Plan', description: 'plan it' } }],
        [{ name: 'TaskCreate', input: { subject: 'Build', description: 'build it' } }],
        [{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }],
      ],
    });
    const session = first.stream.sessionId as string;
    fs.rmSync(path.join(w.config, 'tasks', session), { recursive: true });
    const rows = JSON.parse((await w.tasks(proj, ['lists', '--all', '--json'])).stdout) as Array<{
      id: string;
      shortId: string;
      kind: string;
    }>;
    const gone = rows.find((r) => r.id === session);
    expect(gone).toMatchObject({ kind: 'gone' });
    const short = gone?.shortId as string;
    expect(short.length).toBeLessThan(session.length);
    const read = await w.tasks(proj, ['-l', short, 'list']);
    expect(read.code).toBe(3);
    expect(read.stderr).toContain(`tasks -l ${short} restore`);
    const restored = await w.tasks(proj, ['-l', short, 'restore']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(fs.existsSync(path.join(w.config, 'tasks', short))).toBe(false);
    // The agent, resumed, reads its own list: the restored tasks.
    const resumed = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      args: ['--resume', session],
      turns: [[{ name: 'TaskList', input: {} }]],
    });
    const call = resumed.stream.calls.find((c) => c.name === 'TaskList');
    const text = `${call?.text ?? ''} ${JSON.stringify(call?.data ?? null)}`;
    expect(text).toContain('Plan');
    expect(text).toContain('Build');
  });
});
