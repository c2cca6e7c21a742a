import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isTasksError, TasksError } from '../base/errors.js';
import { makeDirs } from '../base/make-dirs.js';
import { tasksStateDir } from '../base/state-dir.js';
import { withOwnFileLock } from '../locks/locks.js';
import { writeFileAtomic } from '../store/task-file.js';
import { earlierClaim } from './earlier-claim.js';

/**
 * What `notify` has sent, kept across restarts so that an event is told once: for each
 * target (by a digest of its spec, never the URL), each event's key and when it was
 * claimed. A process claims an event under the file's lock before it sends it, so two
 * `notify` processes with the same target never both send it; the file is replaced
 * atomically, so a crash never leaves half of it. An event whose condition clears is
 * dropped from the file, so it is told again when it comes back.
 */

interface StateFile {
  version: 1;
  /** target id -> event key -> when it was claimed (ms). */
  sent: Record<string, Record<string, number>>;
}

/**
 * `$XDG_STATE_HOME/tasks/`, else `~/.local/state/tasks/` (the XDG base directory rule), a
 * file per Claude Code config folder; undefined when neither can be known.
 */
/**
 * The XDG base directory rule's mode for state folders: the board keeps its token in the
 * same folder, which must be the user's alone whichever of the two made it first.
 */
const STATE_DIR_MODE = 0o700;

export function sentStatePath(where: {
  xdgStateHome?: string | undefined;
  home?: string | undefined;
  configDir: string;
}): string | undefined {
  const root = tasksStateDir(where);
  if (root === undefined) return undefined;
  const resolved = path.resolve(where.configDir);
  const name = path
    .basename(resolved)
    .replace(/^\.+/, '')
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .slice(0, 40);
  return path.join(root, `notify-${name}-${createHash('sha256').update(resolved).digest('hex').slice(0, 12)}.json`);
}

/**
 * The state in `file`. A file that is there but not this shape (a hand edit, a disk that
 * lost it) is started afresh, so notify goes on; it is kept aside as `<file>.bad` (or
 * `<file>.bad-<ms>` beside an earlier one) and `damaged` is told, since events told
 * before may be told again. An empty file is the one `ready` made: nothing sent yet,
 * nothing to say.
 */
function read(file: string, damaged: (message: string) => void, now: number): StateFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, sent: {} };
    throw new TasksError('io', `cannot read ${file}: ${(err as Error).message}`);
  }
  if (text.trim() === '') return { version: 1, sent: {} };
  let why = 'not the shape notify writes';
  try {
    const parsed = JSON.parse(text) as Partial<StateFile> | null;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && isSentMap(parsed.sent))
      return { version: 1, sent: parsed.sent };
  } catch (err) {
    why = `not JSON: ${(err as Error).message}`;
  }
  // A copy kept from an earlier damage stays: this one goes beside it.
  const aside = fs.existsSync(`${file}.bad`) ? `${file}.bad-${now}` : `${file}.bad`;
  let kept = ` (kept as ${aside})`;
  try {
    fs.renameSync(file, aside);
  } catch {
    kept = ''; // Replaced at the next write all the same.
  }
  damaged(`notify's state file ${file} could not be read (${why}): started anew${kept}; events told before may be told again`);
  return { version: 1, sent: {} };
}

/** target -> event key -> ms, as `StateFile.sent`. */
function isSentMap(value: unknown): value is StateFile['sent'] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value).every(
    (keys) =>
      keys !== null && typeof keys === 'object' && !Array.isArray(keys) && Object.values(keys).every((at) => typeof at === 'number'),
  );
}

/** One list's events now, as a process sees them. */
export interface Settle {
  listId: string;
  /** Keys that this process has just seen appear (or sees at its start). */
  fresh: readonly string[];
  /** Every key active now on the list. */
  active: ReadonlySet<string>;
  /**
   * The event types this process looks for (`--on`): a claim of another type is another
   * process's to judge (one with the same target and other events, such as a second cron
   * line), and stays. Absent: every type.
   */
  types?: ReadonlySet<string> | undefined;
  /**
   * When the files these keys come from were read. A claim of the list that is not active
   * is dropped only when it is older than that: a newer one was made by a process that
   * read the files later (the event came back), and this look is behind it.
   */
  scannedAt: number;
  /**
   * Event types whose claims stay though no key of theirs is active: their condition may
   * last but is not known yet (an error waiting out its grace, as every error does at a
   * process's first look). Dropped, a restart would tell it again.
   */
  undecided?: ReadonlySet<string> | undefined;
  /**
   * Keys not active now whose spell lasts (a stall told, its task still in progress and
   * unchanged, while another session's work hides it for a while): their claims stay, so
   * that the same spell is not told twice.
   */
  lasting?: ReadonlySet<string> | undefined;
  /**
   * Claims this process made (key -> when), whose condition it has since seen clear: it
   * read the files after it claimed, whatever the scan's margin says. Dropped (if the
   * claim is still that one), so that the condition is told again when it comes back.
   */
  ownCleared?: ReadonlyMap<string, number> | undefined;
  /**
   * When the list's folder was made, where the file system says (statx's birth time): a
   * claim of the list made before then was an earlier folder's, removed and made again
   * since (a job that cleans its list between runs), and is dropped. Its new plan has the
   * same ids from 1, so its events have the same keys, and would never be told.
   */
  bornAt?: number | undefined;
  /**
   * Keys to claim without telling, for the targets this state has never kept anything for
   * (`newTargets`): the old news a first run finds (a list finished long ago), which would
   * otherwise all be sent at once to a target just set up. Claimed, they stay told.
   */
  quiet?: { keys: ReadonlySet<string>; targets: ReadonlySet<string> } | undefined;
}

/** A claim this much older than the folder's birth is an earlier folder's (file times and the clock may differ a little). */
const BORN_SLACK_MS = 1000;

/** How to choose another place, said with every failure to keep the state. */
const CHOOSE = 'set XDG_STATE_HOME to a folder you can write';

/**
 * No folder to keep what was sent in (neither $XDG_STATE_HOME nor a home): notify cannot
 * tell each event once, so it does not run (an error, not events told again and again).
 */
export function noStateFolder(): TasksError {
  return new TasksError('io', `notify has no folder to keep what it sent (neither XDG_STATE_HOME nor HOME is set): ${CHOOSE}`);
}

/** The state cannot be kept at `file`: the error a run ends with (nothing is sent unclaimed, so nothing twice). */
function cannotKeep(file: string, err: unknown): TasksError {
  return new TasksError('io', `notify cannot keep what it sent in ${path.dirname(file)} (${(err as Error).message}): ${CHOOSE}`, {
    cause: err,
  });
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The state file is a symbolic link (kept in a synced folder, say): it is never followed,
 * since each write replaces the file whole, which would break the link. Said as it is, not
 * as the system's "too many symbolic links" and a folder that cannot be written.
 */
function linked(file: string, err: unknown): TasksError {
  return new TasksError(
    'io',
    `notify's state file ${file} is a symbolic link, which notify does not follow (it replaces its file whole, which would break the link): put the file itself in its place, or set XDG_STATE_HOME to another folder`,
    { cause: err },
  );
}

export class SentState {
  constructor(
    /** undefined: kept in memory only (a view that sends nothing, as the board's Now). */
    private readonly file: string | undefined,
    private readonly now: () => number,
    /** Told when the file was damaged and started afresh (events told before may be told again). */
    private readonly damaged: (message: string) => void = () => {},
  ) {}

  private memory: StateFile = { version: 1, sent: {} };

  /**
   * Of `targets`, those this state has kept nothing for: a run's first for them (read
   * without the lock; a second run starting at the same moment may find them new too).
   */
  newTargets(targets: readonly string[]): Set<string> {
    const state = this.file === undefined ? this.memory : read(this.file, this.damaged, this.now());
    return new Set(targets.filter((t) => state.sent[t] === undefined));
  }

  /** Make the state folder and check that the file can be written there; throws the run's error if not. */
  ready(): void {
    const file = this.file;
    if (file === undefined) return;
    try {
      makeDirs(path.dirname(file), STATE_DIR_MODE);
      fs.closeSync(
        fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o644),
      );
      fs.accessSync(path.dirname(file), fs.constants.W_OK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ELOOP' && isLink(file)) throw linked(file, err);
      throw cannotKeep(file, err);
    }
  }

  /**
   * Under the lock: drop every target's claims of the lists `gone` names (their folder is
   * gone: a CI job's list, removed after its run). Nothing else would drop them, since no
   * look at such a list comes again, and the file would grow with every list ever told. A
   * folder made again later is a new list anyway (`Settle.bornAt`).
   */
  async forgetLists(gone: (listId: string) => boolean): Promise<void> {
    const drop = (state: StateFile) => {
      const verdicts = new Map<string, boolean>();
      let changed = false;
      for (const sent of Object.values(state.sent)) {
        for (const key of Object.keys(sent)) {
          const list = key.split('|')[1] ?? '';
          const isGone = verdicts.get(list) ?? gone(list);
          verdicts.set(list, isGone);
          if (!isGone) continue;
          delete sent[key];
          changed = true;
        }
      }
      return changed;
    };
    const file = this.file;
    if (file === undefined) {
      drop(this.memory);
      return;
    }
    try {
      await withOwnFileLock(file, 'notify state', () => {
        const state = read(file, this.damaged, this.now());
        if (drop(state)) writeFileAtomic(file, `${JSON.stringify(state)}\n`);
      });
    } catch (err) {
      if (isTasksError(err) && err.code === 'busy') throw err;
      throw cannotKeep(file, err);
    }
  }

  /** Under the lock: drop `target`'s claim of `key` if it is still the one made at `at` (its send failed: told again later). */
  async release(target: string, key: string, at: number): Promise<void> {
    const drop = (state: StateFile) => {
      const sent = state.sent[target];
      if (sent?.[key] !== at) return false;
      delete sent[key];
      return true;
    };
    const file = this.file;
    if (file === undefined) {
      drop(this.memory);
      return;
    }
    try {
      await withOwnFileLock(file, 'notify state', () => {
        const state = read(file, this.damaged, this.now());
        if (drop(state)) writeFileAtomic(file, `${JSON.stringify(state)}\n`);
      });
    } catch (err) {
      if (isTasksError(err) && err.code === 'busy') throw err;
      throw cannotKeep(file, err);
    }
  }

  /**
   * Under the lock: claim each fresh key for each target that has not had it (returned,
   * to be sent), and drop the claims of this list whose condition cleared.
   */
  async settle(targets: readonly string[], s: Settle): Promise<Array<{ target: string; key: string; at: number }>> {
    const apply = (state: StateFile) => {
      const claimed: Array<{ target: string; key: string; at: number }> = [];
      let changed = false;
      const at = this.now();
      for (const target of targets) {
        // A target's record is kept even empty: the next run knows it is not the first.
        if (state.sent[target] === undefined) changed = true;
        const sent = (state.sent[target] ??= {});
        if (s.bornAt !== undefined) {
          for (const [key, claimedAt] of Object.entries(sent)) {
            if (key.split('|')[1] !== s.listId || claimedAt + BORN_SLACK_MS >= s.bornAt) continue;
            delete sent[key];
            changed = true;
          }
        }
        for (const key of s.fresh) {
          if (sent[key] !== undefined) continue;
          // Told under the key an earlier version gave it: kept under today's, not told again.
          const earlier = earlierClaim(key, sent);
          if (earlier !== undefined) {
            sent[key] = sent[earlier] as number;
            delete sent[earlier];
            changed = true;
            continue;
          }
          sent[key] = at;
          if (!(s.quiet?.targets.has(target) && s.quiet.keys.has(key))) claimed.push({ target, key, at });
          changed = true;
        }
        for (const [key, claimedAt] of Object.entries(sent)) {
          const [type, list] = key.split('|');
          if (s.active.has(key) || list !== s.listId || s.lasting?.has(key) || s.undecided?.has(type as string)) continue;
          if (s.types !== undefined && !s.types.has(type as string)) continue;
          if (claimedAt >= s.scannedAt && s.ownCleared?.get(key) !== claimedAt) continue;
          delete sent[key];
          changed = true;
        }
      }
      return { claimed, changed };
    };
    const file = this.file;
    if (file === undefined) return apply(this.memory).claimed;
    try {
      makeDirs(path.dirname(file), STATE_DIR_MODE);
      return await withOwnFileLock(file, 'notify state', () => {
        const state = read(file, this.damaged, this.now());
        const { claimed, changed } = apply(state);
        if (changed) writeFileAtomic(file, `${JSON.stringify(state)}\n`);
        return claimed;
      });
    } catch (err) {
      // Another notify holding the lock past the budget: this look's events are claimed at the next.
      if (isTasksError(err) && err.code === 'busy') throw err;
      throw cannotKeep(file, err);
    }
  }
}
