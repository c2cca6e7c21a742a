/**
 * Interop: hooks in a fresh CI checkout. What the real `claude -p` does with a project's
 * TaskCompleted hook in a folder nobody has trusted, and what `tasks` does there: skips
 * them with a warning (JSON with --json), refuses with --require-hooks, and runs them
 * after `tasks trust`, as Claude Code would after its trust dialog.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { hookWorld, logLines, script, settingsWith, writeSettings } from '../helpers/hooks.js';
import { runAgent } from './agent.js';

describe('a fresh checkout with a TaskCompleted hook', () => {
  it('claude -p runs it without being asked; tasks skips it until tasks trust, or refuses with --require-hooks', async () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    const log = path.join(world.root, 'gate.log');
    const gate = script(world, 'gate.sh', `cat >> "${log}"; echo >> "${log}"`);
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: gate }] }));
    const tasks = (args: string[]) => run(world.config, ['-l', 'ci', ...args], { cwd: world.project });
    expect(tasks(['create', 'By the agent']).stdout).toBe('1\n');
    expect(tasks(['create', 'By tasks']).stdout).toBe('2\n');

    // The headless agent in the untrusted checkout: its hook ran (what claude -p does).
    await runAgent({
      configDir: world.config,
      listId: 'ci',
      cwd: world.project,
      turns: [[{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }]],
    });
    expect((logLines(log) as Array<{ task_id: string }>).map((l) => l.task_id)).toEqual(['1']);
    expect(
      fs.existsSync(path.join(world.config, '.claude.json')) ? fs.readFileSync(path.join(world.config, '.claude.json'), 'utf8') : '',
    ).not.toContain(`"${world.project}"`);

    // tasks in the same checkout: refused with --require-hooks, skipped (a JSON warning) without.
    expect(tasks(['done', '2', '--require-hooks'])).toMatchObject({ code: 4 });
    const skipped = tasks(['done', '2', '--json']);
    expect(skipped.code).toBe(0);
    expect(JSON.parse(skipped.stderr.trim())).toMatchObject({ warning: { code: 'hooks_skipped', folder: world.project } });
    expect(logLines(log)).toHaveLength(1);

    // tasks trust, then the hook runs for tasks too.
    expect(run(world.config, ['trust'], { cwd: world.project }).code).toBe(0);
    expect(tasks(['update', '2', '--status', 'in_progress']).code).toBe(0);
    expect(tasks(['done', '2', '--require-hooks'])).toMatchObject({ code: 0, stderr: '' });
    expect((logLines(log) as Array<{ task_id: string }>).map((l) => l.task_id)).toEqual(['1', '2']);
  });
});
