/**
 * Interop: a session that loses its task tools, with the real Claude Code.
 *
 * - A project setting (CLAUDE_CODE_ENABLE_TASKS=0 in .claude/settings.local.json) written
 *   while the session runs: Claude Code reads it again and takes the Task tools away, and
 *   the agent's next TaskCreate is answered "No such tool available: TaskCreate". While
 *   the session is still live, `tasks doctor` reports task_tools_unavailable, naming the
 *   file, with /clear.
 * - A session started with the Task tools off (TodoWrite) whose model tries TaskCreate
 *   first, then keeps TodoWrite todos: `lists --all` shows it as a TodoWrite session, and
 *   doctor names the failed call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from './agent.js';
import { gate, world } from './session-world.js';

interface Finding {
  code: string;
  message: string;
  session?: string;
  file?: string;
  fixes: Array<{ kind: string; command?: string; file?: string; key?: string }>;
}

const doctor = async (w: ReturnType<typeof world>, cwd: string) => {
  const r = await w.tasks(cwd, ['doctor', '--json']);
  return JSON.parse(r.stdout) as { findings: Finding[] };
};

describe('the real Claude Code: a session without its task tools', () => {
  it('a setting turns them off while it runs: doctor reports the failed call while the session is live', async () => {
    const w = world();
    const proj = w.dir('work/app');
    const local = path.join(proj, '.claude', 'settings.local.json');
    const held = gate();
    const run = runAgent({
      configDir: w.config,
      listId: 'shared',
      cwd: proj,
      turns: [
        [{ name: 'TaskCreate', input: { subject: 'Plan', description: 'plan it' } }],
        [{ name: 'TaskList', input: {} }],
        [{ name: 'TaskCreate', input: { subject: 'Build', description: 'build it' } }],
        [{ name: 'TaskCreate', input: { subject: 'Build', description: 'build it' } }],
        [{ name: 'TaskCreate', input: { subject: 'Build', description: 'build it' } }],
        [{ name: 'TaskList', input: {} }],
      ],
      beforeTurn: async (i) => {
        if (i === 1) {
          fs.mkdirSync(path.dirname(local), { recursive: true });
          fs.writeFileSync(local, JSON.stringify({ env: { CLAUDE_CODE_ENABLE_TASKS: '0' } }));
        }
        // Claude Code notices a changed settings file a moment later (later still on a busy
        // machine, or where it polls): the agent tries again, as a model whose call worked would.
        if (i >= 1 && i <= 4) await new Promise((r) => setTimeout(r, i === 1 ? 1500 : 2500));
        if (i === 5) await held.wait();
      },
    });
    try {
      await held.arrived;
      // The failed call is in the transcript once Claude Code has written it out.
      let report = await doctor(w, proj);
      for (let tries = 0; tries < 20 && !report.findings.some((f) => f.code === 'task_tools_unavailable'); tries++) {
        await new Promise((r) => setTimeout(r, 500));
        report = await doctor(w, proj);
      }
      const found = report.findings.find((f) => f.code === 'task_tools_unavailable');
      expect(found, JSON.stringify(report.findings)).toBeDefined();
      expect(found?.message).toContain('"No such tool available: Task');
      expect(found?.file).toBe(local);
      expect(found?.fixes.map((f) => (f.kind === 'command' ? f.command : `${f.kind} ${f.key}`))).toEqual([
        'remove-setting CLAUDE_CODE_ENABLE_TASKS',
        '/clear',
      ]);
    } finally {
      held.open();
    }
    const done = await run.catch((err: Error) => err);
    if (done instanceof Error) throw done;
    const failed = done.stream.calls.filter((c) => c.text.includes('No such tool available'));
    expect(failed.length).toBeGreaterThan(0);
  });

  it('a session gated to TodoWrite that tried TaskCreate first: lists --all shows its todos, doctor the failed call', async () => {
    const w = world();
    const proj = w.dir('work/docs');
    const run = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      env: { CLAUDE_CODE_ENABLE_TASKS: '0' },
      turns: [
        [{ name: 'TaskCreate', input: { subject: 'Outline', description: 'outline it' } }],
        [{ name: 'TodoWrite', input: { todos: [{ content: 'Outline', status: 'in_progress', activeForm: 'Outlining' }] } }],
      ],
    });
    expect(run.stream.calls[0]?.text).toContain('No such tool available: TaskCreate');
    const session = run.stream.sessionId as string;
    const rows = JSON.parse((await w.tasks(proj, ['lists', '--all', '--json'])).stdout) as Array<{ id: string; kind: string }>;
    expect(rows.find((r) => r.id === session)).toMatchObject({ kind: 'todowrite' });
    const report = await doctor(w, proj);
    expect(report.findings.find((f) => f.code === 'task_tools_unavailable' && f.session === session)?.message).toContain(
      'No such tool available: TaskCreate',
    );
  });
});
