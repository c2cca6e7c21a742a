import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fixtureConfig, snapshotDir } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

/** The real agent's list (Claude Code 2.1.328): tasks 1, 2, 4, 5; high-water mark 3. */
describe('the refactor-auth fixture', () => {
  it('lists tasks 1, 2, 4, 5 in the shape of their files', async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['list', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const tasks = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(tasks.map((t) => t.id)).toEqual(['1', '2', '4', '5']);
    const { updatedAt, ...asStored } = tasks[2] as Record<string, unknown>;
    expect(asStored).toEqual(JSON.parse(fs.readFileSync(path.join(list, '4.json'), 'utf8')));
    expect(updatedAt).toBe(new Date(fs.statSync(path.join(list, '4.json')).mtimeMs).toISOString());
  });

  it('allocates id 6 next: max(highest file 5, mark 3) + 1', async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['create', 'Ship it', '-d', 'release']);
    expect(r).toMatchObject({ code: 0, stdout: '6\n', stderr: '' });
    expect(fs.readFileSync(path.join(list, '6.json'), 'utf8')).toBe(
      JSON.stringify({ id: '6', subject: 'Ship it', description: 'release', status: 'pending', blocks: [], blockedBy: [] }, null, 2),
    );
    expect(fs.readFileSync(path.join(list, '.highwatermark'), 'utf8')).toBe('3');
  });

  it('writes exactly the bytes Claude Code writes for the same update', async () => {
    const { config, list } = fixtureConfig();
    // 1.json as the agent wrote it after "TaskUpdate status completed"; step it back to
    // in_progress, make the same change with tasks, and compare bytes.
    const agentBytes = fs.readFileSync(path.join(FIXTURES, 'tasks', 'refactor-auth', '1.json'), 'utf8');
    fs.writeFileSync(path.join(list, '1.json'), agentBytes.replace('"completed"', '"in_progress"'));
    const r = await runInProcess(config, ['update', '1', '--status', 'completed']);
    expect(r).toMatchObject({ code: 0, stdout: 'Updated task #1 status\n', stderr: '' });
    expect(fs.readFileSync(path.join(list, '1.json'), 'utf8')).toBe(agentBytes);
  });

  it('updates 4 as the agent would (metadata merge, no trailing newline, mode 0644)', async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['update', '4', '--meta', 'priority=high', '--unset-meta', 'note']);
    expect(r).toMatchObject({ code: 0, stdout: 'Updated task #4 metadata\n' });
    const bytes = fs.readFileSync(path.join(list, '4.json'), 'utf8');
    expect(bytes.endsWith('}')).toBe(true);
    expect(JSON.parse(bytes).metadata).toEqual({ priority: 'high' });
    expect(fs.statSync(path.join(list, '4.json')).mode & 0o777).toBe(0o644 & ~process.umask());
    expect(fs.readdirSync(list).filter((n) => n.includes('.tmp') || (n.endsWith('.lock') && n !== '.lock'))).toEqual([]);
  });

  it('get shows open and completed blockers apart, and what a task blocks', async () => {
    const { config } = fixtureConfig();
    const r = await runInProcess(config, ['get', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('#2 Refactor auth');
    expect(r.stdout).toMatch(/Blocked by:\s+none open/);
    expect(r.stdout).toMatch(/#1 Analyse code\s+✔ done \(researcher\)/);
    expect(r.stdout).toMatch(/Blocks:\n\s+#4 Run tests/);
    const four = (await runInProcess(config, ['get', '4'])).stdout;
    expect(four).toMatch(/Blocked by:\s+1 open/);
    expect(four).toMatch(/#2 Refactor auth\s+○ pending open/);
    // Completed with a blocker still open: not blocked, but that blocker is still counted open.
    expect((await runInProcess(config, ['update', '4', '--status', 'completed', '--no-hooks'])).code).toBe(0);
    const done = (await runInProcess(config, ['get', '4'])).stdout;
    expect(done).toMatch(/Blocked by:\s+1 open\n\s+#2 Refactor auth\s+○ pending open/);
  });

  it('reads change nothing on disk', async () => {
    const { config, list } = fixtureConfig();
    const before = snapshotDir(list);
    for (const args of [['list'], ['list', '--json'], ['get', '4'], ['lists'], ['get', '4', '--json']]) await runInProcess(config, args);
    expect(snapshotDir(list)).toEqual(before);
  });
});
