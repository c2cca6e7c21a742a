import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureConfig, readJson, run, snapshotDir, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

interface Finding {
  code: string;
  severity: string;
  message: string;
  fixable: boolean;
  file?: string;
  id?: string;
  repair?: { status: string; message: string };
  [k: string]: unknown;
}
interface Report {
  list: string;
  clean: boolean;
  files: number;
  findings: Finding[];
  remaining?: Finding[];
}

const t = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

function ago(file: string, seconds: number): void {
  const when = new Date(Date.now() - seconds * 1000);
  fs.utimesSync(file, when, when);
}

function check(config: string, ...args: string[]): { code: number; report: Report; stderr: string } {
  const r = runInProcessSync(config, ['-l', 'l', 'check', '--json', ...args]);
  return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
}

describe('tasks check', () => {
  it("a sound list (the real agent's): exit 0, nothing found, nothing changed", () => {
    const { config, list } = fixtureConfig();
    const before = snapshotDir(list);
    const r = runInProcessSync(config, ['check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('✔ list "refactor-auth": no problems (4 task files checked)');
    const json = runInProcessSync(config, ['check', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ list: 'refactor-auth', clean: true, files: 4, findings: [] });
    expect(snapshotDir(list)).toEqual(before);
  });

  it('finds every planted problem, each with its code; exit 4; changes nothing', () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1', { blocks: ['2'] })); // 2 does not list 1 in blockedBy
    writeTask(list, t('2'));
    writeTask(list, t('3', { blockedBy: ['40'] })); // 40 never existed: a reference, not a use of the id
    writeTask(list, t('4', { blocks: ['5'], blockedBy: ['5'] }));
    writeTask(list, t('5', { blocks: ['4'], blockedBy: ['4'] })); // 4 <-> 5 cycle
    writeTask(list, t('6', { owner: 'alice' }));
    ago(path.join(list, '6.json'), 7200);
    fs.writeFileSync(path.join(list, '7.json'), '{"id": "7", "subject": ');
    fs.writeFileSync(path.join(list, '8.json'), JSON.stringify(t('8', { owner: null })));
    fs.writeFileSync(path.join(list, '9.json'), JSON.stringify(t('3')));
    fs.writeFileSync(path.join(list, 'notes.json'), '{}');
    fs.symlinkSync('/etc/hostname', path.join(list, '10.json'));
    fs.writeFileSync(path.join(list, '.highwatermark'), '39');
    fs.writeFileSync(path.join(list, '.lock'), '');
    fs.mkdirSync(path.join(list, '.lock.lock'));
    ago(path.join(list, '.lock.lock'), 30);
    fs.mkdirSync(path.join(list, '2.json.lock'));
    fs.writeFileSync(path.join(list, '2.json.lock', 'junk'), 'x');
    ago(path.join(list, '2.json.lock'), 30);
    fs.writeFileSync(path.join(list, '3.json.lock'), 'not a dir');
    fs.writeFileSync(path.join(list, '.1.json.4242.abcd1234.tmp'), '{"id": "1"');
    ago(path.join(list, '.1.json.4242.abcd1234.tmp'), 60);
    const before = snapshotDir(list);

    const { code, report } = check(config);
    expect(code).toBe(4);
    expect(report.clean).toBe(false);
    const byCode = (c: string) => report.findings.filter((f) => f.code === c);
    expect(byCode('invalid_json')).toMatchObject([{ file: '7.json', id: '7', severity: 'error', fixable: true }]);
    expect(byCode('invalid_task')).toMatchObject([{ file: '8.json', reason: 'owner: Expected string, received null' }]);
    expect(byCode('id_mismatch')).toMatchObject([{ file: '9.json', id: '9', contentId: '3' }]);
    expect(byCode('bad_file_name')).toMatchObject([{ file: 'notes.json', fixable: false }]);
    expect(byCode('not_regular_file')).toMatchObject([
      {
        file: '10.json',
        type: 'symlink',
        target: '/etc/hostname',
        fixable: false,
        message:
          '10.json is a symbolic link to /etc/hostname: agents follow it (and would write through it); tasks refuses to read or write through it',
      },
    ]);
    expect(byCode('edge_not_mirrored')).toMatchObject([{ blocker: '1', blocked: '2', missingOn: '2', field: 'blockedBy' }]);
    expect(byCode('missing_reference')).toMatchObject([{ id: '3', field: 'blockedBy', ref: '40' }]);
    expect(byCode('cycle')).toMatchObject([{ cycle: ['4', '5', '4'], fixable: false }]);
    expect(byCode('highwatermark_behind')).toEqual([]);
    expect(byCode('stale_lock')).toMatchObject([
      { file: '.lock.lock', empty: true, fixable: true },
      { file: '2.json.lock', empty: false, fixable: false },
    ]);
    expect(byCode('bad_lock')).toMatchObject([{ file: '3.json.lock', reason: 'not_a_directory' }]);
    expect(byCode('temp_file')).toMatchObject([{ file: '.1.json.4242.abcd1234.tmp' }]);
    expect(byCode('stale_claim')).toMatchObject([{ id: '6', owner: 'alice' }]);
    expect(report.findings).toHaveLength(13);
    expect(snapshotDir(list)).toEqual(before);

    // Text for people: one line per finding (plus its hint), the summary on stderr when piped.
    const text = runInProcessSync(config, ['-l', 'l', 'check']);
    expect(text.code).toBe(4);
    expect(text.stdout).toMatch(/^✖ invalid_json +7\.json does not parse as JSON/m);
    expect(text.stdout).toMatch(/^✖ cycle +dependency cycle #4 -> #5 -> #4: none of these can start$/m);
    expect(text.stderr.trim()).toBe('✖ list "l": 13 problems (7 errors, 6 warnings); 7 can be fixed with tasks -l l check --fix');
    expect(snapshotDir(list)).toEqual(before);
  });

  it('--fix repairs what is safe, reports each repair, never deletes a task file', () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1', { blocks: ['2'] }));
    writeTask(list, t('2'));
    writeTask(list, t('3', { blockedBy: ['12', '1'] }));
    writeTask(list, t('4', { blocks: ['5'], blockedBy: ['5'] }));
    writeTask(list, t('5', { blocks: ['4'], blockedBy: ['4'] }));
    const corrupt = '{"id": "7", "subject": ';
    fs.writeFileSync(path.join(list, '7.json'), corrupt);
    fs.writeFileSync(path.join(list, '9.json'), JSON.stringify(t('3', { subject: 'misfiled' }), null, 2));
    fs.writeFileSync(path.join(list, '.highwatermark'), 'oops');
    fs.writeFileSync(path.join(list, '.lock'), '');
    fs.mkdirSync(path.join(list, '.lock.lock'));
    ago(path.join(list, '.lock.lock'), 30);
    fs.mkdirSync(path.join(list, '2.json.lock'));
    ago(path.join(list, '2.json.lock'), 30);
    fs.writeFileSync(path.join(list, '.1.json.4242.abcd1234.tmp'), '{');
    ago(path.join(list, '.1.json.4242.abcd1234.tmp'), 60);

    const { code, report } = check(config, '--fix');
    const repairOf = (c: string) => report.findings.filter((f) => f.code === c).map((f) => f.repair);
    expect(repairOf('highwatermark_invalid')).toEqual([
      { status: 'fixed', message: 'rewrote .highwatermark with the highest id known to be used (9)' },
    ]);
    expect(repairOf('invalid_json')[0]?.message).toMatch(
      /^moved 7\.json aside to 7\.json\.corrupt-\d{8}T\d{6}Z \(agents ignore it; id 7 stays used\)$/,
    );
    expect(repairOf('id_mismatch')).toEqual([{ status: 'fixed', message: 'set the id inside 9.json from "3" to "9"' }]);
    expect(repairOf('missing_reference')).toEqual([{ status: 'fixed', message: "dropped #12 from task #3's blockedBy" }]);
    expect(repairOf('edge_not_mirrored')).toEqual([
      { status: 'fixed', message: "added #1 to #2's blockedBy" },
      { status: 'fixed', message: "added #3 to #1's blocks" },
    ]);
    expect(
      repairOf('stale_lock')
        .map((r) => r?.message)
        .sort(),
    ).toEqual(['removed the stale lock .lock.lock', 'removed the stale lock 2.json.lock']);
    expect(repairOf('temp_file')).toEqual([{ status: 'fixed', message: 'removed .1.json.4242.abcd1234.tmp' }]);
    expect(repairOf('cycle')).toEqual([undefined]);
    // What is left: the cycle, which is a person's call.
    expect(report.remaining?.map((f) => f.code)).toEqual(['cycle']);
    expect(code).toBe(4);

    const names = fs.readdirSync(list).sort();
    const aside = names.find((n) => n.startsWith('7.json.corrupt-')) as string;
    expect(fs.readFileSync(path.join(list, aside), 'utf8')).toBe(corrupt); // moved, byte for byte
    expect(names.filter((n) => n.endsWith('.json'))).toEqual(['1.json', '2.json', '3.json', '4.json', '5.json', '9.json']);
    expect(names.some((n) => n.endsWith('.lock') && n !== '.lock')).toBe(false);
    expect(names.some((n) => n.endsWith('.tmp'))).toBe(false);
    expect(fs.readFileSync(path.join(list, '.highwatermark'), 'utf8')).toBe('9');
    expect(readJson(path.join(list, '2.json'))).toMatchObject({ blockedBy: ['1'] });
    expect(readJson(path.join(list, '3.json'))).toMatchObject({ blockedBy: ['1'] });
    expect(readJson(path.join(list, '1.json'))).toMatchObject({ blocks: ['2', '3'] });
    expect(readJson(path.join(list, '9.json'))).toMatchObject({ id: '9', subject: 'misfiled' });
    // The next id skips every id ever used (a dangling reference to 12 was no use of it).
    expect(runInProcessSync(config, ['-l', 'l', 'create', 'next']).stdout).toBe('10\n');
  });

  it('--fix on a clean list, and after a fix, a second check is clean (exit 0)', () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1', { blocks: ['2'] }));
    writeTask(list, t('2'));
    const fixed = runInProcessSync(config, ['-l', 'l', 'check', '--fix']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/edge_not_mirrored .*\n +fixed: added #1 to #2's blockedBy/);
    expect(fixed.stderr.trim()).toBe('list "l": 1 found, 1 fixed; nothing left to fix');
    const again = runInProcessSync(config, ['-l', 'l', 'check']);
    expect(again.code).toBe(0);
  });

  it('a corrupt file with the highest id: moved aside, and its id is never reused', () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1'));
    fs.writeFileSync(path.join(list, '2.json'), 'garbage');
    expect(check(config, '--fix').code).toBe(0);
    expect(fs.readFileSync(path.join(list, '.highwatermark'), 'utf8')).toBe('2');
    expect(runInProcessSync(config, ['-l', 'l', 'create', 'next']).stdout).toBe('3\n');
    // A second check sees the set-aside file and is content with the mark.
    expect(check(config).report.findings).toEqual([]);
  });

  it('--fix keeps references to a file it moved aside (it may be restored); nothing is left', () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1', { blocks: ['2'] }));
    fs.writeFileSync(path.join(list, '2.json'), '{"id": "2", "subj');
    const { code, report } = check(config, '--fix');
    expect(report.findings.map((f) => [f.code, f.repair?.status])).toEqual([['invalid_json', 'fixed']]);
    expect(report.remaining).toEqual([]);
    expect(code).toBe(0);
    expect(readJson(path.join(list, '1.json'))).toMatchObject({ blocks: ['2'] });
  });

  it('--stale-after sets the claim threshold; off skips it; a bad value is a usage error', () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1', { owner: 'bob' }));
    ago(path.join(list, '1.json'), 20 * 60);
    expect(check(config).code).toBe(0); // default 1h
    // A stale claim is a warning: reported, exit 0; --strict makes warnings fail too.
    const short = check(config, '--stale-after', '15m');
    expect(short.code).toBe(0);
    expect(check(config, '--stale-after', '15m', '--strict').code).toBe(4);
    expect(short.report.findings).toMatchObject([
      { code: 'stale_claim', id: '1', owner: 'bob', message: 'task #1 is owned by bob but still pending, unchanged for 20 min' },
    ]);
    expect(check(config, '--stale-after', 'off').code).toBe(0);
    // The grammar every duration flag shares: compound and `min` forms too.
    expect(check(config, '--stale-after', '0h15min', '--strict').code).toBe(4);
    expect(check(config, '--stale-after', '1h30m', '--strict').code).toBe(0);
    const bad = runInProcessSync(config, ['-l', 'l', 'check', '--stale-after', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('error: invalid --stale-after "soon": expected a duration like 90s, 15m, 1h30m or 2d, or off');
  });

  it('--all checks every list; a missing list is exit 3', () => {
    const config = tempConfig();
    writeTask(path.join(config, 'tasks', 'good'), t('1'));
    writeTask(path.join(config, 'tasks', 'bad'), t('1', { blockedBy: ['1'] }));
    const r = runInProcessSync(config, ['check', '--all', '--json']);
    expect(r.code).toBe(4);
    const reports = JSON.parse(r.stdout) as Report[];
    expect(reports.map((x) => [x.list, x.clean])).toEqual([
      ['bad', false],
      ['good', true],
    ]);
    const missing = runInProcessSync(config, ['-l', 'nope', 'check']);
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim()).toMatch(/^error: list folder .*nope does not exist$/);
  });

  it('a file name with terminal escapes is reported without them', () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('1'));
    fs.writeFileSync(path.join(list, '\u001b[2Jevil\u0007.json'), '{');
    const r = runInProcessSync(config, ['-l', 'l', 'check', '--strict']);
    expect(r.code).toBe(4);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).toMatch(/bad_file_name +\[2Jevil\.json is not named <id>\.json/);
  });
});

describe('check announces everything --fix does, and --fix does no more', () => {
  /** 1.json corrupt; #2 waits for #1 (kept: #1 may be restored); #3 names a typo id 42. */
  function damaged(): { config: string; list: string } {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'l');
    writeTask(list, t('2', { blockedBy: ['1'] }));
    writeTask(list, t('3', { blockedBy: ['42'] }));
    fs.writeFileSync(path.join(list, '1.json'), '{"id": "1", "subject": ');
    return { config, list };
  }

  it('references to a quarantined task are kept; a dangling one is dropped without raising the mark', () => {
    const { config, list } = damaged();
    const r = check(config, '--fix');
    expect(readJson(path.join(list, '2.json'))).toMatchObject({ blockedBy: ['1'] });
    expect(readJson(path.join(list, '3.json'))).toMatchObject({ blockedBy: [] });
    const mark = fs.existsSync(path.join(list, '.highwatermark')) ? Number(fs.readFileSync(path.join(list, '.highwatermark'), 'utf8')) : 0;
    expect(mark).toBeLessThan(42);
    expect(r.report.findings.map((f) => f.code).sort()).toEqual(['invalid_json', 'missing_reference']);
  });

  it('every repair --fix makes was announced by check, in the same words', () => {
    const { config } = damaged();
    const looked = runInProcessSync(config, ['-l', 'l', 'check']);
    const fixed = runInProcessSync(config, ['-l', 'l', 'check', '--fix']);
    const announced = [...looked.stdout.matchAll(/^\s+--fix will: (.*)$/gm)].map((m) => m[1]);
    const done = [...fixed.stdout.matchAll(/^\s+fixed: (.*)$/gm)].map((m) =>
      (m[1] as string).replace(/corrupt-\d{8}T\d{6}Z/, 'corrupt-<time>'),
    );
    expect(announced.length).toBe(2);
    expect(done).toEqual(announced.map((a) => (a as string).replace(/^move/, 'moved').replace(/^drop/, 'dropped')));
  });
});

describe('check on a task with 200,000 missing references (the slow tier runs --fix and notify on it)', () => {
  it('reports every one through the built binary: no "Maximum call stack size exceeded"', () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'big');
    const blocks = Array.from({ length: 199_998 }, (_, i) => String(i + 2));
    writeTask(dir, t('1', { blocks }));
    // The built binary: a worker thread's stack (the in-process runner's) is larger, and took it.
    const json = run(config, ['-l', 'big', 'check', '--json'], { timeoutMs: 60_000 });
    expect(json.code, json.stderr.slice(0, 300)).toBe(0);
    expect((JSON.parse(json.stdout) as { findings: unknown[] }).findings).toHaveLength(199_998);
  });
});
