import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

/**
 * A task's status and "waiting on an open blocker" are two facts: every view shows both
 * alike, and the summary's parts add up to the total.
 */

const task = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: '',
  status,
  blocks: [],
  blockedBy: [],
  ...extra,
});

/** #1 pending; #2 in progress (Working on two) waiting for #1; #3 pending waiting for #1. */
function listWithBlockedWork(): string {
  const config = tempConfig();
  const dir = `${config}/tasks/l`;
  writeTask(dir, task('1', 'pending', { blocks: ['2', '3'] }));
  writeTask(dir, task('2', 'in_progress', { activeForm: 'Working on two', blockedBy: ['1'] }));
  writeTask(dir, task('3', 'pending', { blockedBy: ['1'] }));
  return config;
}

describe('a task in progress with an open blocker', () => {
  it('list --json is untouched; the summary counts each status once and adds up', async () => {
    const config = listWithBlockedWork();
    const r = await runInProcess(config, ['-l', 'l', 'list']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('3 tasks: 0 done, 1 in progress (1 blocked), 2 pending (1 blocked)\n');
  });

  it.skipIf(!tmuxAvailable())('the table shows it in progress with its activeForm, and its blocker', async () => {
    const config = listWithBlockedWork();
    // The binary in a terminal (tmux): the table as a person sees it.
    const screen = await runInTmux(config, ['-l', 'l', 'list'], { width: 100, height: 12 });
    const row = screen.split('\n').find((l) => l.includes('#2')) ?? '';
    expect(row).toMatch(/▶ in progress\s+Task 2 · Working on two\s+\S+ ago\s+#1/);
    const pending = screen.split('\n').find((l) => l.includes('#3')) ?? '';
    expect(pending).toMatch(/○ pending\s+Task 3\s+\S+ ago\s+#1/);
    expect(screen).toContain('3 tasks: 0 done, 1 in progress (1 blocked), 2 pending (1 blocked)');
  });
});

describe('starting or completing a task with open blockers (allowed, as for agents)', () => {
  it('update --status completed says on stderr which blockers are still open', async () => {
    const config = listWithBlockedWork();
    const r = await runInProcess(config, ['-l', 'l', 'update', '3', '--status', 'completed']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: #3 is still blocked by #1 \(pending\)/m);
  });

  it('update --status in_progress says so too; no warning when nothing open blocks it', async () => {
    const config = listWithBlockedWork();
    const r = await runInProcess(config, ['-l', 'l', 'update', '3', '--status', 'in_progress']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: #3 is still blocked by #1 \(pending\)/m);
    const free = await runInProcess(config, ['-l', 'l', 'update', '1', '--status', 'in_progress']);
    expect(free).toMatchObject({ code: 0, stderr: '' });
  });

  it("claim --start of a blocked task is still refused (the agents' claim rule)", async () => {
    const config = listWithBlockedWork();
    expect((await runInProcess(config, ['-l', 'l', 'claim', '3', '--as', 'amy', '--start'])).code).toBe(4);
  });
});

describe('tasks start <id> and tasks done <id>', () => {
  it('start sets in_progress, done sets completed; open blockers are named; output as update', async () => {
    const config = listWithBlockedWork();
    const started = await runInProcess(config, ['-l', 'l', 'start', '3']);
    expect(started).toMatchObject({
      code: 0,
      stdout: 'Updated task #3 status\n',
      stderr: 'warning: #3 is still blocked by #1 (pending)\n',
    });
    const done = await runInProcess(config, ['-l', 'l', 'done', '1', '--json']);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ id: '1', status: 'completed' });
    expect(await runInProcess(config, ['-l', 'l', 'done', '1'])).toMatchObject({
      code: 0,
      stdout: 'Task #1 in l is already as asked; nothing changed\n',
    });
    expect(await runInProcess(config, ['-l', 'l', 'done', '99'])).toMatchObject({ code: 3, stderr: 'error: task #99 not found\n' });
    expect(await runInProcess(config, ['-l', 'l', 'start', 'x'])).toMatchObject({ code: 2 });
  });
});
