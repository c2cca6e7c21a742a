import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOOK_TIMEOUT_SECONDS, loadTaskHookSettings } from '../../src/core/hooks/hook-settings.js';
import { hookInput } from '../../src/core/hooks/hooks.js';

function dirs() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-hooks-unit-'));
  const config = path.join(root, 'config');
  const project = path.join(root, 'project');
  fs.mkdirSync(config, { recursive: true });
  fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
  return { config, project };
}

const group = (command: string, extra: Record<string, unknown> = {}) => ({ hooks: [{ type: 'command', command, ...extra }] });

describe('loadTaskHookSettings', () => {
  it('collects both events from user, project and local settings, in that order, deduplicated', () => {
    const { config, project } = dirs();
    fs.writeFileSync(path.join(config, 'settings.json'), JSON.stringify({ hooks: { TaskCompleted: [group('user.sh', { timeout: 5 })] } }));
    fs.writeFileSync(
      path.join(project, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: { TaskCompleted: [group('user.sh'), group('project.sh')], TaskCreated: [{ matcher: 'anything', ...group('created.sh') }] },
      }),
    );
    fs.writeFileSync(
      path.join(project, '.claude', 'settings.local.json'),
      JSON.stringify({ hooks: { TaskCompleted: [group('local.sh', { async: true })], PreToolUse: [group('other.sh')] } }),
    );
    const s = loadTaskHookSettings(config, project);
    expect(s.warnings).toEqual([]);
    expect(s.hooks.TaskCompleted.map((h) => [h.command, h.timeoutSeconds, h.background])).toEqual([
      ['user.sh', 5, false],
      ['project.sh', DEFAULT_HOOK_TIMEOUT_SECONDS, false],
      ['local.sh', DEFAULT_HOOK_TIMEOUT_SECONDS, true],
    ]);
    // The matcher is ignored for task events, as Claude Code ignores it.
    expect(s.hooks.TaskCreated.map((h) => h.command)).toEqual(['created.sh']);
  });

  it('warns about a malformed file and keeps the others', () => {
    const { config, project } = dirs();
    fs.writeFileSync(path.join(config, 'settings.json'), '{"hooks": {');
    fs.writeFileSync(
      path.join(project, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: {
          TaskCompleted: [group('ok.sh'), { hooks: [{ type: 'command' }, { type: 'prompt', prompt: 'x' }] }, 'junk'],
          TaskCreated: {},
        },
      }),
    );
    const s = loadTaskHookSettings(config, project);
    expect(s.hooks.TaskCompleted.map((h) => h.command)).toEqual(['ok.sh']);
    expect(s.warnings).toHaveLength(5);
    expect(s.warnings[0]).toMatch(/^ignoring .*config\/settings\.json: not valid JSON/);
    expect(s.warnings.join('\n')).toMatch(/hooks\.TaskCompleted\[1\]\.hooks\[0\].*command: Required/);
    expect(s.warnings.join('\n')).toMatch(/a "prompt" hook; tasks runs command hooks only/);
    expect(s.warnings.join('\n')).toMatch(/hooks\.TaskCompleted\[2\]/);
    expect(s.warnings.join('\n')).toMatch(/hooks\.TaskCreated in .*expected an array/);
  });

  it('disableAllHooks in any file turns every hook off', () => {
    const { config, project } = dirs();
    fs.writeFileSync(path.join(config, 'settings.json'), JSON.stringify({ hooks: { TaskCompleted: [group('a.sh')] } }));
    fs.writeFileSync(path.join(project, '.claude', 'settings.local.json'), JSON.stringify({ disableAllHooks: true }));
    const s = loadTaskHookSettings(config, project);
    expect(s.hooks.TaskCompleted).toEqual([]);
    expect(s.disabledBy).toMatch(/settings\.local\.json$/);
  });

  it('no settings at all is no hooks and no warning', () => {
    const { config, project } = dirs();
    expect(loadTaskHookSettings(config, project)).toEqual({ hooks: { TaskCreated: [], TaskCompleted: [] }, warnings: [], skipped: [] });
  });
});

describe('hookInput', () => {
  it('has the fields Claude Code sends, in its order, and says where it came from', () => {
    const input = hookInput(
      'TaskCompleted',
      { sessionId: 'tasks-cli-7', cwd: '/p' },
      { task: { id: '4', subject: 'S', description: '' }, teamName: 'core' },
    );
    expect(Object.keys(input)).toEqual([
      'session_id',
      'transcript_path',
      'cwd',
      'hook_event_name',
      'task_id',
      'task_subject',
      'task_description',
      'team_name',
    ]);
    expect(input).toMatchObject({
      session_id: 'tasks-cli-7',
      transcript_path: '',
      cwd: '/p',
      hook_event_name: 'TaskCompleted',
      task_id: '4',
    });
  });
});
