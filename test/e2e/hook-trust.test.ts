import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { type HookWorld, hookWorld, script, settingsWith, trustFolder, writeManagedSettings, writeSettings } from '../helpers/hooks.js';

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

const create = (world: HookWorld, cwd = world.project, env: Record<string, string> = {}) => {
  // The list exists already: stderr is the hooks' alone (no "new list" note).
  fs.mkdirSync(path.join(world.config, 'tasks', 'l'), { recursive: true });
  return run(world.config, ['-l', 'l', 'create', 'A task'], { cwd, env });
};

describe('project hooks and folder trust', () => {
  it('a freshly cloned repository: its hooks do not run; one line says how to trust the folder', () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    const mark = marking(world, 'project', 'project');
    const r = create(world);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\n');
    expect(fs.existsSync(mark)).toBe(false);
    expect(r.stderr).toBe(
      `warning: skipped the hooks in ${world.project}/.claude/settings.json: this folder is not trusted in Claude Code; to trust it, run claude in ${world.project} and accept the trust dialog, or set projects["${world.project}"].hasTrustDialogAccepted to true in ${world.config}/.claude.json\n`,
    );
  });

  it('local settings are held to the same trust; user settings are not', () => {
    const world = hookWorld({ trusted: false });
    const local = marking(world, 'local', 'local');
    const user = marking(world, 'user', 'user');
    const r = create(world);
    expect(r.code).toBe(0);
    expect(fs.existsSync(local)).toBe(false);
    expect(fs.existsSync(user)).toBe(true);
    expect(r.stderr).toMatch(/^warning: skipped the hooks in .*settings\.local\.json: this folder is not trusted/);
  });

  it('a trusted folder runs them, and so does a folder below it inside the repository', () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    const mark = marking(world, 'project', 'project');
    trustFolder(world, world.project);
    expect(create(world)).toMatchObject({ code: 0, stderr: '' });
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
    expect(create(world, sub)).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(subMark)).toBe(true);
  });

  it('a trust record above the repository root does not count (as in Claude Code)', () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    const mark = marking(world, 'project', 'project');
    trustFolder(world, world.root);
    const r = create(world);
    expect(fs.existsSync(mark)).toBe(false);
    expect(r.stderr).toMatch(/this folder is not trusted/);
  });

  it('outside any repository, a record on a folder above counts', () => {
    const world = hookWorld({ trusted: false });
    const mark = marking(world, 'project', 'project');
    trustFolder(world, world.root);
    expect(create(world)).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(mark)).toBe(true);
  });

  it('CLAUDE_CODE_SANDBOXED trusts every folder, as it does for Claude Code', () => {
    const world = hookWorld({ trusted: false });
    const mark = marking(world, 'project', 'project');
    expect(create(world, world.project, { CLAUDE_CODE_SANDBOXED: '1' })).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(mark)).toBe(true);
  });
});

describe('managed settings', () => {
  it('"disableAllHooks" in managed settings turns off every hook, user and project alike', () => {
    const world = hookWorld();
    const user = marking(world, 'user', 'user');
    const project = marking(world, 'project', 'project');
    writeManagedSettings(world, { disableAllHooks: true });
    expect(create(world)).toMatchObject({ code: 0, stdout: '1\n' });
    expect(fs.existsSync(user)).toBe(false);
    expect(fs.existsSync(project)).toBe(false);
  });

  it('"allowManagedHooksOnly" runs managed hooks only, and says what it skipped', () => {
    const world = hookWorld();
    const user = marking(world, 'user', 'user');
    const managedMark = path.join(world.root, 'managed.ran');
    writeManagedSettings(world, {
      allowManagedHooksOnly: true,
      hooks: settingsWith({ TaskCreated: [{ command: `touch "${managedMark}"` }] }).hooks,
    });
    const r = create(world);
    expect(r.code).toBe(0);
    expect(fs.existsSync(managedMark)).toBe(true);
    expect(fs.existsSync(user)).toBe(false);
    expect(r.stderr).toMatch(
      /^warning: skipped the hooks in .*settings\.json: managed settings allow only managed hooks \(allowManagedHooksOnly in .*managed-settings\.json\)\n$/,
    );
  });

  it('managed hooks (also from managed-settings.d) run in an untrusted folder; a user "disableAllHooks" cannot stop them', () => {
    const world = hookWorld({ trusted: false });
    const a = path.join(world.root, 'a.ran');
    const b = path.join(world.root, 'b.ran');
    writeManagedSettings(world, settingsWith({ TaskCreated: [{ command: `touch "${a}"` }] }));
    writeManagedSettings(world, settingsWith({ TaskCreated: [{ command: `touch "${b}"` }] }), '10-more.json');
    writeSettings(world, 'user', { disableAllHooks: true });
    expect(create(world)).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(a)).toBe(true);
    expect(fs.existsSync(b)).toBe(true);
  });
});

describe('an empty config folder is refused, never the current folder', () => {
  it('CLAUDE_CONFIG_DIR= (set, empty) in a cloned repository: exit 2 naming the variable; its settings.json hook never runs', () => {
    const world = hookWorld({ trusted: false });
    // A repository that carries a settings.json and a .claude.json marking itself trusted.
    const mark = path.join(world.root, 'user-hook.ran');
    fs.writeFileSync(
      path.join(world.project, 'settings.json'),
      JSON.stringify(settingsWith({ TaskCreated: [{ command: `touch "${mark}"` }] })),
    );
    fs.writeFileSync(
      path.join(world.project, '.claude.json'),
      JSON.stringify({ projects: { [world.project]: { hasTrustDialogAccepted: true } } }),
    );
    fs.mkdirSync(path.join(world.project, 'tasks', 'l'), { recursive: true });
    for (const args of [['-l', 'l', 'create', 'A task'], ['-l', 'l', 'list'], ['lists']]) {
      const r = run(world.config, args, { cwd: world.project, env: { CLAUDE_CONFIG_DIR: '' } });
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toBe('error: CLAUDE_CONFIG_DIR is set but empty: unset it (for ~/.claude) or name the config folder\n');
    }
    expect(fs.existsSync(mark)).toBe(false);
    expect(fs.readdirSync(path.join(world.project, 'tasks', 'l'))).toEqual([]);
    const flag = run(world.config, ['--config-dir', '', '-l', 'l', 'list'], { cwd: world.project });
    expect(flag).toMatchObject({ code: 2, stdout: '' });
    expect(flag.stderr).toMatch(/^error: --config-dir is empty/);
    const json = run(world.config, ['-l', 'l', 'list', '--json'], { cwd: world.project, env: { CLAUDE_CONFIG_DIR: '' } });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'usage' } });
  });
});
