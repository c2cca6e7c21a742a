/**
 * `tasks lists` with a list folder reached under more than one name (`tasks/shared ->
 * real`, two names linking to one folder elsewhere): one list, one row, under the name
 * of the folder itself (as `log --all` counts it), the other names said beside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig, writeTask } from '../helpers/cli.js';
import { notifyEnv } from '../helpers/notify.js';
import { writeTaskTranscript } from '../helpers/session-files.mjs';

const A = 'a9a9a9a9-1111-4111-8111-111111111111';

type Row = { id: string; aliases: string[]; counts: { total: number }; sessionId: string | null; unsureSessions?: string[] };

function lists(config: string, cwd?: string): Row[] {
  const r = run(config, ['lists', '--json'], { cwd });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Row[];
}

describe('tasks lists: one list folder under several names', () => {
  it('a symlink to a list beside it: one row, the folder, with the link as its alias (JSON, piped, and a note)', () => {
    const config = tempConfig();
    expect(run(config, ['-l', 'real', 'create', 'first']).code).toBe(0);
    expect(run(config, ['-l', 'other', 'create', 'elsewhere']).code).toBe(0);
    fs.symlinkSync('real', path.join(config, 'tasks', 'shared'));
    fs.symlinkSync('real', path.join(config, 'tasks', 'also'));
    const rows = lists(config);
    expect(rows.map((l) => l.id).sort()).toEqual(['other', 'real']);
    expect(rows.find((l) => l.id === 'real')).toMatchObject({ aliases: ['also', 'shared'], counts: { total: 1 } });
    expect(rows.find((l) => l.id === 'other')?.aliases).toEqual([]);
    const piped = run(config, ['lists']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(
      piped.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[0])
        .sort(),
    ).toEqual(['other', 'real']);
    expect(piped.stderr).toContain('also, shared: other names of list real (symbolic links to its folder), shown once, as real');
    // The alias still names the list.
    const read = run(config, ['-l', 'shared', 'list']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain('first');
  });

  it('two links to one folder outside tasks/: one row, under the first name', () => {
    const config = tempConfig();
    const outside = path.join(config, 'outside');
    writeTask(outside, { id: '1', subject: 'kept elsewhere', description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    fs.symlinkSync(outside, path.join(config, 'tasks', 'zeta'));
    fs.symlinkSync(outside, path.join(config, 'tasks', 'alpha'));
    expect(lists(config).map((l) => [l.id, l.aliases])).toEqual([['alpha', ['zeta']]]);
  });

  it("a named list's session is its session, not unsure between the list and its alias", () => {
    const config = tempConfig();
    const proj = path.join(config, 'home', 'proj');
    fs.mkdirSync(proj, { recursive: true });
    const at = Date.now() - 60_000;
    writeTaskTranscript(config, {
      sessionId: A,
      cwd: proj,
      prompt: 'worker on shared',
      calls: [
        { name: 'TaskCreate', input: { subject: 'Shared one', description: '' }, result: { task: { id: '1', subject: 'Shared one' } }, at },
      ],
    });
    const dir = path.join(config, 'tasks', 'shared');
    writeTask(dir, { id: '1', subject: 'Shared one', description: '', status: 'pending', blocks: [], blockedBy: [] });
    fs.utimesSync(path.join(dir, '1.json'), (at + 5) / 1000, (at + 5) / 1000);
    fs.symlinkSync('shared', path.join(config, 'tasks', 'alias'));
    const rows = lists(config, proj);
    expect(rows.map((l) => l.id)).toEqual(['shared']);
    expect(rows[0]).toMatchObject({ sessionId: A, aliases: ['alias'] });
    expect(rows[0]?.unsureSessions).toBeUndefined();
  });
});

describe('every list (--all) with one folder under several names: each list once', () => {
  function aliased(): string {
    const config = tempConfig();
    expect(run(config, ['-l', 'real', 'create', 'first']).code).toBe(0);
    expect(run(config, ['-l', 'real', 'create', 'second']).code).toBe(0);
    fs.symlinkSync('real', path.join(config, 'tasks', 'shared'));
    return config;
  }

  it('cost --all counts each task once, in the list it is in', () => {
    const config = aliased();
    const r = run(config, ['cost', '--all', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { tasks: Array<{ list: string; id: string }> }).tasks.map((t) => `${t.list} #${t.id}`)).toEqual([
      'real #1',
      'real #2',
    ]);
  });

  it('notify --all tells of a list finished once, not once a name', () => {
    const config = aliased();
    for (const id of ['1', '2']) expect(run(config, ['-l', 'real', 'done', id]).code).toBe(0);
    const out = path.join(config, 'sent.jsonl');
    const r = run(config, ['notify', '--all', '--once', '--on', 'list-completed', '--to', `exec:cat >> '${out}'; echo >> '${out}'`], {
      env: notifyEnv(config),
    });
    expect(r.code, r.stderr).toBe(0);
    const sent = fs.readFileSync(out, 'utf8').trim().split('\n').filter(Boolean);
    expect(sent).toHaveLength(1);
    expect((JSON.parse(sent[0] as string) as { list: string }).list).toBe('real');
  });

  it('check --all checks the folder once', () => {
    const config = aliased();
    const r = run(config, ['check', '--all', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ list: string }>).map((c) => c.list)).toEqual(['real']);
  });
});
