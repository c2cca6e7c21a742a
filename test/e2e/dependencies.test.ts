import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureConfig, readJson, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { runInTmux } from '../helpers/tmux.js';

/** The fixture: 1 (completed, researcher) blocks 2; 2 blocks 4; 5 stands alone. */
const file = (list: string, id: string) => readJson(path.join(list, `${id}.json`)) as Record<string, unknown>;

describe('block', () => {
  it("writes both sides, in the agents' byte format, and reports what it added", async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['block', '5', '--by', '4,2']);
    expect(r).toMatchObject({ code: 0, stdout: 'Task #5 is now blocked by #4, #2\n', stderr: '' });
    expect(file(list, '5')).toMatchObject({ blockedBy: ['4', '2'] });
    expect(file(list, '4')).toMatchObject({ blocks: ['5'] });
    expect(file(list, '2')).toMatchObject({ blocks: ['4', '5'] });
    expect(fs.readFileSync(path.join(list, '5.json'), 'utf8')).toBe(
      JSON.stringify(
        { id: '5', subject: 'Write changelog', description: 'docs', status: 'pending', blocks: [], blockedBy: ['4', '2'] },
        null,
        2,
      ),
    );
  });

  it('is idempotent: an edge already there is left alone and said so', async () => {
    const { config, list } = fixtureConfig();
    const before = fs.readFileSync(path.join(list, '4.json'), 'utf8');
    const r = await runInProcess(config, ['block', '4', '--by', '2']);
    expect(r).toMatchObject({ code: 0, stdout: 'Task #4 was already blocked by #2; nothing changed\n' });
    expect(fs.readFileSync(path.join(list, '4.json'), 'utf8')).toBe(before);
    expect((await runInProcess(config, ['block', '4', '--by', '2,5'])).stdout).toBe('Task #4 is now blocked by #5 (already: #2)\n');
  });

  it('completes a half-mirrored edge', async () => {
    const { config, list } = fixtureConfig();
    writeTask(list, { id: '6', subject: 'x', description: '', status: 'pending', blocks: ['5'], blockedBy: [] });
    expect((await runInProcess(config, ['block', '5', '--by', '6'])).stdout).toBe('Task #5 is now blocked by #6\n');
    expect(file(list, '5')).toMatchObject({ blockedBy: ['6'] });
    expect(file(list, '6')).toMatchObject({ blocks: ['5'] });
  });

  it('--json prints the blocked task in the shape of its file', async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['block', '5', '--by', '2', '--json']);
    expect(JSON.parse(r.stdout)).toEqual({ ...file(list, '5'), updatedAt: expect.any(String) });
  });

  it('refuses a cycle, showing its path (8 -> 6 -> 7 -> 8)', async () => {
    const { config } = fixtureConfig();
    for (const s of ['a', 'b', 'c']) await runInProcess(config, ['create', s]); // 6, 7, 8
    await runInProcess(config, ['block', '7', '--by', '6']);
    await runInProcess(config, ['block', '8', '--by', '7']);
    const r = await runInProcess(config, ['block', '6', '--by', '8', '--json']);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'conflict', cycle: ['8', '6', '7', '8'] } });
    expect((await runInProcess(config, ['block', '6', '--by', '8'])).stderr).toBe(
      'error: #8 blocking #6 would make a cycle: 8 -> 6 -> 7 -> 8\n',
    );
  });

  it('refuses a new task that would close a cycle through the tasks it is placed between, and writes nothing', async () => {
    const { config, list } = fixtureConfig();
    for (const s of ['a', 'b']) await runInProcess(config, ['create', s]); // 6, 7
    await runInProcess(config, ['block', '7', '--by', '6']);
    const dir = list;
    const before = fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]);
    const r = await runInProcess(config, ['create', 'd', '--blocks', '6', '--blocked-by', '7']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('error: the new task, blocked by #7 and blocking #6, would make a cycle: new -> 6 -> 7 -> new\n');
    expect(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')])).toEqual(before);
    // Placed the other way round, it only lengthens the chain.
    expect((await runInProcess(config, ['create', 'd', '--blocks', '7', '--blocked-by', '6'])).code).toBe(0);
  });
});

describe('unblock', () => {
  it('removes the edge from both sides and says what still blocks', async () => {
    const { config, list } = fixtureConfig();
    await runInProcess(config, ['block', '4', '--by', '5']);
    const r = await runInProcess(config, ['unblock', '4', '--by', '5']);
    expect(r).toMatchObject({ code: 0, stdout: 'Task #4 is no longer blocked by #5 (still blocked by #2)\n', stderr: '' });
    expect(file(list, '4')).toMatchObject({ blockedBy: ['2'] });
    expect(file(list, '5')).toMatchObject({ blocks: [] });
  });

  it('without --by removes every blocker, from either side, missing tasks included', async () => {
    const { config, list } = fixtureConfig();
    writeTask(list, { id: '6', subject: 'half', description: '', status: 'pending', blocks: ['4'], blockedBy: [] });
    fs.writeFileSync(path.join(list, '4.json'), JSON.stringify({ ...file(list, '4'), blockedBy: ['2', '42'] }, null, 2));
    const r = await runInProcess(config, ['unblock', '4']);
    expect(r).toMatchObject({ code: 0, stdout: 'Task #4 is no longer blocked by #2, #42, #6\n' });
    expect(file(list, '4')).toMatchObject({ blockedBy: [] });
    expect(file(list, '2')).toMatchObject({ blocks: [] });
    expect(file(list, '6')).toMatchObject({ blocks: [] });
    expect((await runInProcess(config, ['unblock', '4'])).stdout).toBe('Task #4 has no blockers; nothing changed\n');
  });

  it('a task that does not block it is a warning, not an error; unknown ids are not found', async () => {
    const { config } = fixtureConfig();
    const r = await runInProcess(config, ['unblock', '4', '--by', '5']);
    expect(r).toMatchObject({
      code: 0,
      stdout: 'Task #4 is not blocked by those; nothing changed\n',
      stderr: 'warning: #5 does not block #4\n',
    });
    expect(await runInProcess(config, ['unblock', '4', '--by', '77'])).toMatchObject({
      code: 3,
      stderr: 'error: task #77 not found (and #4 does not name it)\n',
    });
  });

  it('unblocking makes the task ready to claim', async () => {
    const { config } = fixtureConfig();
    expect((await runInProcess(config, ['claim', '4', '--as', 'amy'])).code).toBe(4);
    await runInProcess(config, ['unblock', '4']);
    expect(await runInProcess(config, ['claim', '4', '--as', 'amy'])).toMatchObject({ code: 0, stdout: '4\n' });
  });
});

describe('list --ready / --blocked, missing blockers, get', () => {
  it('--ready: pending, unowned, no open blocker; --blocked: waiting on an open one', async () => {
    const { config, list } = fixtureConfig();
    writeTask(list, { id: '6', subject: 'owned', description: '', status: 'pending', owner: 'amy', blocks: [], blockedBy: [] });
    writeTask(list, { id: '7', subject: 'dangling', description: '', status: 'pending', blocks: [], blockedBy: ['42'] });
    const ids = async (args: string[]) =>
      JSON.parse((await runInProcess(config, ['list', '--json', ...args])).stdout).map((t: { id: string }) => t.id);
    expect(await ids(['--ready'])).toEqual(['2', '5', '7']);
    expect(await ids(['--blocked'])).toEqual(['4']);
    expect(await runInProcess(config, ['list', '--ready', '--blocked'])).toMatchObject({
      code: 2,
      stderr: 'error: --ready and --blocked cannot be used together\n',
    });
  });

  it('marks blockers that name missing tasks: #n? in the table, a warning when piped', async () => {
    const { config, list } = fixtureConfig();
    writeTask(list, { id: '7', subject: 'dangling', description: '', status: 'pending', blocks: [], blockedBy: ['42'] });
    const piped = await runInProcess(config, ['list']);
    expect(piped.stdout).toContain('7\tpending\t-\t-\tdangling\n');
    expect(piped.stderr).toContain('warning: task #7 is blocked by #42, which does not exist (it does not block)\n');
    // The binary in a terminal (tmux): the table as a person sees it.
    const table = await runInTmux(config, ['list'], { width: 120, height: 20 });
    expect(table).toMatch(/#7\s+○ pending\s+dangling\s+\S+ ago\s+#42\?/);
    expect(table).toMatch(/#n\? names a task that does not exist; it does not block/);
    expect((await runInProcess(config, ['list', '--json'])).stderr).toBe('');
  });

  it('get shows each open blocker with its status and owner', async () => {
    const { config } = fixtureConfig();
    await runInProcess(config, ['claim', '2', '--as', 'amy', '--start']);
    await runInProcess(config, ['block', '4', '--by', '5']);
    const r = await runInProcess(config, ['get', '4']);
    expect(r.stdout).toMatch(
      /Blocked by:\s+2 open\n\s+#2 Refactor auth\s+▶ in progress \(amy\) open\n\s+#5 Write changelog\s+○ pending open/,
    );
  });
});
