import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestingExceeds } from '../../src/core/base/json-depth.js';
import { mtimeReader, nodeStatNumbers, openFileMtimeMs, type StatNumbers } from '../../src/core/base/open-file-mtime.js';
import {
  bindingCalls,
  type FileCalls,
  type FsBinding,
  nodeFileCalls,
  publicFileCalls,
  wrappersMatch,
} from '../../src/core/base/open-read-close.js';
import { compareIds, sortByIds } from '../../src/core/store/ids.js';
import { readTaskFile } from '../../src/core/store/task-file.js';
import { isoTime } from '../../src/render/iso-text.js';
import { escapeUnsafeJson } from '../../src/render/json.js';

// The cheap paths `list --json` takes must give the very text the plain ones give.
describe('isoTime', () => {
  it('is toISOString for any time, fractions of a millisecond, day edges and outside 1970-9999 included', () => {
    const times = [
      0, 1, 999, 1000, 59_999, 3_599_999, 86_399_999, 86_400_000, 1_733_223_767_621.457, 1_733_223_767_621.75,
      951_782_400_000 /* 2000-02-29 */, 253_402_300_799_999, 253_402_300_800_000, -1, -0.5, -86_400_001, 8.64e15, -8.64e15,
    ];
    // Random times across the years, and runs of times within one day (the cached date part).
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) times.push(Math.floor(random() * 4e12) - 1e11, 1_733_200_000_000 + random() * 86_400_000);
    // Every day edge of leap years and century years (1972, 2000, 2100, 2400, 9996) and
    // the years' first and last days from 1970 to 9999: the date part is arithmetic.
    for (const year of [1972, 2000, 2100, 2400, 9996])
      for (let day = 0; day < 366; day++) times.push(Date.UTC(year, 0, 1 + day), Date.UTC(year, 0, 1 + day) - 1);
    for (let year = 1970; year <= 9999; year++) times.push(Date.UTC(year, 0, 1), Date.UTC(year, 11, 31, 23, 59, 59, 999));
    for (const t of times) expect(isoTime(t), String(t)).toBe(new Date(t).toISOString());
  });

  it('throws as toISOString does for a time that is none', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});

describe('escapeUnsafeJson', () => {
  it('escapes DEL and the controls and overrides outside ASCII, and leaves everything else as it is', () => {
    expect(escapeUnsafeJson('{"a":"x\u007fy"}')).toBe('{"a":"x\\u007fy"}');
    expect(escapeUnsafeJson('"\u009b\u202e\u2028é✓"')).toBe('"\\u009b\\u202e\\u2028é✓"');
    const ascii = JSON.stringify({ s: 'plain text ~ with every printable one !"#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}' });
    expect(escapeUnsafeJson(ascii)).toBe(ascii);
    expect(escapeUnsafeJson('"é ✓ 🙂"')).toBe('"é ✓ 🙂"');
  });
});

describe('sortByIds', () => {
  it('orders as compareIds does: ids by number at any length, then other names by text', () => {
    const ids = ['10', 'b', '9', '100000000000000000001', '2', 'a', '01', '1', '99999999999999999999', ''];
    const sorted = sortByIds(ids.map((id) => ({ id }))).map((t) => t.id);
    expect(sorted).toEqual([...ids].sort(compareIds));
    expect(sorted).toEqual(['1', '2', '9', '10', '99999999999999999999', '100000000000000000001', '', '01', 'a', 'b']);
  });

  it('sorts a shuffled list of plain ids by number, and falls back to compareIds for ids Number cannot hold or that repeat', () => {
    const plain = Array.from({ length: 3000 }, (_, i) => String(i * 7919 + 1));
    const shuffled = [...plain].sort(() => Math.random() - 0.5);
    expect(sortByIds(shuffled.map((id) => ({ id }))).map((t) => t.id)).toEqual([...plain].sort(compareIds));
    const big = ['1000000000000001', '999999999999999', '2', '10000000000000000'];
    expect(sortByIds(big.map((id) => ({ id }))).map((t) => t.id)).toEqual([
      '2',
      '999999999999999',
      '1000000000000001',
      '10000000000000000',
    ]);
    const twice = [
      { id: '3', n: 1 },
      { id: '1', n: 2 },
      { id: '3', n: 3 },
    ];
    expect(sortByIds(twice).map((t) => t.n)).toEqual([2, 1, 3]);
  });
});

describe('the nesting check of a task file read', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-nesting-'));
  const task = (extra: Record<string, unknown>) => ({
    id: '1',
    subject: 's',
    description: 'brackets in text: [[[{{{',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    ...extra,
  });
  const nested = (depth: number, open: 'array' | 'object'): unknown => {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = open === 'array' ? [v] : { k: v };
    return v;
  };

  it('refuses exactly what walking the free-form parts refuses, at the limit and around it', () => {
    for (let depth = MAX_JSON_DEPTH - 4; depth <= MAX_JSON_DEPTH + 2; depth++) {
      for (const open of ['array', 'object'] as const) {
        for (const where of ['metadata', 'unknownKey'] as const) {
          const value = where === 'metadata' ? { m: nested(depth, open) } : nested(depth, open);
          const file = path.join(dir, `${depth}-${open}-${where}.json`);
          fs.writeFileSync(file, JSON.stringify(task({ [where]: value })));
          const refused = nestingExceeds(value, MAX_JSON_DEPTH - 1);
          const result = readTaskFile(file);
          expect(result.kind === 'invalid' && /nested deeper/.test(result.reason), `${depth} ${open} ${where}`).toBe(refused);
        }
      }
    }
  });
});

describe('the change time of an open file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-mtime-'));
  /**
   * Files with times of every kind: fractions of a millisecond, old, far ahead, 1970; the
   * access time half the change time (the first file's tell a swap of the two apart).
   */
  const files = (): number[] => {
    const times = [951_782_400_123.456, 0, 1.5, 1_733_223_767_621.457, 4_102_444_800_000.999, 253_402_300_799_000];
    return times.map((t, i) => {
      const file = path.join(dir, `${i}.json`);
      fs.writeFileSync(file, 'x'.repeat(i));
      fs.utimesSync(file, new Date(t / 2), new Date(t));
      return fs.openSync(file, 'r');
    });
  };
  /** A source of raw numbers that counts its calls. */
  const counted = (fstat: StatNumbers['fstat']) => {
    const calls = { n: 0 };
    const source: StatNumbers = {
      fstat: (...a) => {
        calls.n++;
        return fstat(...a);
      },
    };
    return { calls, source };
  };

  it("is fstatSync's mtimeMs, to the bit, on every file, and this Node's own numbers are taken after the first", () => {
    const fds = files();
    const node = (process as unknown as { binding: (name: string) => StatNumbers }).binding('fs');
    const { calls, source } = counted((...a) => node.fstat(...a));
    const read = mtimeReader(() => source);
    for (const fd of [...fds, ...fds]) expect(read(fd)).toBe(fs.fstatSync(fd).mtimeMs);
    // One call to check the first file against its Stats, then one a file.
    expect(calls.n).toBe(1 + 2 * fds.length - 1);
    expect(openFileMtimeMs(fds[3] as number)).toBe(fs.fstatSync(fds[3] as number).mtimeMs);
  });

  it("takes this Node's own numbers, asked as its fstatSync asks, and never through a process.binding Node wrapped to warn", () => {
    // Node 20, 22 and 24 (CI runs each): the binding is there and called as the reader calls it.
    expect(nodeStatNumbers()).toBeDefined();
    // What Node puts in its place under --pending-deprecation, however set: a function that warns first.
    const proc = process as unknown as { binding: (name: string) => unknown };
    const own = proc.binding;
    const warned: string[] = [];
    const deprecated = (name: string) => {
      warned.push(name);
      return own(name);
    };
    proc.binding = Object.defineProperty(deprecated, 'name', { value: 'deprecated' });
    try {
      expect(nodeStatNumbers()).toBeUndefined();
    } finally {
      proc.binding = own;
    }
    expect(warned).toEqual([]);
  });

  it('falls back to fstatSync for good when the numbers are laid out otherwise, throw, or are not there', () => {
    const fds = files();
    const node = (process as unknown as { binding: (name: string) => StatNumbers }).binding('fs');
    // A layout this reader does not know: the access and change times swapped.
    const swapped = counted((...a) => {
      const n = Array.from(node.fstat(...a));
      return [...n.slice(0, 10), ...n.slice(12, 14), ...n.slice(10, 12), ...n.slice(14)];
    });
    const throwing = counted(() => {
      throw new Error('no such binding');
    });
    for (const { calls, source } of [swapped, throwing]) {
      const read = mtimeReader(() => source);
      for (const fd of [...fds, ...fds]) expect(read(fd)).toBe(fs.fstatSync(fd).mtimeMs);
      expect(calls.n).toBe(1);
    }
    const none = mtimeReader(() => undefined);
    for (const fd of fds) expect(none(fd)).toBe(fs.fstatSync(fd).mtimeMs);
  });
});

describe('open, read and close without the public checks', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-calls-'));
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  /** What a call gives or throws, as comparable values. */
  const outcome = (call: () => unknown) => {
    try {
      return { value: call() };
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      return { threw: e.constructor.name, code: e.code, message: e.message };
    }
  };
  /** Every kind of file a listing meets, and what each set of calls makes of it. */
  const meet = (calls: FileCalls) => {
    fs.writeFileSync(path.join(dir, 'task.json'), '{"id":"1"}');
    fs.writeFileSync(path.join(dir, 'empty.json'), '');
    fs.mkdirSync(path.join(dir, 'folder.json'), { recursive: true });
    if (!fs.existsSync(path.join(dir, 'link.json'))) fs.symlinkSync('task.json', path.join(dir, 'link.json'));
    const buffer = Buffer.alloc(64);
    return ['task.json', 'empty.json', 'folder.json', 'link.json', 'missing.json', 'nul\0.json', 'task.json/x'].map((name) => {
      const opened = outcome(() => calls.open(path.join(dir, name), flags));
      if (opened.value === undefined) return { name, opened };
      const fd = opened.value as number;
      const read = outcome(() => calls.read(fd, buffer, 0, buffer.length, 0));
      const zero = outcome(() => calls.read(fd, buffer, 0, 0, 0));
      const text = buffer.toString('utf8', 0, typeof read.value === 'number' ? read.value : 0);
      calls.close(fd);
      return { name, opened: typeof opened.value, read, zero, text, closedTwice: outcome(() => calls.close(fd)) };
    });
  };

  it("are this Node's own binding on Node 20, 22 and 24, called as its wrappers call it", () => {
    // CI runs each of the three: a Node whose wrappers changed shows here, not as a slower
    // listing. Asked of the build in a process of its own: graceful-fs (which the build
    // replaces) wraps fs.closeSync in every process that loads it, as this test runner may
    // have, and a wrapped closeSync is rightly left to itself.
    const built = path.resolve('dist', 'core', 'base', 'open-read-close.js');
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import fs from 'node:fs'; import * as m from ${JSON.stringify(pathToFileURL(built).href)};
         console.log(JSON.stringify([m.wrappersMatch(fs), m.nodeFileCalls() !== m.publicFileCalls, m.fileCalls() !== m.publicFileCalls]));`,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(r.stdout || 'null'), r.stderr).toEqual([true, true, true]);
    // Where closeSync is wrapped (graceful-fs, a test's spy): the public calls.
    const wrapped = { ...fs, closeSync: (fd: number) => fs.closeSync(fd) };
    expect(wrappersMatch(wrapped)).toBe(false);
  });

  it('open, read, refuse and fail as the public calls do, file by file', () => {
    const publicly = meet(publicFileCalls);
    expect(publicly.map((m) => m.name)).toHaveLength(7);
    expect(publicly[0]).toMatchObject({ opened: 'number', text: '{"id":"1"}' });
    const binding = (process as unknown as { binding: (name: string) => FsBinding }).binding('fs');
    expect(meet(bindingCalls(binding))).toEqual(publicly);
  });

  it("are the public calls where the wrappers read otherwise, or process.binding is not Node's own", () => {
    const other = { ...fs, readSync: (fd: number, buffer: Buffer) => fs.readSync(fd, buffer, 0, 1, null) };
    expect(wrappersMatch(other)).toBe(false);
    expect(wrappersMatch({ ...fs, closeSync: () => undefined })).toBe(false);
    const proc = process as unknown as { binding: (name: string) => unknown };
    const own = proc.binding;
    const asked: string[] = [];
    for (const stand of [
      // under --pending-deprecation: a function that warns first
      Object.defineProperty(
        (name: string) => {
          asked.push(name);
          return own(name);
        },
        'name',
        { value: 'deprecated' },
      ),
      // the permission model: refused
      Object.defineProperty(
        () => {
          throw Object.assign(new Error('Access to this API has been restricted'), { code: 'ERR_ACCESS_DENIED' });
        },
        'name',
        { value: 'binding' },
      ),
    ]) {
      proc.binding = stand;
      try {
        expect(nodeFileCalls()).toBe(publicFileCalls);
      } finally {
        proc.binding = own;
      }
    }
    expect(asked).toEqual([]);
  });
});
