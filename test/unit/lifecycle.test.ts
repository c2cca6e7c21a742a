import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyReport, type LifecycleContext, updateTaskWithLifecycle } from '../../src/core/lifecycle/task-lifecycle.js';
import { readJson, writeTask } from '../helpers/cli.js';
import { hookWorld, logLines, script, settingsWith, writeSettings } from '../helpers/hooks.js';

describe('updateTaskWithLifecycle', () => {
  it('a task reopened between our look and the lock gets its TaskCompleted hooks before the write', async () => {
    const world = hookWorld();
    const file = path.join(world.list, '1.json');
    writeTask(world.list, { id: '1', subject: 's', description: '', status: 'completed', blocks: [], blockedBy: [] });
    const log = path.join(world.root, 'hook.log');
    const hook = script(world, 'record.sh', `cat >> "${log}"; echo >> "${log}"`);
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: hook }] }));
    const ctx: LifecycleContext = {
      configDir: world.config,
      listId: 'l',
      listDir: world.list,
      projectDir: world.project,
      hookPolicy: {
        globalConfigFile: path.join(world.config, '.claude.json'),
        managedDir: path.join(world.config, 'managed'),
        sandboxed: false,
      },
      hooks: { projectDir: world.project, env: process.env, sessionId: 'tasks-cli-test' },
      notify: true,
      assignedBy: 'team-lead',
      now: () => new Date(),
    };
    // Someone holds the task lock; while we wait for it, they reopen the task.
    fs.mkdirSync(`${file}.lock`);
    const pending = updateTaskWithLifecycle(ctx, '1', { status: 'completed', metadata: { by: 'us' } }, undefined, emptyReport());
    await new Promise((r) => setTimeout(r, 300));
    writeTask(world.list, { id: '1', subject: 's', description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.rmdirSync(`${file}.lock`);
    const { result, report } = await pending;
    expect(result.task).toMatchObject({ status: 'completed', metadata: { by: 'us' } });
    expect(readJson(file)).toMatchObject({ status: 'completed' });
    expect(report.hookRuns).toHaveLength(1);
    expect(logLines(log)).toEqual([expect.objectContaining({ hook_event_name: 'TaskCompleted', task_id: '1' })]);
  });
});
