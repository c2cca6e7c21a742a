import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type HookWorld, hookWorld, script, settingsWith, trustFolder, writeManagedSettings, writeSettings } from '../helpers/hooks.js';
import { runInProcess } from '../helpers/in-process.js';

/**
 * Project hooks run only in a folder Claude Code records as trusted, and managed policy
 * settings have the last word, as in Claude Code 2.1.328: standing in a freshly cloned
 * repository must not run its .claude/settings.json commands.
 */

/** A TaskCreated hook in `scope` that leaves a mark when it runs. */
function marking(world: HookWorld, scope: 'user' | 'project' | 'local', name: string): string {
  const mark = path.join(world.root, `${name}.ran`);
  const hook = script(world, `${name}.sh`, `touch "${mark}"`);
  writeSettings(world, scope, settingsWith({ TaskCreated: [{ command: hook }] }));
  return mark;
}

const create = async (world: HookWorld, cwd = world.project, env: Record<string, string> = {}) => {
  // The list exists already: stderr is the hooks' alone (no "new list" note).
  fs.mkdirSync(path.join(world.config, 'tasks', 'l'), { recursive: true });
  return runInProcess(world.config, ['-l', 'l', 'create', 'A task'], { cwd, env });
};

describe('project hooks and folder trust', () => {
  it('a freshly cloned repository: its hooks do not run; one line says how to trust the folder', async () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    const mark = marking(world, 'project', 'project');
    const r = await create(world);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\n');
    expect(fs.existsSync(mark)).toBe(false);
    expect(r.stderr).toBe(
      `warning: skipped the hooks in ${world.project}/.claude/settings.json: this folder is not trusted in Claude Code; to trust it, run claude in ${world.project} and accept the trust dialog, or set projects["${world.project}"].hasTrustDialogAccepted to true in ${world.config}/.claude.json\n`,
    );
  });

  it('local settings are held to the same trust; user settings are not', async () => {
    const world = hookWorld({ trusted: false });
    const local = marking(world, 'local', 'local');
    const user = marking(world, 'user', 'user');
    const r = await create(world);
    expect(r.code).toBe(0);
    expect(fs.existsSync(local)).toBe(false);
    expect(fs.existsSync(user)).toBe(true);
    expect(r.stderr).toMatch(/^warning: skipped the hooks in .*settings\.local\.json: this folder is not trusted/);
  });

  it('a trusted folder runs them, and so does a folder below it inside the repository', async () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    const mark = marking(world, 'project', 'project');
    trustFolder(world, world.project);
    expect(await create(world)).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(mark)).toBe(true);

    // Below the trusted repository root: trusted too (the project is the current folder,
    // so the sub-folder needs settings of its own to have hooks).
    const sub = path.join(world.project, 'sub');
    fs.mkdirSync(path.join(sub, '.claude'), { recursive: true });
    const subMark = path.join(world.root, 'sub.ran');
    fs.writeFileSync(
      path.join(sub, '.claude', 'settings.json'),
      JSON.stringify(settingsWith({ TaskCreated: [{ command: `touch "${subMark}"` }] })),
    );
    expect(await create(world, sub)).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(subMark)).toBe(true);
  });

  it('a trust record above the repository root does not count (as in Claude Code)', async () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    const mark = marking(world, 'project', 'project');
    trustFolder(world, world.root);
    const r = await create(world);
    expect(fs.existsSync(mark)).toBe(false);
    expect(r.stderr).toMatch(/this folder is not trusted/);
  });

  it('outside any repository, a record on a folder above counts', async () => {
    const world = hookWorld({ trusted: false });
    const mark = marking(world, 'project', 'project');
    trustFolder(world, world.root);
    expect(await create(world)).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(mark)).toBe(true);
  });

  it('CLAUDE_CODE_SANDBOXED trusts every folder, as it does for Claude Code', async () => {
    const world = hookWorld({ trusted: false });
    const mark = marking(world, 'project', 'project');
    expect(await create(world, world.project, { CLAUDE_CODE_SANDBOXED: '1' })).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(mark)).toBe(true);
  });
});

describe('managed settings', () => {
  it('"disableAllHooks" in managed settings turns off every hook, user and project alike', async () => {
    const world = hookWorld();
    const user = marking(world, 'user', 'user');
    const project = marking(world, 'project', 'project');
    writeManagedSettings(world, { disableAllHooks: true });
    expect(await create(world)).toMatchObject({ code: 0, stdout: '1\n' });
    expect(fs.existsSync(user)).toBe(false);
    expect(fs.existsSync(project)).toBe(false);
  });

  it('"allowManagedHooksOnly" runs managed hooks only, and says what it skipped', async () => {
    const world = hookWorld();
    const user = marking(world, 'user', 'user');
    const managedMark = path.join(world.root, 'managed.ran');
    writeManagedSettings(world, {
      allowManagedHooksOnly: true,
      hooks: settingsWith({ TaskCreated: [{ command: `touch "${managedMark}"` }] }).hooks,
    });
    const r = await create(world);
    expect(r.code).toBe(0);
    expect(fs.existsSync(managedMark)).toBe(true);
    expect(fs.existsSync(user)).toBe(false);
    expect(r.stderr).toMatch(
      /^warning: skipped the hooks in .*settings\.json: managed settings allow only managed hooks \(allowManagedHooksOnly in .*managed-settings\.json\)\n$/,
    );
  });

  it('managed hooks (also from managed-settings.d) run in an untrusted folder; a user "disableAllHooks" cannot stop them', async () => {
    const world = hookWorld({ trusted: false });
    const a = path.join(world.root, 'a.ran');
    const b = path.join(world.root, 'b.ran');
    writeManagedSettings(world, settingsWith({ TaskCreated: [{ command: `touch "${a}"` }] }));
    writeManagedSettings(world, settingsWith({ TaskCreated: [{ command: `touch "${b}"` }] }), '10-more.json');
    writeSettings(world, 'user', { disableAllHooks: true });
    expect(await create(world)).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(a)).toBe(true);
    expect(fs.existsSync(b)).toBe(true);
  });
});
