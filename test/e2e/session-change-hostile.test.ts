/**
 * Hostile input to carry, restore and doctor: bad --from values, a list that is a file or
 * a symlink, transcripts that are garbage, truncated, nested 5,000 deep or that name ids
 * past the limit, task files agents skip. Each gets a clear one-line error and the right
 * exit code, or is said and passed over; never a stack trace, and nothing on disk changed
 * that the command did not mean to change.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, snapshotDir, stderrLines, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { projectFolder, transcriptLines } from '../helpers/task-transcript.js';

const S = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const task = (id: string, subject: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

/** Everything under the config folder, file by file (the persistent cache is elsewhere). */
const everything = (config: string) => snapshotDir(config);

function expectOneLineError(r: { code: number; stdout: string; stderr: string }, code: number, message: RegExp) {
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code, stdout: '' });
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/**
 * A session's transcript, hostile: garbage and truncated lines, a line nested 5,000
 * deep, a create and an update whose values are nested 5,000 deep, creates under ids
 * that are no ids or past the limit, around three good tasks.
 */
function hostileTranscript(config: string, cwd: string): string {
  const lines = transcriptLines({
    sessionId: S,
    cwd,
    calls: [
      { create: { id: '1', subject: 'Good one' } },
      { create: { id: '99999999999999999999', subject: 'Past the limit' } },
      { create: { id: '9007199254740992', subject: 'One past the limit' } },
      { create: { id: '-1', subject: 'Negative' } },
      { create: { id: '../x', subject: 'A path' } },
      { create: { id: '2', subject: 'Deep', metadata: { k: 'DEEP' } } },
      { update: { taskId: '1', metadata: { j: 'DEEP' } } },
      { update: { taskId: '99999999999999999999', status: 'completed' } },
      { create: { id: '3', subject: 'Good two' } },
      { update: { taskId: '3', addBlockedBy: ['1'] } },
    ],
  }).map((l) => l.replace('"DEEP"', deep(5000)));
  lines.splice(3, 0, 'not json {{{', '{"type":"user","message":', deep(5000), `{"type":"assistant","message":${deep(5000)}}`);
  const dir = path.join(config, 'projects', projectFolder(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${S}.jsonl`);
  fs.writeFileSync(file, `${lines.join('\n')}\n{"type":"assistant","message":{"content":[{"type":"tool_use"`);
  // Ended an hour ago: no sign of life.
  const old = Date.now() / 1000 - 3600;
  fs.utimesSync(file, old, old);
  return file;
}

describe('carry: hostile input', () => {
  it('bad --from, a list that is a file, ids past the limit: one line, the right exit code, nothing changed', () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'from'), task('1', 'A'));
    fs.mkdirSync(path.join(config, 'tasks', 'to'), { recursive: true });
    fs.writeFileSync(path.join(config, 'tasks', 'afile'), 'not a folder');
    const before = everything(config);
    const cases: Array<[string[], number, RegExp]> = [
      [['-l', 'to', 'carry', '--from', '../from'], 3, /^error: --from: no list or session "\.\.\/from" under /],
      [['-l', 'to', 'carry', '--from', 'from/..'], 3, /^error: --from: no list or session "from\/\.\." under /],
      [['-l', 'to', 'carry', '--from', 'afile'], 3, /^error: --from: no list or session "afile" under /],
      [['-l', 'to', 'carry', '--from', '   '], 2, /^error: --from: the list or session is empty/],
      [['-l', 'afile', 'carry', '--from', 'from'], 3, /^error: .*\/tasks\/afile is not a folder\n$/],
      [['-l', 'afile', 'carry', '--from', 'from', '--dry-run'], 3, /^error: .*\/tasks\/afile is not a folder\n$/],
      [['-l', 'to', 'carry', '--from', 'from', '9007199254740993'], 3, /^error: task #9007199254740993 not found in list "from"\n$/],
      [['-l', 'to', 'carry', '--from', 'from', '1'.repeat(400)], 2, /^error: invalid task id "1{400}": expected a positive number/],
      [['-l', 'to', 'carry', '--from', 'from', '-1'], 2, /^error: /],
    ];
    for (const [args, code, message] of cases) {
      const r = runInProcessSync(config, args);
      expect(`${args.join(' ')}: ${r.code} ${r.stderr}`).toMatch(new RegExp(`: ${code} `));
      expectOneLineError(r, code, message);
      expect(everything(config)).toEqual(before);
    }
    // With --json: the same, as one error object.
    const json = runInProcessSync(config, ['-l', 'afile', 'carry', '--from', 'from', '--json']);
    expect(json.code).toBe(3);
    expect(stderrLines(json.stderr)).toEqual([{ error: expect.objectContaining({ code: 'not_found' }) }]);
  });

  it('task files agents skip (not JSON, nested 5,000 deep) are said and left as they are; a task whose id is past the limit gets a new one', () => {
    const config = tempConfig();
    const from = path.join(config, 'tasks', 'from');
    writeTask(from, task('1', 'A', { blocks: ['99999999999999999999'] }));
    writeTask(from, task('99999999999999999999', 'Huge', { blockedBy: ['1'] }));
    fs.writeFileSync(path.join(from, '2.json'), '{bad');
    fs.writeFileSync(
      path.join(from, '3.json'),
      `{"id":"3","subject":"Deep","description":"","status":"pending","blocks":[],"blockedBy":[],"metadata":{"x":${deep(5000)}}}`,
    );
    const skipped = { two: fs.readFileSync(path.join(from, '2.json')), three: fs.readFileSync(path.join(from, '3.json')) };
    const r = runInProcessSync(config, ['-l', 'to', 'carry', '--from', 'from', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const warnings = stderrLines(r.stderr).flatMap((l) => (l.warning ? [l.warning.message] : []));
    expect(warnings).toEqual([
      expect.stringMatching(/^list "from": 2\.json not carried: not valid JSON/),
      expect.stringMatching(/^list "from": 3\.json not carried: nested deeper than/),
    ]);
    expect(JSON.parse(r.stdout).from[0].ids).toEqual({ '1': '1', '99999999999999999999': '2' });
    expect(fs.readFileSync(path.join(from, '2.json'))).toEqual(skipped.two);
    expect(fs.readFileSync(path.join(from, '3.json'))).toEqual(skipped.three);
    expect((readJson(path.join(config, 'tasks', 'to', '2.json')) as { blockedBy: string[] }).blockedBy).toEqual(['1']);
  });
});

describe('restore: hostile transcripts and input', () => {
  it('garbage, truncated and 5,000-deep lines, ids that are none or past the limit: the good tasks come back, the rest said, the mark never past the limit', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    hostileTranscript(config, cwd);
    const gone = runInProcessSync(config, ['lists', '--all', '--json'], { cwd });
    expect(gone.code, gone.stderr).toBe(0);
    expect(JSON.parse(gone.stdout)).toEqual([
      expect.objectContaining({ id: S, kind: 'gone', counts: expect.objectContaining({ total: 2 }) }),
    ]);

    const r = runInProcessSync(config, ['-l', S, 'restore', '--json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.ids).toEqual({ '1': '1', '3': '3' });
    expect(report.mark).toEqual({ before: '0', after: '3' });
    const warned = stderrLines(r.stderr).flatMap((l) => (l.warning ? [String(l.warning.message)] : []));
    for (const id of ['99999999999999999999', '9007199254740992', '-1', '../x']) {
      expect(warned).toContain(
        `a record names task #${id}, no id Claude Code hands out (a positive whole number up to 9007199254740991); left out`,
      );
    }
    const dir = path.join(config, 'tasks', S);
    expect(
      fs
        .readdirSync(dir)
        .filter((n) => n.endsWith('.json'))
        .sort(),
    ).toEqual(['1.json', '3.json']);
    expect(fs.readFileSync(path.join(dir, '.highwatermark'), 'utf8')).toBe('3');
    expect((readJson(path.join(dir, '3.json')) as { blockedBy: string[] }).blockedBy).toEqual(['1']);
    // Nothing outside the list folder: no file named by a path in the record.
    expect(fs.existsSync(path.join(config, 'tasks', 'x.json'))).toBe(false);

    // doctor reads the same transcripts: no crash, the list healthy now.
    const doctor = runInProcessSync(config, ['doctor', '--json'], { cwd });
    expect(doctor.code, doctor.stderr).toBe(0);
  });

  it('bad --from (a directory, a FIFO, a device, missing, empty) and a list that is a file: one line, the right exit code, nothing changed', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    const transcript = hostileTranscript(config, cwd);
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    fs.writeFileSync(path.join(config, 'tasks', 'afile'), 'not a folder');
    const fifo = path.join(config, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const before = everything(config);
    const cases: Array<[string[], number, RegExp]> = [
      [['-l', 'r', 'restore', '--from', cwd], 2, /^error: --from: .* is not a regular file\n$/],
      [['-l', 'r', 'restore', '--from', fifo], 2, /^error: --from: .* is not a regular file\n$/],
      [['-l', 'r', 'restore', '--from', '/dev/zero'], 2, /^error: --from: \/dev\/zero is not a regular file\n$/],
      [['-l', 'r', 'restore', '--from', path.join(config, 'nope.jsonl')], 3, /^error: --from: no transcript .*nope\.jsonl\n$/],
      [['-l', 'r', 'restore', '--from', ''], 2, /^error: --from: the session id is empty\n$/],
      [['-l', 'r', 'restore', '--from', 'zzzz'], 3, /^error: /],
      [['-l', 'afile', 'restore', '--from', transcript], 3, /^error: .*\/tasks\/afile is not a folder\n$/],
      [['-l', 'afile', 'restore', '--from', transcript, '--dry-run'], 3, /^error: .*\/tasks\/afile is not a folder\n$/],
      [['restore', '--session', 'nope'], 3, /^error: no session "nope" under /],
    ];
    for (const [args, code, message] of cases) {
      expectOneLineError(runInProcessSync(config, args, { cwd }), code, message);
      expect(everything(config)).toEqual(before);
    }
  });

  it('a list whose ids are used up: restore refuses (exit 4, nothing written); doctor says so, with the fix that works', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    hostileTranscript(config, cwd);
    const dir = path.join(config, 'tasks', S);
    // #1 is another task now, and the highest id is taken: the good "#1" needs a new id, and none is left.
    writeTask(dir, task('1', 'Someone else'));
    writeTask(dir, task('9007199254740991', 'The last id'));
    const before = everything(config);
    expectOneLineError(
      runInProcessSync(config, ['-l', S, 'restore'], { cwd }),
      4,
      /^error: list ".*" has used every id up to 9007199254740991, the highest Claude Code counts exactly; a new task would need 9007199254740992/,
    );
    expect(everything(config)).toEqual(before);
    const doctor = runInProcessSync(config, ['-l', S, 'doctor', '--json'], { cwd });
    expect(doctor.code).toBe(4);
    const finding = (JSON.parse(doctor.stdout) as { findings: Array<{ code: string; fixes: Array<{ command: string }> }> }).findings.find(
      (f) => f.code === 'tasks_missing',
    );
    expect(finding?.fixes).toEqual([{ kind: 'command', command: `tasks -l <new list> restore --from ${S}`, note: 'into a new list' }]);
    // That fix, with a new list named, works.
    const fresh = runInProcessSync(config, ['-l', 'fresh', 'restore', '--from', S], { cwd });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(
      fs
        .readdirSync(path.join(config, 'tasks', 'fresh'))
        .filter((n) => n.endsWith('.json'))
        .sort(),
    ).toEqual(['1.json', '3.json']);
  });
});

describe('doctor: hostile input', () => {
  it('a hostile transcript, a list that is a file: a report or one line, never a crash; nothing written', () => {
    const config = tempConfig();
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    hostileTranscript(config, cwd);
    fs.mkdirSync(path.join(config, 'tasks'), { recursive: true });
    fs.writeFileSync(path.join(config, 'tasks', 'afile'), 'not a folder');
    const before = everything(config);
    const r = runInProcessSync(config, ['doctor', '--json'], { cwd });
    expect(r.code, r.stderr).toBe(4);
    expect((JSON.parse(r.stdout) as { findings: Array<{ code: string }> }).findings.map((f) => f.code)).toEqual(['tasks_missing']);
    expectOneLineError(runInProcessSync(config, ['-l', 'afile', 'doctor'], { cwd }), 3, /^error: .*\/tasks\/afile is not a folder\n$/);
    expectOneLineError(runInProcessSync(config, ['doctor', '--session', ''], { cwd }), 2, /^error: the session id is empty\n$/);
    expect(everything(config)).toEqual(before);
  });
});
