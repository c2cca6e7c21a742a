/**
 * A carry is one step of history in every list it changes: one `tasks undo`, run in the
 * list carried into or in the list carried from, takes it back in both (the copies
 * removed, the marks or the moved tasks back), and `tasks redo` applies it again in both.
 * A part that would be refused in either list refuses the whole, with nothing written
 * anywhere; a run stopped between the two lists is finished by the next undo.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, runAsync, stderrLines, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { contractProblems } from '../helpers/json-contract.js';

interface FileTask {
  id: string;
  subject: string;
  status: string;
  blocks: string[];
  blockedBy: string[];
  metadata?: Record<string, unknown>;
}

const task = (id: string, subject: string, extra: Partial<FileTask> = {}) => ({
  id,
  subject,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

/** Each list's task files, by name, as their bytes: what agents read. */
function taskFiles(config: string, ...lists: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const list of lists) {
    const dir = path.join(config, 'tasks', list);
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).filter((n) => /^\d+\.json$/.test(n)))
      out[`${list}/${f}`] = fs.readFileSync(path.join(dir, f), 'utf8');
  }
  return out;
}

/** "from": #1 done, #2 waits for #1, #3 waits for #2, #4 on its own; "to" holds #1 already. */
function world() {
  const config = tempConfig();
  const from = path.join(config, 'tasks', 'from');
  writeTask(from, task('1', 'Plan', { status: 'completed', blocks: ['2'] }));
  writeTask(from, task('2', 'Build', { blockedBy: ['1'], blocks: ['3'] }));
  writeTask(from, task('3', 'Ship', { blockedBy: ['2'] }));
  writeTask(from, task('4', 'Docs'));
  writeTask(path.join(config, 'tasks', 'to'), task('1', 'Already here'));
  const t = (...args: string[]) => runInProcessSync(config, args);
  const journal = (list: string) =>
    fs
      .readFileSync(path.join(config, 'tasks', list, '.tasks-journal.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { config, t, journal, files: () => taskFiles(config, 'from', 'to') };
}

describe('undo and redo of a carry', () => {
  it('one undo in the list carried into takes it back in both lists; redo applies it again in both; the files agree each time', () => {
    const w = world();
    const before = w.files();
    const carried = w.t('-l', 'to', 'carry', '--from', 'from', '--json');
    expect(carried.code, carried.stderr).toBe(0);
    expect(JSON.parse(carried.stdout).from[0].ids).toEqual({ '2': '2', '3': '3', '4': '4' });
    const after = w.files();
    expect(after).not.toEqual(before);
    // One txn, named in both journals, each line naming both lists.
    const txn = (w.journal('to').at(-1) as { txn: string }).txn;
    for (const list of ['to', 'from']) {
      const lines = w.journal(list).filter((e) => e.txn === txn);
      expect(lines.length).toBeGreaterThan(0);
      for (const e of lines) expect(e).toMatchObject({ command: 'carry', lists: ['to', 'from'] });
    }

    const dry = w.t('-l', 'to', 'undo', '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(contractProblems('undo', dry.stdout)).toEqual([]);
    expect(w.files()).toEqual(after);
    const plan = JSON.parse(dry.stdout);
    expect(plan.commands.map((c: { txn: string }) => c.txn)).toEqual([txn]);
    expect(plan.otherLists.map((o: { list: string; steps: unknown[] }) => [o.list, o.steps.length])).toEqual([['from', 3]]);

    const undo = w.t('-l', 'to', 'undo');
    expect(undo.code, undo.stderr).toBe(0);
    const [head, ...rest] = undo.stdout.split('\n');
    expect(head).toMatch(/^Undid carry by .+ at .+:$/);
    expect(rest).toEqual([
      '  #4 removed again: Docs',
      '  #3 removed again: Ship',
      '  #2 removed again: Build',
      'In list from:',
      '  #4 metadata {"carriedTo":{"list":"to","id":"4"}} → (none)',
      '  #3 metadata {"carriedTo":{"list":"to","id":"3"}} → (none)',
      '  #2 metadata {"carriedTo":{"list":"to","id":"2"}} → (none)',
      '',
    ]);
    expect(w.files()).toEqual(before);
    // Both sides can be carried again: nothing says "carried already".
    expect(w.t('-l', 'to', 'carry', '--from', 'from', '--dry-run').code).toBe(0);

    const redo = w.t('-l', 'to', 'redo', '--json');
    expect(redo.code, redo.stderr).toBe(0);
    expect(contractProblems('redo', redo.stdout)).toEqual([]);
    expect(JSON.parse(redo.stdout).otherLists).toHaveLength(1);
    expect(w.files()).toEqual(after);

    // From the other side: an undo in the list carried from takes back both too.
    const fromSide = w.t('-l', 'from', 'undo');
    expect(fromSide.code, fromSide.stderr).toBe(0);
    expect(fromSide.stdout).toMatch(/^Undid carry by .*\n( {2}#\d metadata .*\n){3}In list to:\n/);
    expect(w.files()).toEqual(before);
    // And once undone, nothing more of it is left to take back in either list.
    expect(w.t('-l', 'to', 'redo').code).toBe(0);
    expect(w.files()).toEqual(after);
  });

  it('--move: the undo brings the moved tasks back into their list, as they were, and removes the copies', () => {
    const w = world();
    const before = w.files();
    const r = w.t('-l', 'to', 'carry', '--from', 'from', '--move');
    expect(r.code, r.stderr).toBe(0);
    // A chain (#3 waits for #2): every one moves, though deleting #2 cleans #3's edge first.
    expect(Object.keys(w.files()).filter((f) => f.startsWith('from/'))).toEqual(['from/1.json']);
    const after = w.files();
    // The mark stays raised: the ids moved away are never handed out again there, while they come back.
    expect(fs.readFileSync(path.join(w.config, 'tasks', 'from', '.highwatermark'), 'utf8')).toBe('4');
    const undo = w.t('-l', 'to', 'undo');
    expect(undo.code, undo.stderr).toBe(0);
    // Each moved task comes back in one write, as it was (its mark, set before the delete, folded in and taken back).
    expect(undo.stdout).toMatch(/In list from:\n {2}#4 restored: Docs\n/);
    expect(w.files()).toEqual(before);
    expect(w.t('-l', 'from', 'redo').code).toBe(0);
    expect(w.files()).toEqual(after);
  });

  it('a carry into a new list: the undo takes back the marks and removes the list it made', () => {
    const w = world();
    const before = w.files();
    expect(w.t('-l', 'fresh', 'carry', '--from', 'from').code).toBe(0);
    const undo = w.t('-l', 'fresh', 'undo', '--json');
    expect(undo.code, undo.stderr).toBe(0);
    expect(stderrLines(undo.stderr)).toEqual([{ note: expect.objectContaining({ code: 'list_removed', list: 'fresh' }) }]);
    expect(fs.existsSync(path.join(w.config, 'tasks', 'fresh'))).toBe(false);
    expect(w.files()).toEqual(before);
    // With that list gone, the carry cannot be made again: a redo from the source refuses, changing nothing.
    const redo = w.t('-l', 'from', 'redo');
    expect(redo.code).toBe(4);
    expect(redo.stderr).toBe('error: list "fresh", which it changed too, is gone (its folder was removed); nothing redone in any list\n');
    expect(w.files()).toEqual(before);
  });

  it('a carried task worked on since, in either list, refuses the whole undo: exit 4, naming it, nothing written in any list', () => {
    const w = world();
    expect(w.t('-l', 'to', 'carry', '--from', 'from').code).toBe(0);
    // The new session's agent starts the carried #3.
    const three = path.join(w.config, 'tasks', 'to', '3.json');
    fs.writeFileSync(three, JSON.stringify({ ...(readJson(three) as object), status: 'in_progress', owner: 'main' }, null, 2));
    let files = w.files();
    const refused = w.t('-l', 'from', 'undo');
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(
      /^error: in list "to": cannot undo carry by .*: #3 was changed since it was created; nothing undone in any list\n/,
    );
    expect(w.files()).toEqual(files);

    // Set back, and the source's side changed instead: a person edits the marked #4 there.
    fs.writeFileSync(three, JSON.stringify({ ...(readJson(three) as object), status: 'pending', owner: undefined }, null, 2));
    const four = path.join(w.config, 'tasks', 'from', '4.json');
    fs.writeFileSync(
      four,
      JSON.stringify({ ...(readJson(four) as object), metadata: { carriedTo: { list: 'elsewhere', id: '9' } } }, null, 2),
    );
    files = w.files();
    const json = w.t('-l', 'to', 'undo', '--json');
    expect(json.code).toBe(4);
    expect(stderrLines(json.stderr)).toEqual([
      {
        error: expect.objectContaining({
          code: 'conflict',
          list: 'from',
          message: expect.stringMatching(/^in list "from": cannot undo carry/),
        }),
      },
    ]);
    expect(w.files()).toEqual(files);
  });

  it('an undo stopped between the two lists is finished by the next undo in the list already undone, and by nothing else', () => {
    const w = world();
    const before = w.files();
    expect(w.t('-l', 'to', 'carry', '--from', 'from').code).toBe(0);
    const txn = (w.journal('to').at(-1) as { txn: string }).txn;
    // As a kill after the source's part leaves it: its marks taken back, recorded and ended there; the target untouched.
    const fromDir = path.join(w.config, 'tasks', 'from');
    const lines: string[] = [];
    for (const id of ['4', '3', '2']) {
      const file = path.join(fromDir, `${id}.json`);
      const t = readJson(file) as FileTask;
      const { metadata, ...rest } = t;
      fs.writeFileSync(file, JSON.stringify(rest, null, 2));
      lines.push(
        JSON.stringify({
          v: 1,
          at: new Date().toISOString(),
          actor: { kind: 'person', name: 'amy' },
          command: 'undo',
          txn: 'u-killed',
          undoes: [txn],
          changes: [{ id, op: 'update', fields: { metadata: { old: metadata } } }],
        }),
      );
    }
    lines.push(
      JSON.stringify({
        v: 1,
        at: new Date().toISOString(),
        actor: { kind: 'person', name: 'amy' },
        command: 'undo',
        txn: 'u-killed',
        undoes: [txn],
        end: true,
        changes: [],
      }),
    );
    fs.appendFileSync(path.join(fromDir, '.tasks-journal.jsonl'), `${lines.join('\n')}\n`);
    const toHas = Object.keys(w.files()).filter((f) => f.startsWith('to/'));
    expect(toHas).toEqual(['to/1.json', 'to/2.json', 'to/3.json', 'to/4.json']);

    const finish = w.t('-l', 'from', 'undo');
    expect(finish.code, finish.stderr).toBe(0);
    expect(finish.stdout).toMatch(
      /^Finished the undo of carry by .* in the other lists it changed, stopped half-way before them:\nIn list to:\n/,
    );
    expect(w.files()).toEqual(before);
    // Under the txn of the run it finishes: one undo in the history of both lists.
    const finished = w.journal('to').filter((e) => e.command === 'undo');
    expect(new Set(finished.map((e) => e.txn))).toEqual(new Set(['u-killed']));
    // Nothing else was taken back in "from", and the next undo there finds nothing of the carry left.
    expect(w.t('-l', 'from', 'undo', '--dry-run').stdout).not.toMatch(/carry/);
  });

  it('an undo stopped between the two lists: an undo in the list left behind takes its own part back', () => {
    const w = world();
    const before = w.files();
    expect(w.t('-l', 'to', 'carry', '--from', 'from').code).toBe(0);
    const txn = (w.journal('to').at(-1) as { txn: string }).txn;
    // The source's part made (and recorded) by an earlier run that was killed then.
    const fromDir = path.join(w.config, 'tasks', 'from');
    const changes = ['4', '3', '2'].map((id) => {
      const file = path.join(fromDir, `${id}.json`);
      const { metadata, ...rest } = readJson(file) as FileTask;
      fs.writeFileSync(file, JSON.stringify(rest, null, 2));
      return { id, op: 'update', fields: { metadata: { old: metadata } } };
    });
    const at = new Date().toISOString();
    const actor = { kind: 'person', name: 'amy' };
    fs.appendFileSync(
      path.join(fromDir, '.tasks-journal.jsonl'),
      `${JSON.stringify({ v: 1, at, actor, command: 'undo', txn: 'u-k', undoes: [txn], changes })}\n${JSON.stringify({ v: 1, at, actor, command: 'undo', txn: 'u-k', undoes: [txn], end: true, changes: [] })}\n`,
    );
    const r = w.t('-l', 'to', 'undo', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).otherLists).toEqual([]);
    expect(stderrLines(r.stderr)).toEqual([
      { note: expect.objectContaining({ code: 'undo_list_passed', list: 'from', reason: 'nothing of it is left to undo there' }) },
    ]);
    expect(w.files()).toEqual(before);
  });

  it('two undos at once, one from each list (real processes): the carry goes back once in both; neither list is left half', async () => {
    for (let round = 0; round < 4; round++) {
      const w = world();
      // A command before the carry in each list: a second undo may go on to it.
      expect(w.t('-l', 'from', 'done', '4').code).toBe(0);
      expect(w.t('-l', 'to', 'update', '1', '--owner', 'amy').code).toBe(0);
      const before = w.files();
      expect(w.t('-l', 'to', 'carry', '--from', 'from').code).toBe(0);
      // The binary: two undos at once, in two processes.
      const [a, b] = await Promise.all([runAsync(w.config, ['-l', 'to', 'undo']), runAsync(w.config, ['-l', 'from', 'undo'])]);
      expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
      const files = w.files();
      // The carry is gone from both: no copy in "to", no mark in "from".
      expect(Object.keys(files).filter((f) => f.startsWith('to/'))).toEqual(['to/1.json']);
      for (const [name, text] of Object.entries(files)) expect(text, name).not.toMatch(/carried(To|From)/);
      // Beyond it, at most the one command before it in one of the lists went back too.
      const fourDone = (readJson(path.join(w.config, 'tasks', 'from', '4.json')) as FileTask).status === 'completed';
      const amy = (readJson(path.join(w.config, 'tasks', 'to', '1.json')) as { owner?: string }).owner === 'amy';
      expect([fourDone, amy]).not.toEqual([false, false]);
      if (fourDone && amy) expect(files).toEqual(before);
      // Each list's journal: the carry taken back once.
      for (const list of ['to', 'from']) {
        const carry = w.journal(list).find((e) => e.command === 'carry')?.txn;
        const undos = new Set(
          w
            .journal(list)
            .filter((e) => JSON.stringify(e.undoes ?? []).includes(String(carry)))
            .map((e) => e.txn),
        );
        expect(undos.size, list).toBe(1);
      }
    }
  });

  it('a journal line naming lists that are no list ids is not followed', () => {
    const w = world();
    w.t('-l', 'to', 'create', 'Mine');
    const dir = path.join(w.config, 'tasks', 'to');
    const file = path.join(dir, '.tasks-journal.jsonl');
    const entries = fs.readFileSync(file, 'utf8').trim().split('\n');
    const last = JSON.parse(entries.at(-1) as string);
    entries[entries.length - 1] = JSON.stringify({ ...last, lists: ['to', '../from', '', 'x/y'] });
    fs.writeFileSync(file, `${entries.join('\n')}\n`);
    const before = taskFiles(w.config, 'from');
    const r = w.t('-l', 'to', 'undo');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Undid create by .*\n {2}#2 removed again: Mine\n$/);
    expect(taskFiles(w.config, 'from')).toEqual(before);
  });
});
