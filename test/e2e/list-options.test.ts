import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

/** `list --sort --limit --search --meta -q`, and the table's UPDATED column. */

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

function world(): { config: string; dir: string } {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'l');
  writeTask(dir, task('1', { status: 'completed', owner: 'zoe', subject: 'Fix auth bug' }));
  writeTask(dir, task('2', { status: 'in_progress', owner: 'amy', subject: 'Refactor api', activeForm: 'Refactoring api' }));
  writeTask(dir, task('3', { description: 'touches the AUTH module', metadata: { priority: 'high', n: 3 } }));
  writeTask(dir, task('4', { metadata: { priority: 'low' } }));
  const at = (id: string, secondsAgo: number) => {
    const when = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(path.join(dir, `${id}.json`), when, when);
  };
  at('1', 3600);
  at('2', 60);
  at('3', 7200);
  at('4', 300);
  return { config, dir };
}

const ids = async (config: string, args: string[]) =>
  (JSON.parse((await runInProcess(config, ['-l', 'l', 'list', '--json', ...args])).stdout) as Array<{ id: string }>).map((t) => t.id);

describe('list options', () => {
  it('--sort id|status|owner|updated', async () => {
    const { config } = world();
    expect(await ids(config, ['--sort', 'id'])).toEqual(['1', '2', '3', '4']);
    expect(await ids(config, ['--sort', 'status'])).toEqual(['2', '3', '4', '1']);
    expect(await ids(config, ['--sort', 'owner'])).toEqual(['2', '1', '3', '4']);
    expect(await ids(config, ['--sort', 'updated'])).toEqual(['2', '4', '1', '3']);
    const bad = await runInProcess(config, ['-l', 'l', 'list', '--sort', 'size']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: option '--sort <key>' argument 'size' is invalid/);
  });

  it('--limit n shows the first n; the summary still counts every match and says so', async () => {
    const { config } = world();
    expect(await ids(config, ['--sort', 'updated', '--limit', '2'])).toEqual(['2', '4']);
    const r = await runInProcess(config, ['-l', 'l', 'list', '--limit', '1']);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toBe('4 tasks: 1 done, 1 in progress, 2 pending (showing 1; --limit)\n');
    expect(await runInProcess(config, ['-l', 'l', 'list', '--limit', '0'])).toMatchObject({
      code: 2,
      stderr: 'error: invalid --limit "0": expected a whole number above 0\n',
    });
  });

  it('--search looks in subject and description, any case; --meta key=value and key:=<json>', async () => {
    const { config } = world();
    expect(await ids(config, ['--search', 'auth'])).toEqual(['1', '3']);
    expect(await ids(config, ['--meta', 'priority=high'])).toEqual(['3']);
    expect(await ids(config, ['--meta', 'n:=3'])).toEqual(['3']);
    expect(await ids(config, ['--meta', 'priority=high', '--search', 'nothing'])).toEqual([]);
  });

  it('-q drops the summary', async () => {
    const { config } = world();
    const r = await runInProcess(config, ['-l', 'l', 'list', '-q']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
  });

  it.skipIf(!tmuxAvailable())('the table has an UPDATED column and does not repeat an activeForm that restates the subject', async () => {
    const { config } = world();
    // The binary in a terminal (tmux): the table as a person sees it.
    const screen = await runInTmux(config, ['-l', 'l', 'list'], { width: 120, height: 12 });
    expect(screen).toMatch(/ID +STATUS +SUBJECT +OWNER +UPDATED +BLOCKED BY/);
    expect(screen).toMatch(/#2 +▶ in progress +Refactor api +amy +1 min ago/);
    expect(screen).not.toContain('Refactoring api');
    expect(screen).toMatch(/#3 +○ pending +Task 3 +2 h ago/);
  });
});

describe('--owner @me', () => {
  it('means the login name ($USER) in list, update, create, claim --as and --if-owner', async () => {
    const { config, dir } = world();
    const env = { USER: 'amy' };
    expect(
      JSON.parse((await runInProcess(config, ['-l', 'l', 'list', '--json', '--owner', '@me'], { env })).stdout).map(
        (t: { id: string }) => t.id,
      ),
    ).toEqual(['2']);
    expect((await runInProcess(config, ['-l', 'l', 'update', '3', '--owner', '@me'], { env })).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, '3.json'), 'utf8')).owner).toBe('amy');
    expect((await runInProcess(config, ['-l', 'l', 'update', '3', '--status', 'in_progress', '--if-owner', '@me'], { env })).code).toBe(0);
    expect((await runInProcess(config, ['-l', 'l', 'claim', '4', '--as', '@me'], { env })).stdout).toBe('4\n');
    expect(JSON.parse(fs.readFileSync(path.join(dir, '4.json'), 'utf8')).owner).toBe('amy');
  });
});
