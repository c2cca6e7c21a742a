import fs from 'node:fs';

/**
 * `fs.fstatSync(fd).mtimeMs`, without the Stats object: `list --json` of thousands of
 * tasks stats each file, and while V8 still interprets Node's Stats constructor (most of
 * a single run), each Stats costs 2-3 µs more on Node 22 and 24 and 4.5-6.5 µs more on
 * Node 20 (which also makes four Date objects a Stats) than the system call itself: for
 * 1,000 files, 2-6 ms of a run of 50 (bench/README.md).
 *
 * Node's own fs binding returns the raw numbers fstatSync builds its Stats from. It is not
 * a public interface, so a reader trusts it only after it agreed with fstatSync on the
 * run's first file, to the bit. Anything else (a Node that calls or lays the numbers out
 * otherwise or lacks the binding, a permission model that refuses it, a deprecation
 * warning it would print) leaves every file to fstatSync.
 */
export interface StatNumbers {
  fstat(fd: number, bigint: false, request: undefined, shouldNotThrow: false): ArrayLike<number>;
}

/** Where fstat's numbers hold what a Stats shows (Node's kMode, kIno, kSize, kATimeSec...). */
const AT = { mode: 1, ino: 7, size: 8, atime: 10, mtime: 12, ctime: 14, birthtime: 16 } as const;

/** Node's msFromTimeSpec, the same arithmetic: the same double as the Stats' own. */
const msAt = (n: ArrayLike<number>, at: number): number => (n[at] as number) * 1000 + (n[at + 1] as number) / 1e6;

/**
 * Whether fstat's numbers are laid out as this run's Node lays them out: each of a Stats'
 * times (a file's times are often equal, so mtime alone could be matched by another slot),
 * its mode, inode and size where they are expected.
 */
function sameLayout(n: ArrayLike<number>, st: fs.Stats): boolean {
  return (
    n[AT.mode] === st.mode &&
    n[AT.ino] === st.ino &&
    n[AT.size] === st.size &&
    msAt(n, AT.atime) === st.atimeMs &&
    msAt(n, AT.mtime) === st.mtimeMs &&
    msAt(n, AT.ctime) === st.ctimeMs &&
    msAt(n, AT.birthtime) === st.birthtimeMs
  );
}

/** A reader of open files' change times, trying `source` once, on its first file. */
export function mtimeReader(source: () => StatNumbers | undefined): (fd: number) => number {
  /** undefined: not tried yet; null: not usable. */
  let numbers: StatNumbers | null | undefined;
  return (fd) => {
    if (numbers) return msAt(numbers.fstat(fd, false, undefined, false), AT.mtime);
    const st = fs.fstatSync(fd);
    if (numbers === undefined) {
      numbers = null;
      try {
        const candidate = source();
        if (candidate !== undefined && sameLayout(candidate.fstat(fd, false, undefined, false), st)) numbers = candidate;
      } catch {
        // not usable: fstatSync it is
      }
    }
    return st.mtimeMs;
  };
}

/**
 * The call fstatSync makes on the Nodes this was checked with (20.20, 22.23, 24.22; Node
 * releases from before late 2023 passed an object for the error instead of `false`): the
 * binding is asked only as this Node's fstatSync asks it.
 */
const FSTAT_CALL = 'binding.fstat(fd, options.bigint, undefined, false)';

/**
 * Node's fs binding, where this Node's fstatSync calls it as this reader does, unless
 * asking for it would print a deprecation warning: under --pending-deprecation, however
 * it was set (the command line, NODE_OPTIONS, NODE_PENDING_DEPRECATION, a Node config
 * file), Node wraps `process.binding` in a function that warns; only its own is asked.
 */
export function nodeStatNumbers(): StatNumbers | undefined {
  const binding = (process as { binding?: ((name: string) => { fstat?: unknown }) | undefined }).binding;
  if (binding?.name !== 'binding' || !String(fs.fstatSync).includes(FSTAT_CALL)) return undefined;
  const fsBinding = binding('fs');
  return typeof fsBinding?.fstat === 'function' ? (fsBinding as StatNumbers) : undefined;
}

export const openFileMtimeMs = mtimeReader(nodeStatNumbers);
