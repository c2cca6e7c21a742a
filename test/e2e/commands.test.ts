import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureConfig, readJson, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

describe('create', () => {
  it('creates a list on first use and writes every given field', async () => {
    const config = tempConfig();
    const r = await runInProcess(config, [
      '-l',
      'my.team/x',
      'create',
      'Fix bug',
      '-d',
      'in auth',
      '--active-form',
      'Fixing bug',
      '--owner',
      'me',
      '--status',
      'in_progress',
      '--meta',
      'prio=high',
      '--meta',
      'n:=3',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const file = path.join(config, 'tasks', 'my-team-x', '1.json');
    expect(JSON.parse(r.stdout)).toEqual({ ...(readJson(file) as object), updatedAt: expect.any(String) });
    expect(fs.readFileSync(file, 'utf8')).toBe(
      JSON.stringify(
        {
          id: '1',
          subject: 'Fix bug',
          description: 'in auth',
          activeForm: 'Fixing bug',
          owner: 'me',
          status: 'in_progress',
          blocks: [],
          blockedBy: [],
          metadata: { prio: 'high', n: 3 },
        },
        null,
        2,
      ),
    );
    expect(fs.existsSync(path.join(config, 'tasks', 'my-team-x', '.lock'))).toBe(true);
    expect(fs.existsSync(path.join(config, 'tasks', 'my-team-x', '.highwatermark'))).toBe(false);
  });

  it('links both sides of --blocked-by and --blocks', async () => {
    const { config, list } = fixtureConfig();
    expect((await runInProcess(config, ['create', 'Mid', '--blocked-by', '5', '--blocks', '4'])).stdout).toBe('6\n');
    expect(readJson(path.join(list, '6.json'))).toMatchObject({ blockedBy: ['5'], blocks: ['4'] });
    expect(readJson(path.join(list, '5.json'))).toMatchObject({ blocks: ['6'] });
    expect(readJson(path.join(list, '4.json'))).toMatchObject({ blockedBy: ['2', '6'] });
  });

  it('uses $CLAUDE_CODE_TASK_LIST_ID when no --list is given', async () => {
    const config = tempConfig();
    expect((await runInProcess(config, ['create', 'x'], { env: { CLAUDE_CODE_TASK_LIST_ID: 'envlist' } })).code).toBe(0);
    expect(fs.existsSync(path.join(config, 'tasks', 'envlist', '1.json'))).toBe(true);
  });
});

describe('update', () => {
  it('keeps unknown top-level keys and reports changed fields like TaskUpdate', async () => {
    const { config, list } = fixtureConfig();
    writeTask(list, { id: '9', subject: 's', description: '', status: 'pending', blocks: [], blockedBy: [], custom: { x: 1 } });
    const r = await runInProcess(config, ['update', '9', '--owner', 'amy', '--status', 'in_progress']);
    expect(r.stdout).toBe('Updated task #9 owner, status\n');
    const file = readJson(path.join(list, '9.json')) as Record<string, unknown>;
    expect(file.custom).toEqual({ x: 1 });
    expect(Object.keys(file)).toEqual(['id', 'subject', 'description', 'status', 'blocks', 'blockedBy', 'owner', 'custom']);
  });

  it('--no-owner unassigns; --active-form "" removes it; nothing-changed is said', async () => {
    const { config, list } = fixtureConfig();
    expect((await runInProcess(config, ['update', '1', '--no-owner'])).stdout).toBe('Updated task #1 owner\n');
    expect(readJson(path.join(list, '1.json'))).not.toHaveProperty('owner');
    expect((await runInProcess(config, ['update', '2', '--active-form', ''])).code).toBe(0);
    expect(readJson(path.join(list, '2.json'))).not.toHaveProperty('activeForm');
    expect((await runInProcess(config, ['update', '5', '--status', 'pending'])).stdout).toMatch(/nothing changed/);
  });

  it('--add-blocks writes both sides', async () => {
    const { config, list } = fixtureConfig();
    expect((await runInProcess(config, ['update', '5', '--add-blocks', '4'])).code).toBe(0);
    expect(readJson(path.join(list, '5.json'))).toMatchObject({ blocks: ['4'] });
    expect(readJson(path.join(list, '4.json'))).toMatchObject({ blockedBy: ['2', '5'] });
  });

  it('--status deleted deletes, as TaskUpdate does', async () => {
    const { config, list } = fixtureConfig();
    expect((await runInProcess(config, ['update', '5', '--status', 'deleted'])).code).toBe(0);
    expect(fs.existsSync(path.join(list, '5.json'))).toBe(false);
  });

  it('a file whose id inside is not its name (a copy, a hand edit) is updated as the task its name says, and the id inside is put right', async () => {
    const { config, list } = fixtureConfig();
    const other = readJson(path.join(list, '5.json')) as Record<string, unknown>;
    fs.writeFileSync(path.join(list, '50.json'), JSON.stringify({ ...other, subject: 'A copy' }));
    const r = await runInProcess(config, ['update', '50', '--owner', 'q']);
    expect([r.code, r.stdout.trim()]).toEqual([0, 'Updated task #50 owner']);
    expect(readJson(path.join(list, '50.json'))).toMatchObject({ id: '50', subject: 'A copy', owner: 'q' });
    expect(readJson(path.join(list, '5.json'))).toEqual(other);
    const json = await runInProcess(config, ['update', '50', '--owner', 'r', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: '50', owner: 'r' });
  });

  it('--status deleted with any other change, --owner and --no-owner included, is refused (exit 2) and deletes nothing', async () => {
    const { config, list } = fixtureConfig();
    for (const more of [['--owner', 'x'], ['--no-owner'], ['--subject', 'n']]) {
      const r = await runInProcess(config, ['update', '5', '--status', 'deleted', ...more]);
      expect([r.code, r.stderr.trimEnd()]).toEqual([2, 'error: --status deleted cannot be combined with other changes']);
      expect(fs.existsSync(path.join(list, '5.json'))).toBe(true);
    }
  });
});

describe('delete', () => {
  it('raises the mark, unlinks, and cleans references', async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['delete', '2']);
    expect(r).toMatchObject({ code: 0, stdout: 'Deleted task #2: Refactor auth (removed from #1, #4)\n' });
    expect(fs.existsSync(path.join(list, '2.json'))).toBe(false);
    expect(readJson(path.join(list, '1.json'))).toMatchObject({ blocks: [] });
    expect(readJson(path.join(list, '4.json'))).toMatchObject({ blockedBy: [] });
    expect(fs.readFileSync(path.join(list, '.highwatermark'), 'utf8')).toBe('3'); // 2 < 3: unchanged
    await runInProcess(config, ['delete', '5']);
    expect(fs.readFileSync(path.join(list, '.highwatermark'), 'utf8')).toBe('5');
    expect((await runInProcess(config, ['create', 'after'])).stdout).toBe('6\n');
  });

  it('does each id, reports each, exits with the worst code', async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['delete', '4', '99', '5']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/Deleted task #4.*\nDeleted task #5/);
    expect(r.stderr.trim()).toBe('error: task #99 not found');
    expect(
      fs
        .readdirSync(list)
        .filter((n) => n.endsWith('.json'))
        .sort(),
    ).toEqual(['1.json', '2.json']);
  });

  it('an id given twice counts once, in delete and release: done once, reported once, exit 0', async () => {
    const { config, list } = fixtureConfig();
    const r = await runInProcess(config, ['delete', '2', '2']);
    expect(r).toEqual({ code: 0, stdout: 'Deleted task #2: Refactor auth (removed from #1, #4)\n', stderr: '' });
    expect(fs.existsSync(path.join(list, '2.json'))).toBe(false);
    const dry = await runInProcess(config, ['delete', '4', '#4,4', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).map((i: { id: string }) => i.id)).toEqual(['4']);
    expect((await runInProcess(config, ['update', '5', '--owner', 'bob'])).code).toBe(0);
    const released = await runInProcess(config, ['release', '5', '5', '--json']);
    expect(released.code).toBe(0);
    expect(JSON.parse(released.stdout).map((i: { id: string }) => i.id)).toEqual(['5']);
  });

  it('--dry-run writes nothing', async () => {
    const { config, list } = fixtureConfig();
    const before = fs.readdirSync(list).map((n) => n + fs.readFileSync(path.join(list, n), 'utf8'));
    const r = await runInProcess(config, ['delete', '2', '--dry-run']);
    expect(r.stdout).toBe('Would delete task #2: Refactor auth (and remove it from #1, #4)\n');
    expect(fs.readdirSync(list).map((n) => n + fs.readFileSync(path.join(list, n), 'utf8'))).toEqual(before);
  });
});

describe('choosing the list', () => {
  function twoLists() {
    const { config } = fixtureConfig();
    const other = path.join(config, 'tasks', 'other');
    writeTask(other, { id: '1', subject: 'o', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(path.join(config, 'tasks', 'refactor-auth'), old, old);
    for (const f of fs.readdirSync(path.join(config, 'tasks', 'refactor-auth')))
      fs.utimesSync(path.join(config, 'tasks', 'refactor-auth', f), old, old);
    return config;
  }

  it('a read takes the most recently changed list and says so on stderr', async () => {
    const config = twoLists();
    const r = await runInProcess(config, ['list', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((t: { subject: string }) => t.subject)).toEqual(['o']);
    expect(r.stderr).toMatch(/using list other, the most recently changed \(others: refactor-auth\)/);
  });

  it('a mutation refuses and names the candidates', async () => {
    const config = twoLists();
    const r = await runInProcess(config, ['create', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "error: 2 task lists exist and none belongs to this directory's sessions, so a change needs its list named: tasks -l other create x or tasks -l refactor-auth create x; tasks use <id> makes the choice stick",
    );
  });

  it('lists shows every list with counts', async () => {
    const config = twoLists();
    const r = await runInProcess(config, ['lists', '--json']);
    const lists = JSON.parse(r.stdout);
    expect(lists.map((l: { id: string }) => l.id)).toEqual(['other', 'refactor-auth']);
    expect(lists[1]).toMatchObject({ counts: { total: 4, completed: 1, inProgress: 0, pending: 3 } });
    expect((await runInProcess(config, ['lists'])).stdout.split('\n')[1]).toMatch(/^refactor-auth\t4\t1\t0\t3\t\d{4}-/);
  });
});

describe('the global options that say where a command acts', () => {
  it('given twice with two values, are refused (exit 2) and nothing is written; the same value twice is one', async () => {
    const config = tempConfig();
    expect((await runInProcess(config, ['-l', 'L1', 'create', 'first'])).code).toBe(0);
    for (const argv of [
      ['-l', 'L1', '-l', 'L2', 'create', 'x'],
      ['-l', 'L1', 'create', 'x', '--list', 'L2'],
      ['--session', 'a', '--session', 'b', 'list'],
      ['--config-dir', config, '--config-dir', '/tmp', 'list'],
    ]) {
      const r = await runInProcess(config, argv);
      expect(r.code, argv.join(' ')).toBe(2);
      // One line in the shape of every other usage error, naming the option.
      expect(r.stderr.trimEnd()).toMatch(/^error: --(list|session|config-dir) given twice \(.*, then .*\): give it once$/);
    }
    expect(fs.existsSync(path.join(config, 'tasks', 'L2'))).toBe(false);
    expect(fs.readdirSync(path.join(config, 'tasks', 'L1')).filter((f) => f.endsWith('.json'))).toEqual(['1.json']);
    expect((await runInProcess(config, ['-l', 'L1', 'create', 'second', '-l', 'L1'])).code).toBe(0);
  });

  it("and a command's own option that takes one value: refused given twice with two values, before anything is written", async () => {
    const config = tempConfig();
    expect((await runInProcess(config, ['-l', 'L1', 'create', 'first'])).code).toBe(0);
    const before = fs.readFileSync(path.join(config, 'tasks', 'L1', '1.json'), 'utf8');
    for (const [argv, named] of [
      [['-l', 'L1', 'update', '1', '--owner', 'a', '--owner', 'b'], '--owner'],
      [['-l', 'L1', 'update', '1', '--status', 'completed', '--status', 'pending'], '--status'],
      [['-l', 'L1', 'update', '1', '--subject', 'x', '--subject=y'], '--subject'],
      [['-l', 'L1', 'list', '--sort', 'id', '--sort', 'status'], '--sort'],
      [['-l', 'L1', 'create', 'second', '-d', 'one', '--description', 'two'], '--description'],
      [['-l', 'L1', 'update', '1', '--owner', 'a', '--no-owner'], '--owner'],
      [['-l', 'L1', 'update', '1', '--no-owner', '--owner', 'a'], '--owner'],
      // One metadata key given two values, or set and removed; an optional value given and left out.
      [['-l', 'L1', 'update', '1', '--meta', 'k=1', '--meta', 'k=2'], '--meta k'],
      [['-l', 'L1', 'create', 'second', '--meta', 'k:=1', '--meta', 'k=1'], '--meta k'],
      [['-l', 'L1', 'list', '--meta', 'k=1', '--meta', 'k=2'], '--meta k'],
      [['-l', 'L1', 'update', '1', '--meta', 'k=1', '--unset-meta', 'k'], '--meta k'],
      [['-l', 'L1', 'list', '--stalled', '1h', '--stalled'], '--stalled'],
      [['-l', 'L1', '--hosts=/a', '--hosts=/b', 'list'], '--hosts'],
    ] as const) {
      const r = await runInProcess(config, [...argv]);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr.trimEnd(), argv.join(' ')).toMatch(
        new RegExp(`${named} (given twice \\(.*, then .*\\): give it once|and --(no-owner|unset-meta k) given together: give one)$`),
      );
    }
    // --hosts alone names tasks's own hosts file.
    expect((await runInProcess(config, ['--hosts', '--hosts=/a', 'list'])).stderr.trimEnd()).toBe(
      "error: --hosts given twice (tasks's own hosts file, then /a): give it once",
    );
    expect(fs.readFileSync(path.join(config, 'tasks', 'L1', '1.json'), 'utf8')).toBe(before);
    expect(fs.readdirSync(path.join(config, 'tasks', 'L1')).filter((f) => f.endsWith('.json'))).toEqual(['1.json']);
    // The same value twice is one, in either spelling; options that may be repeated still collect.
    expect((await runInProcess(config, ['-l', 'L1', 'update', '1', '--owner', 'a', '--owner', 'a'])).code).toBe(0);
    const spelt = await runInProcess(config, ['-l', 'L1', 'update', '1', '--status', 'in-progress', '--status', 'in_progress']);
    expect(spelt.code, spelt.stderr).toBe(0);
    expect((await runInProcess(config, ['-l', 'L1', 'update', '1', '--meta', 'k=1', '--meta', 'k=1'])).code).toBe(0);
    expect((await runInProcess(config, ['-l', 'L1', 'list', '--stalled', '--stalled'])).code).toBe(0);
    expect((await runInProcess(config, ['-l', 'L1', 'create', 'second', '--meta', 'a=1', '--meta', 'b=2', '--json'])).stdout).toMatch(
      /"a": ?"1"[\s\S]*"b": ?"2"/,
    );
  });
});
