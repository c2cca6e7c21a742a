import { TasksError } from '../../core/base/errors.js';
import type { SettingsPlaces } from '../../core/binding/settings-files.js';
import { endedNamedLists, endedNamedText } from '../../core/lists/ended-named-lists.js';
import { chooseList, type ListChoice, listIds } from '../../core/lists/list-choice.js';
import { missingListError, missingListFacts } from '../../core/lists/missing-list.js';
import { shortIdAmong } from '../../core/lists/short-ids.js';
import { sessionsOfList } from '../../core/sessions/list-sessions.js';
import type { SessionIndex } from '../../core/sessions/session-index.js';
import { onTaskWrite } from '../../core/writes/write-events.js';
import {
  commandWithList,
  type RefusalCandidate,
  renderChoiceNote,
  renderDryRunNeeds,
  renderRefusalCommands,
  shellWord,
} from '../../render/list-choice-note.js';
import { renderBoundNotYet, renderMovedNotYet, renderNewList, renderWaitingFor } from '../../render/new-list.js';
import { oneLine } from '../../render/text.js';
import type { IO } from './io.js';

/**
 * The list choice of one run (core's rules, lists/list-choice.ts), told as a person and a
 * script need it: nothing when the list was named; one line when the project or the
 * lists on disk chose it; a refusal that names each candidate with the very command to
 * paste; a dry run never refused, told what a real run needs; a missing list named with
 * where its name came from and what was probably meant; a list a write makes, announced.
 */
export interface ChoiceRun {
  io: IO;
  configDir: string;
  flag: string | undefined;
  session: string | undefined;
  env: string | undefined;
  cwd: string | undefined;
  home: string;
  settings: Omit<SettingsPlaces, 'configDir'>;
  sessions: SessionIndex;
  /** The command line after the program (`release --gone -n`), for the commands a refusal offers. */
  args: readonly string[];
  /** Keep a listener for the rest of the run. */
  subscribe: (stop: () => void) => void;
  /** The run's short ids of the lists on disk against this list (shortOf), one listing a list for the whole run. */
  shortIds?: ((id: string) => (x: string) => string) | undefined;
}

export interface ChoiceNeeds {
  /** create, import: a list whose name is new is made, and announced. */
  creates?: boolean | undefined;
  /** watch: a list that does not exist yet is waited for. */
  mayBeMissing?: boolean | undefined;
  /** A dry run of a change: never refused. */
  dryRun?: boolean | undefined;
  /** list, get, export: a TodoWrite session's todos can be shown. */
  todos?: boolean | undefined;
  /**
   * A gate's words as typed (`--until all-completed`): a gate never runs on a guessed
   * list (the latest changed, or the only one, when no session of this directory has
   * one), refused before anything is said of the guess.
   */
  gate?: string | undefined;
}

export function chooseForRun(run: ChoiceRun, forWrite: boolean, needs: ChoiceNeeds = {}): ListChoice {
  let choice: ListChoice;
  try {
    choice = chooseList(run.configDir, {
      flag: run.flag,
      session: run.session,
      env: run.env,
      forWrite,
      dryRun: needs.dryRun,
      cwd: run.cwd,
      home: run.home,
      settings: run.settings,
      index: run.sessions,
    });
  } catch (err) {
    // A command pasted with its list named needs no --session beside it.
    throw withCommands(err, withoutSession(run.args), run.sessions.now());
  }
  const short = run.shortIds?.(choice.id) ?? shortOf(run.configDir, choice.id);
  // A warning first: it may be why no bound list was taken (settings Claude Code skips too).
  for (const w of choice.warnings) run.io.warn(w, 'list_choice_warning');
  if (needs.gate !== undefined) {
    if (choice.gateRefusal !== undefined) throw withCommands(choice.gateRefusal, run.args, run.sessions.now());
    refuseGuessedGate(run, choice, needs.gate, short);
  }
  // The only list there is needs no explaining to a script; a person is told whose it is.
  if (!(choice.how === 'only' && !run.io.stderrIsTTY)) {
    if (choice.how === 'only' && choice.exists) choice.session = sessionsOfList(run.sessions, choice.id)[0];
    const note = renderChoiceNote(choice, {
      home: run.home,
      now: run.sessions.now(),
      width: run.io.noteColumns,
      short,
      fit: run.io.stderrIsTTY,
    });
    if (note !== undefined) run.io.note(note, 'list_chosen', { list: choice.id, how: choice.how });
  }
  if (choice.writeRefusal !== undefined) {
    run.io.note(
      renderDryRunNeeds(choice.writeRefusal.message, candidatesOf(choice.writeRefusal), run.args, run.sessions.now()),
      'dry_run_needs_list',
    );
  }
  if (choice.todos !== undefined && !needs.todos) {
    throw new TasksError('not_found', `session ${choice.id} keeps its todos with TodoWrite, not in a task list`, {
      hint: 'tasks list, get and export show them',
      details: { sessionId: choice.id },
    });
  }
  if (!choice.exists && choice.todos === undefined) missing(run, choice, forWrite, needs, short);
  return choice;
}

/**
 * A gate on a list no session of this directory has: a CI job would pass on another
 * project's finished list. Where the directory's sessions, all ended, worked on a list
 * their environment named, that list is the one to name.
 */
function refuseGuessedGate(run: ChoiceRun, choice: ListChoice, gate: string, short: (id: string) => string): void {
  if (choice.how !== 'most-recent' && choice.how !== 'only') return;
  const named = (list: string) => `tasks -l ${list} watch ${gate}`;
  const ended = endedNamedLists(run.sessions, run.cwd, run.home);
  const candidates = ended === undefined ? (choice.candidates ?? [choice.id]) : ended.lists;
  throw new TasksError(
    'usage',
    ended !== undefined
      ? `${endedNamedText(ended, run.home)}, so a gate needs its list named: ${named(shellWord(ended.lists[0] as string))}`
      : choice.how === 'only'
        ? `the only task list, ${short(choice.id)}, belongs to no session of this directory, so a gate needs its list named: ${named(shellWord(short(choice.id)))}`
        : `${choice.candidates?.length ?? 'several'} task lists exist and none belongs to this directory's sessions, so a gate needs its list named: ${named('<list>')}`,
    {
      hint:
        ended === undefined
          ? 'tasks lists shows the lists with their projects and prompts'
          : `tasks use ${shellWord(ended.lists[0] as string)} makes it this project's list, for tasks and the sessions started here`,
      details: { candidates },
    },
  );
}

/** The short id `tasks lists` shows for a list (the lists on disk are read when first asked: a named list often never is). */
export function shortOf(configDir: string, id: string): (x: string) => string {
  let known: Set<string> | undefined;
  return (x: string) => {
    known ??= new Set([...listIds(configDir), id]);
    // Only the ids asked for are shortened (one, mostly), each against the others.
    return known.has(x) ? shortIdAmong(x, known) : x;
  };
}

function missing(run: ChoiceRun, choice: ListChoice, forWrite: boolean, needs: ChoiceNeeds, short: (id: string) => string): void {
  // A live session's list before its first task: reads see it empty; a change makes it.
  if (choice.fresh) {
    if (forWrite && !needs.dryRun) announceWhenMade(run, choice, [], short);
    else if (choice.how === 'binding' && !needs.mayBeMissing)
      run.io.note(renderBoundNotYet(short(choice.id), choice.binding?.file, run.home), 'list_not_made_yet', { list: choice.id });
    else if (choice.movedTo && !needs.mayBeMissing)
      run.io.note(renderMovedNotYet(short(choice.id)), 'list_not_made_yet', { list: choice.id });
    return;
  }
  if (needs.mayBeMissing) {
    // A typo shows at once (then the wait goes on, as for any list not made yet).
    const { near, fullId } = missingListFacts(run.configDir, choice);
    const meant = fullId !== undefined ? [fullId] : near;
    // No list holds `empty`: on a typo the gate would pass at once, and a job go on early.
    if (meant.length > 0 && needs.gate === '--until empty') {
      throw new TasksError(
        'not_found',
        `list "${short(choice.id)}" does not exist (did you mean ${meant.join(' or ')}?), and --until empty would hold on it at once`,
        { hint: 'name the list the agents work on', details: { list: choice.id, suggestions: meant } },
      );
    }
    if (meant.length > 0) run.io.note(renderWaitingFor(short(choice.id), meant), 'waiting_for_list', { list: choice.id });
    return;
  }
  if (!needs.creates) throw missingListError(run.configDir, choice, run.sessions);
  const { near } = missingListFacts(run.configDir, choice);
  // A dry run makes nothing; a name near an existing list is worth a word all the same.
  if (needs.dryRun) {
    if (near.length > 0)
      run.io.note(`${renderNewList(short(choice.id), near, run.sessions.knows(choice.id))}, if this were not a dry run`, 'list_created', {
        list: choice.id,
      });
  } else announceWhenMade(run, choice, near, short);
}

/**
 * Said when its first task is written (a folder that cannot be made is an error, not a
 * new list); with --json the created tasks say it, and stderr stays for errors alone.
 */
function announceWhenMade(run: ChoiceRun, choice: ListChoice, near: readonly string[], short: (id: string) => string): void {
  if (run.io.json) return;
  const stop = onTaskWrite((write) => {
    if (write.listDir !== choice.dir) return;
    stop();
    run.io.note(renderNewList(short(choice.id), near, run.sessions.knows(choice.id)), 'list_created', { list: choice.id });
  });
  run.subscribe(stop);
}

/** The command line without `--session <id>` (or `--session=<id>`). */
function withoutSession(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (arg === '--session') i++;
    else if (!arg.startsWith('--session=')) out.push(arg);
  }
  return out;
}

/** A refusal that names candidates gets the command to paste for each, in its message. */
function withCommands(err: unknown, args: readonly string[], now: number): unknown {
  if (!(err instanceof TasksError) || err.code !== 'usage') return err;
  const candidates = candidatesOf(err);
  if (candidates.length === 0) return err;
  return new TasksError('usage', `${err.message}: ${renderRefusalCommands(candidates, args, now)}`, {
    hint: err.hint,
    details: {
      ...err.details,
      candidates: candidates.map((c) => ({
        ...c,
        lastActivity: c.lastActivity === undefined ? null : new Date(c.lastActivity).toISOString(),
        command: commandWithList(c.pasteId ?? c.shortId, args),
      })),
    },
  });
}

function candidatesOf(err: TasksError): RefusalCandidate[] {
  const raw = err.details?.candidates;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((c: unknown) => {
    if (typeof c !== 'object' || c === null) return [];
    const { list, shortId, pasteId, prompt, state, lastActivity } = c as Record<string, unknown>;
    if (typeof list !== 'string' || typeof shortId !== 'string') return [];
    const at = typeof lastActivity === 'string' ? Date.parse(lastActivity) : Number.NaN;
    return [
      {
        list,
        shortId,
        pasteId: typeof pasteId === 'string' ? pasteId : undefined,
        prompt: typeof prompt === 'string' ? oneLine(prompt) : undefined,
        state: typeof state === 'string' ? state : undefined,
        lastActivity: Number.isNaN(at) ? undefined : at,
      },
    ];
  });
}
