import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type HookWorld, hookWorld, script, settingsWith, trustFolder, writeManagedSettings, writeSettings } from '../helpers/hooks.js';
import { runInProcess, runInProcessSync } from '../helpers/in-process.js';

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
      `warning: skipped the hooks in ${world.project}/.claude/settings.json: this folder is not trusted in Claude Code; to trust it, run tasks trust in ${world.project} (or claude there, and accept its trust dialog), or set projects["${world.project}"].hasTrustDialogAccepted to true in ${world.config}/.claude.json\n`,
    );
  });

  it("an untrusted folder's hooks of one event: only a change that runs that event is told they were skipped", async () => {
    const world = hookWorld({ trusted: false });
    const mark = path.join(world.root, 'completed.ran');
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: script(world, 'done.sh', `touch "${mark}"`) }] }));
    const made = await create(world);
    expect(made.code, made.stderr).toBe(0);
    // No TaskCreated hook anywhere: nothing was kept from running.
    expect(made.stderr).toBe('');
    const done = await runInProcess(world.config, ['-l', 'l', 'done', '1'], { cwd: world.project });
    expect(done.code, done.stderr).toBe(0);
    expect(fs.existsSync(mark)).toBe(false);
    expect(done.stderr).toMatch(/^warning: skipped the hooks in .*settings\.json: this folder is not trusted/m);
  });

  it('of two untrusted files, a change is told only of the one that holds hooks of its event', async () => {
    const world = hookWorld({ trusted: false });
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: script(world, 'done.sh', 'true') }] }));
    writeSettings(world, 'local', settingsWith({ TaskCreated: [{ command: script(world, 'made.sh', 'true') }] }));
    const made = await runInProcess(world.config, ['-l', 'l', 'create', 'x', '--json'], { cwd: world.project });
    expect(made.code, made.stderr).toBe(0);
    const warning = JSON.parse(made.stderr.trim().split('\n').at(-1) as string).warning;
    expect(warning.code).toBe('hooks_skipped');
    expect(warning.files.map((f: string) => path.basename(f))).toEqual(['settings.local.json']);
    expect(warning.message).toMatch(/^skipped the hooks in \S*settings\.local\.json: this folder is not trusted/);
    const done = await runInProcess(world.config, ['-l', 'l', 'done', '1'], { cwd: world.project });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/^warning: skipped the hooks in \S*settings\.json: this folder is not trusted/m);
    expect(done.stderr).not.toMatch(/settings\.local\.json/);
  });

  it('an untrusted settings file whose task hook groups hold no hook is not named: nothing of it would run', async () => {
    const world = hookWorld({ trusted: false });
    writeSettings(world, 'project', { hooks: { TaskCreated: [{}], TaskCompleted: [{ matcher: '', hooks: [] }] } });
    const made = await create(world);
    expect([made.code, made.stderr]).toEqual([0, '']);
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
      const r = runInProcessSync(world.config, args, { cwd: world.project, env: { CLAUDE_CONFIG_DIR: '' } });
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(r.stderr).toBe('error: CLAUDE_CONFIG_DIR is set but empty: unset it (for ~/.claude) or name the config folder\n');
    }
    expect(fs.existsSync(mark)).toBe(false);
    expect(fs.readdirSync(path.join(world.project, 'tasks', 'l'))).toEqual([]);
    const flag = runInProcessSync(world.config, ['--config-dir', '', '-l', 'l', 'list'], { cwd: world.project });
    expect(flag).toMatchObject({ code: 2, stdout: '' });
    expect(flag.stderr).toMatch(/^error: --config-dir is empty/);
    const json = runInProcessSync(world.config, ['-l', 'l', 'list', '--json'], { cwd: world.project, env: { CLAUDE_CONFIG_DIR: '' } });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'usage' } });
  });
});

describe('hooks in CI: tasks trust, a JSON warning when hooks are skipped, --require-hooks', () => {
  const doneIn = (world: HookWorld, args: string[]) => {
    fs.mkdirSync(world.list, { recursive: true });
    if (!fs.existsSync(path.join(world.list, '1.json'))) {
      fs.writeFileSync(
        path.join(world.list, '1.json'),
        JSON.stringify({ id: '1', subject: 'Ship', description: '', status: 'in_progress', blocks: [], blockedBy: [] }, null, 2),
      );
    }
    return runInProcessSync(world.config, ['-l', 'l', ...args], { cwd: world.project });
  };
  const gateHook = (world: HookWorld) => {
    const mark = path.join(world.root, 'gate.ran');
    writeSettings(world, 'project', settingsWith({ TaskCompleted: [{ command: script(world, 'gate.sh', `touch "${mark}"`) }] }));
    return mark;
  };

  it('a fresh checkout: with --json the skip is a JSON warning with its code and facts; the change is made', () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    const mark = gateHook(world);
    const r = doneIn(world, ['done', '1', '--json']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(mark)).toBe(false);
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, Record<string, unknown>>);
    expect(lines).toEqual([
      {
        warning: expect.objectContaining({
          code: 'hooks_skipped',
          reason: 'untrusted',
          files: [path.join(world.project, '.claude', 'settings.json')],
          folder: world.project,
          configFile: path.join(world.config, '.claude.json'),
        }),
      },
    ]);
    expect(String(lines[0]?.warning?.message)).toMatch(
      /^skipped the hooks in .*: this folder is not trusted in Claude Code; to trust it, run tasks trust in /,
    );
  });

  it('--require-hooks fails instead of skipping (exit 4, nothing written); after tasks trust the hook runs', () => {
    const world = hookWorld({ trusted: false });
    spawnSync('git', ['init', '-q', world.project]);
    fs.mkdirSync(path.join(world.project, 'src'));
    const mark = gateHook(world);
    fs.writeFileSync(
      path.join(world.config, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, projects: { '/elsewhere': { allowedTools: ['Bash'] } } }),
    );
    doneIn(world, ['list']);
    const before = fs.readFileSync(path.join(world.list, '1.json'), 'utf8');
    const refused = doneIn(world, ['done', '1', '--require-hooks', '--json']);
    expect(refused.code).toBe(4);
    expect(refused.stdout).toBe('');
    expect(JSON.parse(refused.stderr)).toMatchObject({
      error: { code: 'conflict', reason: 'hooks_skipped', skipped: [{ reason: 'untrusted', folder: world.project }] },
    });
    expect(fs.readFileSync(path.join(world.list, '1.json'), 'utf8')).toBe(before);
    expect(doneIn(world, ['done', '1', '--require-hooks', '--no-hooks'])).toMatchObject({ code: 2 });

    // Trusting from a folder inside the checkout records the repository root, keeping the rest of the file.
    const trusted = runInProcessSync(world.config, ['trust', '--json'], { cwd: path.join(world.project, 'src') });
    expect(trusted.code).toBe(0);
    expect(JSON.parse(trusted.stdout)).toEqual({
      folder: world.project,
      configFile: path.join(world.config, '.claude.json'),
      already: false,
    });
    const config = JSON.parse(fs.readFileSync(path.join(world.config, '.claude.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toEqual({
      hasCompletedOnboarding: true,
      projects: { '/elsewhere': { allowedTools: ['Bash'] }, [world.project]: { hasTrustDialogAccepted: true } },
    });
    const ok = doneIn(world, ['done', '1', '--require-hooks']);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(mark)).toBe(true);
    // Again: nothing to do.
    expect(JSON.parse(runInProcessSync(world.config, ['trust', world.project, '--json']).stdout)).toMatchObject({ already: true });
  });

  it('a global config that is not a JSON object is never overwritten', () => {
    const world = hookWorld({ trusted: false });
    fs.writeFileSync(path.join(world.config, '.claude.json'), '{ broken');
    const r = runInProcessSync(world.config, ['trust', world.project]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /\.claude\.json is not valid JSON \([^)\n]*JSON[^\n]*\): not changed; fix it, or trust the folder in Claude Code\n$/,
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(path.join(world.config, '.claude.json'), 'utf8')).toBe('{ broken');
    // The parser's excerpt of the file is not repeated: the file holds credentials.
    fs.writeFileSync(path.join(world.config, '.claude.json'), '{"primaryApiKey": "sk-ant-SECRET", "b": }');
    const leak = runInProcessSync(world.config, ['trust', world.project]);
    expect(leak.code).toBe(4);
    expect(leak.stderr).not.toMatch(/SECRET|primaryApiKey/);
    expect(leak.stderr).toMatch(/is not valid JSON \(Unexpected token '\}'\): not changed/);
    fs.writeFileSync(path.join(world.config, '.claude.json'), '{"a": 1,\n  "b" 2}');
    expect(runInProcessSync(world.config, ['trust', world.project]).stderr).toMatch(/at position 15 \(line 2 column 7\)\): not changed/);
    // Valid JSON that is no object: said so.
    fs.writeFileSync(path.join(world.config, '.claude.json'), '[1]');
    expect(runInProcessSync(world.config, ['trust', world.project]).stderr).toMatch(/\.claude\.json is not a JSON object: not changed/);
  });

  it('"projects", or the folder\'s record, that is not an object is never replaced (exit 4, the file as it was)', () => {
    const world = hookWorld({ trusted: false });
    const file = path.join(world.config, '.claude.json');
    for (const text of [
      '{"projects":["keep-me",{"a":1}],"other":1}',
      '{"projects":"x"}',
      `{"projects":{${JSON.stringify(world.project)}:"str"}}`,
      `{"projects":{${JSON.stringify(world.project)}:[1]}}`,
    ]) {
      fs.writeFileSync(file, text);
      const r = runInProcessSync(world.config, ['trust', world.project]);
      expect([r.code, r.stderr.trimEnd().split('\n').length], text).toEqual([4, 1]);
      expect(r.stderr).toMatch(/is not a JSON object: not changed; fix it, or trust the folder in Claude Code$/m);
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('a folder that does not exist is not trusted (exit 2), and nothing is written', () => {
    const world = hookWorld({ trusted: false });
    const file = path.join(world.config, '.claude.json');
    const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    const missing = path.join(world.root, 'no-such-checkout');
    const r = runInProcessSync(world.config, ['trust', missing]);
    expect([r.code, r.stderr.trimEnd()]).toEqual([2, `error: ${missing} is not a folder: nothing trusted`]);
    expect(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined).toBe(before);
  });
});
