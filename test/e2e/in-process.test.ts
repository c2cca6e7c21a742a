import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureConfig, type RunResult, run, snapshotDir } from '../helpers/cli.js';
import { settingsWith } from '../helpers/hooks.js';
import { type InProcessOptions, runInProcess } from '../helpers/in-process.js';

/**
 * The in-process entry (src/cli/run.ts) against the built binary: the same command on
 * the same list gives the same exit code, stdout, stderr and files, so tests that check
 * only output can run in process.
 */

type Case = { args: string[]; opts?: InProcessOptions; files?: boolean; setup?: (list: string) => void };

/** A task file cut short, as a crash mid-write by another program would leave it. */
const corrupt = (list: string) => fs.writeFileSync(path.join(list, '7.json'), '{"id": "7", "subject": ');

/** A user TaskCompleted hook, a script in a process of its own, that blocks with exit 2. */
const blockingHook = (list: string) => {
  const config = path.dirname(path.dirname(list));
  const hook = path.join(config, 'block.sh');
  fs.writeFileSync(hook, '#!/bin/sh\ncat >/dev/null; echo "tests are red" >&2; exit 2\n', { mode: 0o755 });
  fs.writeFileSync(path.join(config, 'settings.json'), JSON.stringify(settingsWith({ TaskCompleted: [{ command: hook }] })));
};

const CASES: Record<string, Case> = {
  'list, piped': { args: ['list'] },
  'list --json': { args: ['list', '--json'] },
  'list --status pending -o nobody': { args: ['list', '--status', 'pending', '-o', 'nobody'] },
  get: { args: ['get', '4'] },
  'get --json': { args: ['get', '4', '--json'] },
  'a list that does not exist (exit 3)': { args: ['-l', 'nope', 'list'] },
  'a bad flag value (exit 2)': { args: ['list', '--status', 'nope'] },
  'a bad flag value, --json (exit 2)': { args: ['list', '--limit', '0', '--json'] },
  'an unknown option (exit 2)': { args: ['list', '--colour'] },
  'an id option given two ids (exit 2)': { args: ['block', '4', '--by', '2', '5'] },
  'no command (help on stderr, exit 2)': { args: [] },
  '--help': { args: ['--help'] },
  'list --help': { args: ['list', '--help'] },
  '--version': { args: ['--version'] },
  'create, piped': { args: ['create', 'Write docs', '-d', 'README', '--blocked-by', '2'], files: true },
  'update --status': { args: ['update', '4', '--status', 'in_progress', '--owner', 'amy'], files: true },
  'done with an open blocker (a warning)': { args: ['done', '4'], files: true },
  'claim refused (exit 4)': { args: ['claim', '4', '--as', 'bob'], files: true },
  'delete --dry-run': { args: ['delete', '2', '--dry-run'], files: true },
  check: { args: ['check'] },
  'export markdown': { args: ['export', '-f', 'markdown'] },
  'import from stdin, --dry-run': {
    args: ['import', '-', '--dry-run'],
    opts: { input: '{"todos":[{"content":"Ship it","status":"pending","activeForm":"Shipping it"}]}' },
  },
  'import from stdin': { args: ['-l', 'copy', 'import', '-'], opts: { input: '[{"content":"Ship it","status":"pending"}]' }, files: true },
  "@me is $USER of the run's environment": { args: ['list', '--json', '-o', '@me'], opts: { env: { USER: 'agent-1' } } },
  'a duration flag': { args: ['list', '--stalled', '1h30m'] },
  'a corrupt task file, listed (a warning)': { args: ['list', '--json'], setup: corrupt },
  'a corrupt task file, read (exit 1)': { args: ['get', '7'], setup: corrupt },
  'a corrupt task file, read, --json (exit 1)': { args: ['get', '7', '--json'], setup: corrupt },
  'get with FORCE_COLOR, piped': { args: ['get', '4'], opts: { env: { FORCE_COLOR: '1' } } },
  'get with FORCE_COLOR and NO_COLOR, piped': { args: ['get', '4'], opts: { env: { FORCE_COLOR: '1', NO_COLOR: '1' } } },
  'a hook that blocks (exit 4)': { args: ['done', '4'], setup: blockingHook, files: true },
};

/** The task files of every list: what a command wrote (the journal holds times and ids of its own). */
function taskFiles(config: string): Record<string, Record<string, string>> {
  const root = path.join(config, 'tasks');
  // List folders: tasks' own dot files beside them (its trace of runs) are no list.
  const lists = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((l) => !l.startsWith('.'))
        .sort()
    : [];
  return Object.fromEntries(
    lists.map((l) => {
      const files = snapshotDir(path.join(root, l));
      return [l, Object.fromEntries(Object.entries(files).filter(([name]) => name.endsWith('.json')))];
    }),
  );
}

describe('the in-process entry', () => {
  it.each(Object.entries(CASES))('%s: the same code, stdout, stderr and files as the binary', async (_name, c) => {
    const viaBinary = fixtureConfig();
    const inProcess = fixtureConfig();
    c.setup?.(viaBinary.list);
    c.setup?.(inProcess.list);
    const binary: RunResult = run(viaBinary.config, c.args, { env: c.opts?.env, input: c.opts?.input ?? '' });
    const own = await runInProcess(inProcess.config, c.args, c.opts);
    // Paths name each run's own temporary folder.
    // ... and each run's own copy of the files, with their own change times.
    const same = (r: RunResult, config: string) => ({
      ...r,
      stdout: r.stdout.replaceAll(config, '<config>').replace(/"updatedAt": ?"[^"]*"/g, '"updatedAt": "<time>"'),
      stderr: r.stderr.replaceAll(config, '<config>'),
    });
    expect(same(own, inProcess.config)).toEqual(same(binary, viaBinary.config));
    if (c.files) expect(taskFiles(inProcess.config)).toEqual(taskFiles(viaBinary.config));
  });

  it('reads relative paths from the working directory it is given', async () => {
    const { config } = fixtureConfig();
    const work = path.join(config, 'work');
    fs.mkdirSync(work);
    const r = await runInProcess(config, ['export', '-f', 'json', '--output', 'backup.json'], { cwd: work });
    expect(r).toMatchObject({ code: 0, stderr: 'wrote 4 tasks (json) to backup.json\n' });
    const back = await runInProcess(config, ['-l', 'copy', 'import', 'backup.json'], { cwd: work });
    expect(back.code).toBe(0);
    expect(back.stderr).toContain('detected tasks:');
    expect(await runInProcess(config, ['-l', 'copy', 'import', 'nope.json'], { cwd: work })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: cannot read nope\.json: /),
    });
  });

  it("leaves nothing behind between runs: signal listeners, the journal's record of writes", async () => {
    const { config, list } = fixtureConfig();
    const listeners = () => ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit'].map((e) => process.listenerCount(e));
    const before = listeners();
    // Commands that listen for signals while they run: a hook-less completion, an import, a watch.
    expect((await runInProcess(config, ['done', '4'])).code).toBe(0);
    expect((await runInProcess(config, ['-l', 'fresh', 'import', '-'], { input: '[{"content":"A","status":"pending"}]' })).code).toBe(0);
    expect((await runInProcess(config, ['-l', 'refactor-auth', 'watch', '--until', 'ready', '--json'])).code).toBe(0);
    expect(listeners()).toEqual(before);
    // Two runs' writes are each recorded once, by their own run.
    expect((await runInProcess(config, ['-l', 'refactor-auth', 'create', 'one'])).code).toBe(0);
    expect((await runInProcess(config, ['-l', 'refactor-auth', 'create', 'two'])).code).toBe(0);
    const journal = fs
      .readFileSync(path.join(list, '.tasks-journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { command: string; txn: string; changes: Array<{ id: string; op: string }> });
    expect(journal.map((e) => [e.command, e.changes.map((ch) => `${ch.op} ${ch.id}`)])).toEqual([
      ['done', ['update 4']],
      ['create', ['create 6']],
      ['create', ['create 7']],
    ]);
    expect(new Set(journal.map((e) => e.txn)).size).toBe(3);
  });

  it('runs two commands at once on two lists, each recording its own changes in its own journal', async () => {
    const { config, list } = fixtureConfig();
    const other = path.join(path.dirname(list), 'other');
    fs.cpSync(list, other, { recursive: true });
    const plan = (name: string) =>
      JSON.stringify(Array.from({ length: 12 }, (_, i) => ({ content: `${name} step ${i + 1}`, status: 'pending' })));
    // Both runs take locks and write while the other is under way (each lock is awaited).
    const [a, b] = await Promise.all([
      runInProcess(config, ['-l', 'refactor-auth', 'import', '-'], { input: plan('auth') }),
      runInProcess(config, ['-l', 'other', 'import', '-'], { input: plan('other') }),
    ]);
    expect(a).toMatchObject({ code: 0 });
    expect(b).toMatchObject({ code: 0 });
    const journal = (dir: string) =>
      fs
        .readFileSync(path.join(dir, '.tasks-journal.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { command: string; txn: string; changes: Array<{ id: string; op: string }> });
    const auth = journal(list);
    const mine = journal(other);
    // One txn a run, and each change once, in the list it was made in.
    expect(new Set(auth.map((e) => `${e.command} ${e.txn}`)).size).toBe(1);
    expect(new Set(mine.map((e) => `${e.command} ${e.txn}`)).size).toBe(1);
    expect(auth[0]!.txn).not.toBe(mine[0]!.txn);
    expect(auth.flatMap((e) => e.changes.map((c) => `${e.command} ${c.op} ${c.id}`))).toEqual(
      Array.from({ length: 12 }, (_, i) => `import create ${i + 6}`),
    );
    expect(mine.flatMap((e) => e.changes.map((c) => `${e.command} ${c.op} ${c.id}`))).toEqual(
      Array.from({ length: 12 }, (_, i) => `import create ${i + 6}`),
    );
  });
});
