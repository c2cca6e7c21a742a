import { EXIT, EXIT_MEANING, type ExitCode } from '../runtime/exit-codes.js';

/**
 * Every command of the program but `completion` (it reads no list) and `run` (it makes its
 * list, and its agent makes the config folder: a fresh CI machine has none yet).
 */
const EVERY_BUT_COMPLETION_AND_RUN: readonly string[] = [
  'list',
  'get',
  'create',
  'update',
  'start',
  'done',
  'claim',
  'release',
  'block',
  'unblock',
  'delete',
  'graph',
  'board',
  'lists',
  'use',
  'carry',
  'watch',
  'notify',
  'import',
  'export',
  'restore',
  'check',
  'doctor',
  'log',
  'cost',
  'undo',
  'redo',
  'trust',
];

/**
 * The statuses that only some commands can end with, and which (docs/exit-codes.md says
 * when, case by case). Every command can end with 0, 1, 2 and 130; every one but
 * `completion` and `run` with 3 (a config folder that does not exist); every one with 8
 * (-H). A test holds each name here to a command of the program.
 */
export const ONLY: Partial<Record<ExitCode, readonly string[]>> = {
  [EXIT.notFound]: EVERY_BUT_COMPLETION_AND_RUN,
  [EXIT.conflict]: [
    'create',
    'update',
    'start',
    'done',
    'claim',
    'release',
    'block',
    'delete',
    'board',
    'use',
    'carry',
    'import',
    'restore',
    'check',
    'doctor',
    'undo',
    'redo',
    'trust',
  ],
  [EXIT.busy]: [
    'create',
    'update',
    'start',
    'done',
    'claim',
    'release',
    'block',
    'unblock',
    'delete',
    'carry',
    'import',
    'restore',
    'check',
    'undo',
    'redo',
  ],
  // -H runs every command on the host; the board of hosts, when none is reached.
  [EXIT.unreachable]: [...EVERY_BUT_COMPLETION_AND_RUN, 'completion', 'run'],
  [EXIT.runEnded]: ['watch', 'run'],
  [EXIT.stalled]: ['watch', 'run'],
  [EXIT.timeout]: ['watch', 'run'],
  [EXIT.notExecutable]: ['run'],
  [EXIT.commandNotFound]: ['run'],
};

/** Where a command gives a status another meaning than EXIT_MEANING's (its own help says so). */
const MEANING_OF: Readonly<Record<string, Partial<Record<ExitCode, string>>>> = {
  board: { [EXIT.interrupted]: 'interrupted: stopped by Ctrl-C (SIGTERM stops it with 0)' },
  notify: { [EXIT.interrupted]: 'interrupted while it starts; once it runs, Ctrl-C, SIGTERM and SIGHUP stop it with 0' },
};

/** The statuses a command can end with, in order, each with its meaning. */
export function exitRows(command: string): Array<{ status: ExitCode; meaning: string }> {
  return (Object.values(EXIT) as ExitCode[])
    .filter((status) => ONLY[status]?.includes(command) ?? true)
    .map((status) => ({ status, meaning: MEANING_OF[command]?.[status] ?? EXIT_MEANING[status] }));
}
