import { describe, expect, it } from 'vitest';
import { type Finding, findProblems } from '../../src/core/check/findings.js';
import { findCycles } from '../../src/core/graph/cycles.js';
import { buildBlocksGraph } from '../../src/core/graph/graph.js';
import type { ListScan, ScannedTaskFile } from '../../src/core/store/list-scan.js';
import type { Task } from '../../src/core/store/schema.js';

const NOW = Date.parse('2026-01-02T03:04:05Z');

function task(id: string, extra: Partial<Task> = {}): Task {
  return { id, subject: `task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...extra };
}

function file(t: Task, name = `${t.id}.json`, mtimeMs = NOW - 1000): ScannedTaskFile {
  return { name, fileId: /^([1-9][0-9]*)\.json$/.exec(name)?.[1], type: 'file', mtimeMs, read: { kind: 'ok', task: t } };
}

function scan(over: Partial<ListScan> = {}): ListScan {
  return { dir: '/l', taskFiles: [], locks: [], temps: [], setAside: [], mark: { kind: 'absent' }, lockTarget: 'file', ...over };
}

const codes = (fs: Finding[]) => fs.map((f) => f.code);

describe('findProblems', () => {
  it('finds nothing in a sound list, even with a mark below the highest file id', () => {
    const s = scan({
      taskFiles: [file(task('1', { blocks: ['2'] })), file(task('2', { blockedBy: ['1'] })), file(task('5'))],
      mark: { kind: 'text', text: '3' },
    });
    expect(findProblems(s, { now: NOW, claimStaleMs: 3_600_000 })).toEqual([]);
  });

  it('names each unreadable file by its cause, with the reason', () => {
    const bad = (name: string, cause: 'json' | 'schema' | 'size' | 'type' | 'access', reason: string): ScannedTaskFile => ({
      name,
      fileId: name.split('.')[0],
      type: cause === 'type' ? 'symlink' : 'file',
      mtimeMs: NOW,
      read: { kind: 'invalid', reason, cause },
    });
    const found = findProblems(
      scan({
        taskFiles: [
          bad('1.json', 'json', 'not valid JSON'),
          bad('2.json', 'schema', 'owner: Expected string, received null'),
          bad('3.json', 'size', 'too big'),
          { ...bad('4.json', 'type', 'is a symbolic link'), linkTarget: '/etc/passwd' },
          bad('5.json', 'access', 'permission denied'),
        ],
      }),
      { now: NOW },
    );
    expect(codes(found)).toEqual(['invalid_json', 'invalid_task', 'too_large', 'not_regular_file', 'unreadable_file']);
    expect(found.map((f) => f.fixable)).toEqual([true, true, false, false, false]);
    expect(found[1]).toMatchObject({ id: '2', file: '2.json', reason: 'owner: Expected string, received null' });
    expect(found[3]).toMatchObject({ target: '/etc/passwd', type: 'symlink' });
    expect(found[3]?.message).toMatch(/symbolic link to \/etc\/passwd/);
  });

  it('a file whose id differs from its name; a *.json not named by an id', () => {
    const found = findProblems(scan({ taskFiles: [file(task('3'), '9.json'), file(task('4'), 'notes.json')] }), { now: NOW });
    expect(found).toMatchObject([
      { code: 'id_mismatch', id: '9', contentId: '3', fixable: true },
      { code: 'bad_file_name', file: 'notes.json', contentId: '4', fixable: false },
    ]);
  });

  it('half-mirrored edges, from either side, once each', () => {
    const found = findProblems(
      scan({ taskFiles: [file(task('1', { blocks: ['2'] })), file(task('2')), file(task('3')), file(task('4', { blockedBy: ['3'] }))] }),
      { now: NOW },
    );
    expect(found).toMatchObject([
      { code: 'edge_not_mirrored', blocker: '1', blocked: '2', missingOn: '2', field: 'blockedBy' },
      { code: 'edge_not_mirrored', blocker: '3', blocked: '4', missingOn: '3', field: 'blocks' },
    ]);
  });

  it('references to missing tasks, but not to files that exist and are unreadable', () => {
    const corrupt: ScannedTaskFile = {
      name: '7.json',
      fileId: '7',
      type: 'file',
      mtimeMs: NOW,
      read: { kind: 'invalid', reason: 'x', cause: 'json' },
    };
    const found = findProblems(
      scan({ taskFiles: [file(task('1', { blockedBy: ['7', '2', '../x'] })), corrupt], mark: { kind: 'text', text: '9' } }),
      { now: NOW },
    );
    expect(codes(found)).toEqual(['invalid_json', 'missing_reference', 'missing_reference']);
    expect(found.slice(1).map((f) => f.ref)).toEqual(['2', '../x']);
  });

  it('cycles, with their path; a self-block', () => {
    const found = findProblems(
      scan({
        taskFiles: [
          file(task('1', { blocks: ['2'], blockedBy: ['3'] })),
          file(task('2', { blocks: ['3'], blockedBy: ['1'] })),
          file(task('3', { blocks: ['1'], blockedBy: ['2'] })),
          file(task('4', { blocks: ['4'], blockedBy: ['4'] })),
        ],
      }),
      { now: NOW },
    );
    expect(found).toMatchObject([
      { code: 'cycle', cycle: ['1', '2', '3', '1'], fixable: false },
      { code: 'cycle', cycle: ['4', '4'] },
    ]);
  });

  it('a mark that is not a number; a used id the next create would hand out again', () => {
    expect(findProblems(scan({ mark: { kind: 'text', text: 'abc' } }), { now: NOW })).toMatchObject([
      { code: 'highwatermark_invalid', fixable: true, value: 'abc' },
    ]);
    expect(findProblems(scan({ mark: { kind: 'invalid', reason: 'is a symbolic link', type: 'symlink' } }), { now: NOW })).toMatchObject([
      { code: 'highwatermark_invalid', fixable: false },
    ]);
    // A trailing newline is what agents accept too.
    expect(findProblems(scan({ mark: { kind: 'text', text: '4\n' } }), { now: NOW })).toEqual([]);
    const behind = findProblems(scan({ taskFiles: [file(task('1', { blockedBy: ['6'] }))], mark: { kind: 'text', text: '3' } }), {
      now: NOW,
    });
    // A reference is no proof that an id was used (a typo would burn ids): only files are.
    expect(behind).toMatchObject([{ code: 'missing_reference', ref: '6' }]);
    expect(behind).toHaveLength(1);
    const locked = findProblems(
      scan({
        taskFiles: [file(task('1'))],
        mark: { kind: 'text', text: '3' },
        locks: [{ name: '6.json.lock', type: 'directory', mtimeMs: NOW, empty: true }],
      }),
      { now: NOW },
    );
    expect(locked).toMatchObject([{ code: 'highwatermark_behind', usedId: '6', next: '4', mark: 3 }]);
    const aside = findProblems(scan({ taskFiles: [file(task('1'))], setAside: ['5.json.corrupt-20260101T000000Z'] }), { now: NOW });
    expect(aside).toMatchObject([{ code: 'highwatermark_behind', usedId: '5', next: '2' }]);
    // References to a task moved aside are kept: it may be restored.
    const kept = findProblems(
      scan({
        taskFiles: [file(task('1', { blockedBy: ['5'] }))],
        setAside: ['5.json.corrupt-20260101T000000Z'],
        mark: { kind: 'text', text: '5' },
      }),
      { now: NOW },
    );
    expect(kept).toEqual([]);
    // A used id below the next one is no problem at all.
    expect(findProblems(scan({ taskFiles: [file(task('8', { blockedBy: ['6'] }))] }), { now: NOW })).toMatchObject([
      { code: 'missing_reference' },
    ]);
  });

  it('stale locks (empty or not), bad locks, fresh locks left alone', () => {
    const found = findProblems(
      scan({
        locks: [
          { name: '.lock.lock', type: 'directory', mtimeMs: NOW - 11_000, empty: true },
          { name: '2.json.lock', type: 'directory', mtimeMs: NOW - 60_000, empty: false },
          { name: '3.json.lock', type: 'directory', mtimeMs: NOW - 2_000, empty: true },
          { name: '4.json.lock', type: 'file', mtimeMs: NOW, empty: true },
        ],
        taskFiles: [file(task('2')), file(task('3')), file(task('4'))],
        lockTarget: 'symlink',
      }),
      { now: NOW },
    );
    expect(found).toMatchObject([
      { code: 'bad_lock', file: '.lock', reason: 'symlink' },
      { code: 'stale_lock', file: '.lock.lock', empty: true, fixable: true, ageMs: 11_000 },
      { code: 'stale_lock', file: '2.json.lock', empty: false, fixable: false },
      { code: 'bad_lock', file: '4.json.lock', reason: 'not_a_directory' },
    ]);
  });

  it('a lock path that is neither a folder, a file nor a link (a FIFO, a socket) is named in words', () => {
    const found = findProblems(
      scan({ locks: [{ name: '4.json.lock', type: 'other', mtimeMs: NOW, empty: true }], taskFiles: [file(task('4'))] }),
      { now: NOW },
    );
    expect(found).toMatchObject([{ code: 'bad_lock', file: '4.json.lock', reason: 'not_a_directory' }]);
    expect(found[0]?.message).toBe(
      '4.json.lock is a special file (a FIFO, a socket or a device), not a lock directory: nobody can take or break that lock',
    );
  });

  it('temp files older than the stale time only', () => {
    const found = findProblems(
      scan({
        temps: [
          { name: '.1.json.123.abc.tmp', target: '1.json', mtimeMs: NOW - 30_000 },
          { name: '.2.json.123.abc.tmp', target: '2.json', mtimeMs: NOW - 100 },
        ],
        taskFiles: [file(task('1')), file(task('2'))],
      }),
      { now: NOW },
    );
    expect(found).toMatchObject([{ code: 'temp_file', file: '.1.json.123.abc.tmp', fixable: true }]);
  });

  it('stale claims: owned, pending, unchanged past the threshold; off when no threshold', () => {
    const s = scan({
      taskFiles: [
        file(task('1', { owner: 'alice' }), '1.json', NOW - 2 * 3_600_000),
        file(task('2', { owner: 'bob', status: 'in_progress' }), '2.json', NOW - 2 * 3_600_000),
        file(task('3', { owner: 'carol' }), '3.json', NOW - 60_000),
        file(task('4'), '4.json', NOW - 2 * 3_600_000),
      ],
    });
    expect(findProblems(s, { now: NOW, claimStaleMs: 3_600_000 })).toMatchObject([
      { code: 'stale_claim', id: '1', owner: 'alice', severity: 'warning' },
    ]);
    expect(findProblems(s, { now: NOW })).toEqual([]);
  });
});

describe('findCycles', () => {
  it('one shortest path per strongly connected component, from its lowest id', () => {
    const tasks = [
      task('1', { blocks: ['2'] }),
      task('2', { blocks: ['3', '5'] }),
      task('3', { blocks: ['1'] }),
      task('5', { blocks: ['6'] }),
      task('6', { blocks: ['5'] }),
      task('7', { blocks: ['8'] }),
    ];
    expect(findCycles(buildBlocksGraph(tasks))).toEqual([
      ['1', '2', '3', '1'],
      ['5', '6', '5'],
    ]);
  });

  it('copes with a cycle of 20,000 tasks (no recursion to overflow)', () => {
    const graph = new Map<string, Set<string>>();
    for (let i = 1; i < 20_000; i++) graph.set(String(i), new Set([String(i + 1)]));
    graph.set('20000', new Set(['1']));
    const cycles = findCycles(graph);
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toHaveLength(20_001);
  });
});
