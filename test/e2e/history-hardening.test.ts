/**
 * The journal, log, get and undo against hostile input and hard stops: values nested
 * thousands deep, control characters, lines any process in the folder can append, SIGKILL
 * between a write and its record, a journal that is not a file, a transcript of 100 GB.
 * Undo against a lock an agent holds, and many processes writing one journal, are in
 * test/slow/history-concurrency.test.ts.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, jsonLines, readJson, run, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeTaskTranscript, writeTranscript } from '../helpers/session-files.mjs';

const ENV = { USER: 'alice' };
const listDir = (config: string, list = 'L') => path.join(config, 'tasks', list);
const journal = (config: string, list = 'L') => path.join(listDir(config, list), '.tasks-journal.jsonl');
const t = (config: string, ...args: string[]) => runInProcessSync(config, ['-l', 'L', ...args], { env: ENV });
const file = (config: string, id: string) => readJson(path.join(listDir(config), `${id}.json`)) as Record<string, unknown>;
const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `T${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});
/** A journal line as any process that can write the folder could append it. */
const line = (changes: unknown[], extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ v: 1, at: new Date().toISOString(), actor: { kind: 'person', name: 'mallory' }, command: 'update', txn: `h-${Math.random()}`, changes, ...extra })}\n`;

describe('a journal value nested 5,000 deep', () => {
  it('never crashes log, get or undo: the line is skipped as damaged, with a warning', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    // Written as text: building it with JSON.stringify would itself overflow the stack.
    const deep = `${'{"d":'.repeat(5000)}"x"${'}'.repeat(5000)}`;
    fs.appendFileSync(
      journal(config),
      line([{ id: '1', op: 'update', fields: { metadata: { old: 'DEEP', new: 'DEEP' } } }]).replaceAll('"DEEP"', deep),
    );
    const log = t(config, 'log');
    expect(log.stderr).not.toContain('Maximum call stack');
    expect(log.code, log.stderr).toBe(0);
    expect(log.stderr).toMatch(/warning: skipped line 2 of \.tasks-journal\.jsonl: nested deeper than \d+ levels/);
    const get = t(config, 'get', '1');
    expect(get.code, get.stderr).toBe(0);
    const undo = t(config, 'undo');
    expect(undo.stderr).not.toContain('Maximum call stack');
    expect(undo.code).toBe(4);
    expect(undo.stderr).toMatch(/^error: cannot undo: the journal's last line is damaged \(line 2: nested deeper than \d+ levels\)/);
  });
});

describe('log --json escapes what a terminal could act on', () => {
  it('C1 controls and bidi overrides in a subject come out as \\uXXXX, as in every other --json', () => {
    const config = tempConfig();
    t(config, 'create', 'evil\u009b31m \u202egnp.exe \u009d0;title\u0007');
    const out = t(config, 'log', '--json').stdout;
    expect(out).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    expect(out).toContain('\\u009b31m');
    expect(out).toContain('\\u202egnp');
    expect(JSON.parse(out)[0]).toMatchObject({ changes: { subject: { new: 'evil\u009b31m \u202egnp.exe \u009d0;title\u0007' } } });
  });
});

describe('undo never writes what a journal line says without checking it', () => {
  const setup = () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    t(config, 'create', 'B');
    return config;
  };
  const refused = (config: string, hostile: string) => {
    fs.appendFileSync(journal(config), hostile);
    const before = fs.readdirSync(listDir(config)).sort();
    const files = before.filter((n) => n.endsWith('.json')).map((n) => fs.readFileSync(path.join(listDir(config), n), 'utf8'));
    const r = t(config, 'undo');
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/^error: cannot undo update by mallory: /);
    expect(r.stderr.split('\n')).toHaveLength(2);
    // Nothing written: the same files, byte for byte.
    const after = fs
      .readdirSync(listDir(config))
      .filter((n) => n.endsWith('.json'))
      .sort();
    expect(after.map((n) => fs.readFileSync(path.join(listDir(config), n), 'utf8'))).toEqual(files);
    return r.stderr;
  };

  it('refuses a status no agent reads, "deleted" included, and edges that are not id lists', () => {
    const config = setup();
    expect(refused(config, line([{ id: '1', op: 'update', fields: { status: { old: 'bogus', new: 'pending' } } }]))).toMatch(
      /#1 would not be a valid task/,
    );
    const c2 = setup();
    expect(refused(c2, line([{ id: '1', op: 'update', fields: { status: { old: 'deleted', new: 'pending' } } }]))).toMatch(
      /#1 would not be a valid task/,
    );
    const c3 = setup();
    expect(refused(c3, line([{ id: '1', op: 'update', fields: { blocks: { old: 'x', new: [] } } }]))).toMatch(
      /#1 would not be a valid task/,
    );
    const c4 = setup();
    expect(refused(c4, line([{ id: '1', op: 'update', fields: { id: { old: '7', new: '1' } } }]))).toMatch(
      /#1: undo never changes a task's id/,
    );
  });

  it('refuses a restore whose task names another id, an id never handed out, or an absurd one', () => {
    const c1 = setup();
    t(c1, 'create', 'C');
    t(c1, 'delete', '3');
    expect(refused(c1, line([{ id: '3', op: 'delete', task: task('7') }]))).toMatch(/#3: the task recorded names id 7/);
    const c2 = setup();
    expect(refused(c2, line([{ id: '99999999999999999999', op: 'delete', task: task('99999999999999999999') }]))).toMatch(
      /#99999999999999999999 .*never handed out in this list/,
    );
    // Every later create still works.
    expect(t(c2, 'create', 'C')).toMatchObject({ code: 0 });
    const c3 = setup();
    expect(refused(c3, line([{ id: 'x/../../y', op: 'delete', task: task('x/../../y') }]))).toMatch(/not a task id/);
  });

  it('a restore raises .highwatermark to the id it puts back', () => {
    const config = setup();
    t(config, 'create', 'C');
    t(config, 'create', 'D');
    t(config, 'delete', '3');
    // The mark lowered by hand: #3 stays used only because #4 is above it.
    fs.writeFileSync(path.join(listDir(config), '.highwatermark'), '1');
    const r = t(config, 'undo');
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(listDir(config), '.highwatermark'), 'utf8').trim()).toBe('3');
    expect(file(config, '3')).toMatchObject({ subject: 'C' });
  });
});

describe('undo is atomic across tasks', () => {
  it('an undo stopped half-way (its record says so) is finished by the next undo, not undone', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    t(config, 'create', 'B');
    t(config, 'block', '2', '--by', '1');
    const blockTxn = jsonLines(fs.readFileSync(journal(config), 'utf8')).at(-1)!.txn as string;
    // As a SIGKILL after the first of its writes leaves it: #2's side taken back and recorded, #1's not.
    const two = file(config, '2');
    fs.writeFileSync(path.join(listDir(config), '2.json'), JSON.stringify({ ...two, blockedBy: [] }, null, 2));
    fs.appendFileSync(
      journal(config),
      line([{ id: '2', op: 'update', fields: { blockedBy: { old: ['1'], new: [] } } }], {
        actor: { kind: 'person', name: 'alice' },
        command: 'undo',
        txn: 'u-1',
        undoes: [blockTxn],
      }),
    );
    const r = t(config, 'undo');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Finished the interrupted undo of block by alice/);
    expect([file(config, '1').blocks, file(config, '2').blockedBy]).toEqual([[], []]);
    // The next undo takes back the create of #2, not the block again.
    expect(t(config, 'undo').stdout).toMatch(/^Undid create by alice/);
  });
});

describe('log --all of a list folder that is also reached through a symlink (two names, one list)', () => {
  it('counts each change once, under the name of the folder itself', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    fs.symlinkSync('L', path.join(config, 'tasks', 'alias'));
    const r = runInProcessSync(config, ['log', '--all', '--json'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ list: string; op: string }>).map((e) => `${e.list} ${e.op}`)).toEqual(['L create']);
  });
});

describe('an undo stopped half-way, then a change made with tasks', () => {
  it('the next undo finishes it, leaving the field changed since as it is, and the undo after takes that change back', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    t(config, 'update', '1', '--owner', 'o1');
    // As a kill before its last line leaves it: the undo's write made and recorded, no `end`.
    expect(t(config, 'undo').code).toBe(0);
    const lines = fs.readFileSync(journal(config), 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ command: 'undo', end: true });
    fs.writeFileSync(journal(config), `${lines.slice(0, -1).join('\n')}\n`);
    // A person goes on: the owner the stopped undo removed is set again.
    expect(t(config, 'update', '1', '--owner', 'z').code).toBe(0);
    const r = t(config, 'undo');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Finished the interrupted undo of update by alice .*:\n {2}\(#1 owner left as it is: changed since by alice with update at /,
    );
    expect(file(config, '1').owner).toBe('z');
    // Then the person's own change is the one undo takes back.
    const next = t(config, 'undo');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/^Undid update by alice .*:\n {2}#1 owner z → \(none\)/);
    expect(file(config, '1').owner).toBeUndefined();
  });
});

describe('each change is recorded with its write', () => {
  it('a SIGKILL after some task files of an import are written leaves every one of them recorded', async () => {
    const config = tempConfig();
    t(config, 'create', 'seed');
    const todos = Array.from({ length: 400 }, (_, i) => ({ content: `item ${i}`, status: 'pending', activeForm: `doing ${i}` }));
    const input = path.join(config, 'todos.json');
    fs.writeFileSync(input, JSON.stringify(todos));
    // The binary: SIGKILL mid-import needs a process of its own.
    const child = spawn(process.execPath, [BIN, '-l', 'L', 'import', input], { env: baseEnv(config, ENV), stdio: 'ignore' });
    // Killed as soon as the 50th new file appears.
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (fs.existsSync(path.join(listDir(config), '51.json'))) {
          child.kill('SIGKILL');
          clearInterval(poll);
          resolve();
        }
      }, 1);
    });
    await new Promise((r) => child.once('close', r));
    const onDisk = fs.readdirSync(listDir(config)).filter((n) => /^\d+\.json$/.test(n)).length;
    expect(onDisk).toBeGreaterThan(50);
    const created = jsonLines(fs.readFileSync(journal(config), 'utf8')).flatMap((e) =>
      (e.changes as Array<{ op: string; id: string }>).filter((c) => c.op === 'create').map((c) => c.id),
    );
    // Every file on disk has its create recorded (the one being written when killed at most is recorded and not on disk).
    const files = fs
      .readdirSync(listDir(config))
      .filter((n) => /^\d+\.json$/.test(n))
      .map((n) => n.slice(0, -5));
    expect(files.filter((id) => !created.includes(id))).toEqual([]);
    // log counts each of them once, and none that is not there.
    const logged = (JSON.parse(t(config, 'log', '--json').stdout) as Array<Record<string, unknown>>).filter((e) => e.op === 'create');
    expect(logged.map((e) => e.task).sort()).toEqual(files.sort());
  });
});

describe('a journal that is not a file', () => {
  it('undo with a FIFO, a directory or a symlink there: one clear line, exit 4, nothing changed', () => {
    for (const kind of ['fifo', 'dir', 'symlink'] as const) {
      const config = tempConfig();
      t(config, 'create', 'A');
      t(config, 'update', '1', '--subject', 'B');
      const j = journal(config);
      const real = fs.readFileSync(j);
      fs.rmSync(j);
      if (kind === 'fifo') execFileSync('mkfifo', [j]);
      if (kind === 'dir') fs.mkdirSync(j);
      if (kind === 'symlink') {
        fs.writeFileSync(path.join(config, 'elsewhere.jsonl'), real);
        fs.symlinkSync(path.join(config, 'elsewhere.jsonl'), j);
      }
      const r = runInProcessSync(config, ['-l', 'L', 'undo'], { env: ENV, timeoutMs: 10_000 });
      expect(r.code, `${kind}: ${r.stderr}`).toBe(4);
      expect(r.stderr).toMatch(/^error: cannot undo: \.tasks-journal\.jsonl is (a FIFO|a directory|a symbolic link), not a regular file/);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(file(config, '1').subject).toBe('B');
    }
  });

  it('log warns when the journal is a symlink, and reads nothing through it', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    const j = journal(config);
    fs.renameSync(j, path.join(config, 'elsewhere.jsonl'));
    fs.symlinkSync(path.join(config, 'elsewhere.jsonl'), j);
    const r = t(config, 'log');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: .tasks-journal.jsonl is a symbolic link, not a regular file; not read');
  });

  it('a change with a symlink there: warned that the journal is a symbolic link (not ELOOP), nothing written through it', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    const j = journal(config);
    const elsewhere = path.join(config, 'elsewhere.jsonl');
    fs.renameSync(j, elsewhere);
    fs.symlinkSync(elsewhere, j);
    const before = fs.readFileSync(elsewhere, 'utf8');
    const r = t(config, 'update', '1', '--subject', 'B');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^warning: could not record this change in .*\.tasks-journal\.jsonl: \.tasks-journal\.jsonl is a symbolic link, not a regular file; the change itself is made\n/,
    );
    expect(r.stderr).not.toContain('ELOOP');
    expect(fs.readFileSync(elsewhere, 'utf8')).toBe(before);
    expect(file(config, '1').subject).toBe('B');
  });

  it('the trace of runs beside the lists (tasks/.tasks-writes.jsonl) a symlink or a FIFO: a change neither writes through the link nor hangs', () => {
    for (const kind of ['symlink', 'fifo'] as const) {
      const config = tempConfig();
      t(config, 'create', 'A');
      const traces = path.join(config, 'tasks', '.tasks-writes.jsonl');
      fs.rmSync(traces);
      const elsewhere = path.join(config, 'elsewhere.txt');
      fs.writeFileSync(elsewhere, 'not yours\n');
      if (kind === 'symlink') fs.symlinkSync(elsewhere, traces);
      else execFileSync('mkfifo', [traces]);
      const r = run(config, ['-l', 'L', 'update', '1', '--subject', 'B'], { env: ENV, timeoutMs: 15_000 });
      expect(r.code, `${kind}: ${r.stderr}`).toBe(0);
      expect(fs.readFileSync(elsewhere, 'utf8')).toBe('not yours\n');
      expect(file(config, '1').subject).toBe('B');
    }
  });

  it("a change made a moment after ours (inside the file clock's tick) never hides our record", () => {
    // The file's time comes from the kernel's coarse clock and can read earlier than our
    // record's: the record must still count as written. Twenty tries: the race is a few ms wide.
    for (let i = 0; i < 20; i++) {
      const config = tempConfig();
      t(config, 'create', 'A');
      t(config, 'update', '1', '--subject', 'S');
      fs.writeFileSync(path.join(listDir(config), '1.json'), JSON.stringify(task('1', { subject: 'Z' }), null, 2));
      const log = t(config, 'log');
      expect(log.stdout, `try ${i}`).toMatch(/alice \(person\)\tsubject A → S/);
      const r = t(config, 'undo');
      expect(r.stderr, `try ${i}`).toMatch(/^error: cannot undo update by alice: #1 subject is "Z" now/);
    }
  });

  it('a conflict never prints a whole huge value: cut, with a marker', () => {
    const config = tempConfig();
    t(config, 'create', 'A');
    t(config, 'update', '1', '--subject', 'S'.repeat(3900));
    fs.writeFileSync(path.join(listDir(config), '1.json'), JSON.stringify(task('1', { subject: 'Z'.repeat(3900) }), null, 2));
    const r = t(config, 'undo');
    expect(r.code).toBe(4);
    expect(r.stderr.length).toBeLessThan(800);
    expect(r.stderr).toMatch(/…\(3,902 characters\)/);
  });
});

describe('log and get read transcripts in bounded, interruptible steps', () => {
  const sparseWorld = (size: number) => {
    const config = tempConfig();
    const session = '5b0c1a2e-3d4f-4a5b-8c6d-7e8f9a0b1c2d';
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    const transcript = writeTranscript(config, { sessionId: session, cwd, start: Date.now() - 60_000, end: Date.now() });
    // A transcript of `size` bytes, nearly all of it a hole (no disk used).
    fs.truncateSync(transcript, size);
    fs.mkdirSync(listDir(config, session), { recursive: true });
    writeTask(listDir(config, session), task('1'));
    return { config, session, transcript };
  };
  /**
   * Until process `pid` has `file` open (it is reading it), seen in /proc; false if it
   * never does within 30 s. A fixed wait instead would signal a process still starting on
   * a busy machine, before its handlers are in place.
   */
  const reading = async (pid: number, file: string): Promise<boolean> => {
    const fds = `/proc/${pid}/fd`;
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) {
      try {
        if (fs.readdirSync(fds).some((fd) => fs.readlinkSync(path.join(fds, fd)) === file)) return true;
      } catch {
        // The process has not started, or an fd closed as it was read: look again.
      }
    }
    return false;
  };

  it('a 100 GB transcript: log ends within 1 s of SIGINT, and of SIGTERM', async () => {
    const { config, session, transcript } = sparseWorld(100 * 1024 ** 3);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      // The binary: SIGINT and SIGTERM reach a process.
      const child = spawn(process.execPath, [BIN, '-l', session, 'log'], { env: baseEnv(config, ENV), stdio: 'ignore' });
      let sent = 0;
      const closed = new Promise<{ ms: number; code: number | null }>((r) =>
        child.once('close', (code) => r({ ms: Date.now() - sent, code })),
      );
      // Signalled while it reads (the last GB of the transcript takes it about a second).
      expect(await reading(child.pid as number, fs.realpathSync(transcript)), signal).toBe(true);
      sent = Date.now();
      child.kill(signal);
      const ended = await Promise.race([
        closed,
        new Promise<{ ms: number; code: null }>((r) => setTimeout(() => r({ ms: Number.POSITIVE_INFINITY, code: null }), 5000)),
      ]);
      child.kill('SIGKILL');
      expect(ended.code, signal).toBe(130);
      expect(ended.ms, signal).toBeLessThan(1000);
    }
  });

  it('get reads a 20 GB transcript from its end: it answers in seconds', () => {
    const { config, session } = sparseWorld(20 * 1024 ** 3);
    const started = Date.now();
    const r = runInProcessSync(config, ['-l', session, 'get', '1'], { env: ENV, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    // Bounded reading, not a timing claim: a whole read of 20 GB takes tens of seconds.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('a transcript that names ids Claude Code never hands out', () => {
  it('log shows no task for them: only the real one', () => {
    const config = tempConfig();
    const session = '6c1d2b3f-4e5a-4b6c-9d7e-8f9a0b1c2d3e';
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    const at = Date.now() - 60_000;
    const create = (id: string, i: number) => ({
      name: 'TaskCreate',
      input: { subject: `S${id}`, description: '' },
      result: { task: { id, subject: `S${id}` } },
      at: at + i * 100,
    });
    writeTaskTranscript(config, {
      sessionId: session,
      cwd,
      calls: [
        create('1', 0),
        create('../x', 1),
        create('\u001b[2J7', 2),
        {
          name: 'TaskUpdate',
          input: { taskId: '-1', status: 'completed' },
          result: { success: true, taskId: '-1', updatedFields: ['status'] },
          at: at + 300,
        },
      ],
    });
    writeTask(listDir(config, session), task('1', { subject: 'S1' }));
    const r = runInProcessSync(config, ['-l', session, 'log', '--json'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const tasks = (JSON.parse(r.stdout) as Array<{ task: string; op: string }>).map((c) => `${c.op} #${c.task}`);
    expect(tasks).toEqual(['create #1']);
  });
});
