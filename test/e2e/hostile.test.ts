import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureConfig, run, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { writeTranscript } from '../helpers/session-files.mjs';

/**
 * A catalogue of hostile and broken inputs, run in process (output and files only). Each case plants
 * something in a copy of the real agent's list (tasks 1, 2, 4, 5; mark 3), runs one
 * command, and checks the exit code, the message, and that every file in the config
 * folder (and next to it) is byte-identical afterwards, except those the case names.
 */

const valid = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, subject: `task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...extra }, null, 2);

/** Task 7 whose file is exactly `bytes` long: the padding goes into its description. */
const exactly = (bytes: number) => {
  const empty = valid('7', { description: '' });
  return valid('7', { description: 'd'.repeat(bytes - Buffer.byteLength(empty)) });
};

interface Ctx {
  config: string;
  list: string;
  /** A file next to the config folder: nothing may ever write it. */
  outside: string;
}

interface Case {
  name: string;
  setup?: (ctx: Ctx) => void;
  args: string[];
  code: number;
  /** Matched against the whole of stderr. */
  stderr?: RegExp;
  stdout?: RegExp | string;
  /** A non-zero exit that still prints data (watch ending on its deadline). */
  dataOnFailure?: boolean;
  /** Paths (relative to the config folder, or prefixes ending in /) that may change. */
  changes?: string[];
  skip?: string;
}

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const isRoot = process.getuid?.() === 0;

function plant(name: string, content: string) {
  return ({ list }: Ctx) => fs.writeFileSync(path.join(list, name), content);
}

const L = 'tasks/refactor-auth';

const cases: Case[] = [
  // --- files that are not valid tasks
  {
    name: 'malformed JSON: list skips it and says so',
    setup: plant('7.json', '{"id": "7", "subject": '),
    args: ['list'],
    code: 0,
    stdout: /^1\t.*\n2\t.*\n4\t.*\n5\t.*\n$/,
    stderr: /^warning: skipped 7\.json: not valid JSON .*\n4 tasks/,
  },
  {
    name: 'malformed JSON: get',
    setup: plant('7.json', '{"id": "7", "subject": '),
    args: ['get', '7'],
    code: 1,
    stderr: /^error: task #7 is unreadable: 7\.json: not valid JSON/,
  },
  {
    name: 'malformed JSON: update refuses to overwrite it',
    setup: plant('7.json', '{"id": "7"'),
    args: ['update', '7', '--owner', 'me'],
    code: 1,
    stderr: /^error: task #7 is unreadable/,
  },
  {
    name: 'malformed JSON: delete refuses to remove it',
    setup: plant('7.json', '{"id": "7"'),
    args: ['delete', '7'],
    code: 1,
    stderr: /^error: task #7 is unreadable \(not valid JSON .*\); not deleting a file we cannot read\n$/,
  },
  {
    name: 'trailing garbage after the JSON',
    setup: plant('7.json', `${valid('7')}xyz`),
    args: ['list'],
    code: 0,
    stderr: /warning: skipped 7\.json: not valid JSON/,
  },
  { name: 'an empty file', setup: plant('7.json', ''), args: ['list'], code: 0, stderr: /warning: skipped 7\.json: empty file\n/ },
  {
    name: 'a top-level array',
    setup: plant('7.json', '[]'),
    args: ['list'],
    code: 0,
    stderr: /warning: skipped 7\.json: Expected object, received array\n/,
  },
  {
    name: 'a top-level null',
    setup: plant('7.json', 'null'),
    args: ['list'],
    code: 0,
    stderr: /warning: skipped 7\.json: Expected object, received null\n/,
  },
  {
    name: 'a number where the subject should be',
    setup: plant('7.json', valid('7', { subject: 42 })),
    args: ['list'],
    code: 0,
    stderr: /skipped 7\.json: subject: Expected string, received number\n/,
  },
  {
    name: 'a status agents do not know',
    setup: plant('7.json', valid('7', { status: 'done' })),
    args: ['list'],
    code: 0,
    stderr: /skipped 7\.json: status: Invalid enum value/,
  },
  {
    name: 'a string where blocks should be an array',
    setup: plant('7.json', valid('7', { blocks: '2' })),
    args: ['list'],
    code: 0,
    stderr: /skipped 7\.json: blocks: Expected array, received string\n/,
  },
  {
    name: 'a number inside blockedBy',
    setup: plant('7.json', valid('7', { blockedBy: [2] })),
    args: ['list'],
    code: 0,
    stderr: /skipped 7\.json: blockedBy\.0: Expected string, received number\n/,
  },
  {
    name: 'owner: null (invalid, as for agents): get',
    setup: plant('7.json', valid('7', { owner: null })),
    args: ['get', '7'],
    code: 1,
    stderr: /^error: task #7 is unreadable: 7\.json: owner: Expected string, received null\n$/,
  },
  {
    name: 'metadata that is an array',
    setup: plant('7.json', valid('7', { metadata: [1] })),
    args: ['list'],
    code: 0,
    stderr: /skipped 7\.json: metadata: Expected object, received array\n/,
  },
  {
    name: 'description missing',
    setup: plant('7.json', JSON.stringify({ id: '7', subject: 's', status: 'pending', blocks: [], blockedBy: [] })),
    args: ['list'],
    code: 0,
    stderr: /skipped 7\.json: description: Required\n/,
  },
  {
    name: 'id missing',
    setup: plant('7.json', JSON.stringify({ subject: 's', description: '', status: 'pending', blocks: [], blockedBy: [] })),
    args: ['list'],
    code: 0,
    stderr: /skipped 7\.json: id: Required\n/,
  },
  {
    name: 'a UTF-8 byte order mark',
    setup: plant('7.json', `\ufeff${valid('7')}`),
    args: ['list'],
    code: 0,
    stderr: /skipped 7\.json: not valid JSON/,
  },
  // --- names
  {
    name: 'a non-numeric file name is shown as agents show it',
    setup: plant('abc.json', valid('abc')),
    args: ['list'],
    code: 0,
    stdout: /^abc\tpending\t-\t-\ttask abc$/m,
  },
  {
    name: 'a non-numeric id on the command line',
    setup: plant('abc.json', valid('abc')),
    args: ['get', 'abc'],
    code: 2,
    stderr: /^error: invalid task id "abc": expected a positive number like 4\n$/,
  },
  {
    name: 'a file name with escape sequences',
    setup: plant('\u001b]0;pwned\u0007\u001b[2J.json', '{'),
    args: ['list'],
    code: 0,
    stderr: /^warning: skipped \]0;pwned\[2J\.json: not valid JSON/,
  },
  // --- size
  {
    name: 'a 100 KB description (past the quick read) is read in full',
    setup: plant('7.json', valid('7', { description: 'd'.repeat(100 * 1024) })),
    args: ['get', '7', '--json'],
    code: 0,
    stdout: /"description": "d{102400}",/,
  },
  {
    name: 'a task exactly the size of the quick-read buffer is read in full',
    setup: plant('7.json', exactly(64 * 1024)),
    args: ['get', '7', '--json'],
    code: 0,
    stdout: /"description": "d+",/,
  },
  {
    name: 'a 10 MB subject: list skips it with a message',
    setup: plant('7.json', valid('7', { subject: 'x'.repeat(10 * 1024 * 1024) })),
    args: ['list'],
    code: 0,
    stderr: /warning: skipped 7\.json: file is \d+ bytes, over the 8388608-byte limit\n/,
  },
  {
    name: 'a 10 MB subject: get',
    setup: plant('7.json', valid('7', { subject: 'x'.repeat(10 * 1024 * 1024) })),
    args: ['get', '7'],
    code: 1,
    stderr: /^error: task #7 is unreadable: 7\.json: file is \d+ bytes, over the 8388608-byte limit\n$/,
  },
  {
    name: 'a 10 MB subject: update refused',
    setup: plant('7.json', valid('7', { subject: 'x'.repeat(10 * 1024 * 1024) })),
    args: ['update', '7', '--status', 'completed'],
    code: 1,
    stderr: /over the 8388608-byte limit/,
  },
  {
    name: 'metadata nested 100,000 deep: list --json still works',
    setup: plant(
      '7.json',
      `{"id":"7","subject":"s","description":"","status":"pending","blocks":[],"blockedBy":[],"metadata":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    ),
    args: ['list', '--json'],
    code: 0,
    stdout: /^\[\n {2}\{\n {4}"id": "1"/,
    stderr: /skipped 7\.json: nested deeper than 100 levels","file":"7\.json".*\}\}\n$/,
  },
  // --- text that would drive the terminal
  {
    name: 'escape sequences in subject, owner and activeForm: list',
    setup: plant(
      '7.json',
      valid('7', {
        subject: 'evil\u001b[2J\u001b]52;c;cGF5bG9hZA==\u0007',
        owner: 'o\u001b[31mwner',
        status: 'in_progress',
        activeForm: 'x\u009b2J',
      }),
    ),
    args: ['list'],
    code: 0,
    stdout: /^7\tin_progress\to\[31mwner\t-\tevil\[2J\]52;c;cGF5bG9hZA==$/m,
  },
  {
    name: 'escape sequences in every field: get',
    setup: plant(
      '7.json',
      valid('7', { subject: 's\u001b[2J', description: 'line1\r\u001b[1Aline2', owner: '\u0007o', metadata: { 'k\u001b': 'v\u009b' } }),
    ),
    args: ['get', '7'],
    code: 0,
    stdout: /^#7 s\[2J\n/,
  },
  {
    name: 'C1 controls and bidi overrides are escaped in --json',
    setup: plant('7.json', valid('7', { subject: 'a\u009b2Jb\u202egnp.exe' })),
    args: ['get', '7', '--json'],
    code: 0,
    stdout: /"subject": "a\\u009b2Jb\\u202egnp\.exe"/,
  },
  // --- things that are not regular files
  {
    name: 'a task file symlinked outside the list: list skips it',
    setup: ({ list, outside }) => fs.symlinkSync(outside, path.join(list, '7.json')),
    args: ['list'],
    code: 0,
    stderr: /warning: skipped 7\.json: is a symbolic link; task files must be regular files\n/,
  },
  {
    name: 'a task file symlinked outside the list: update refuses to write through it',
    setup: ({ list, outside }) => fs.symlinkSync(outside, path.join(list, '7.json')),
    args: ['update', '7', '--owner', 'me'],
    code: 1,
    stderr: /^error: 7\.json is not a regular file; refusing to touch it\n$/,
  },
  {
    name: 'a task file symlinked outside the list: delete refuses',
    setup: ({ list, outside }) => fs.symlinkSync(outside, path.join(list, '7.json')),
    args: ['delete', '7'],
    code: 1,
    stderr: /^error: 7\.json is not a regular file; refusing to touch it\n$/,
  },
  {
    name: 'a dangling symlink still holds its id: create takes the next',
    setup: ({ list }) => fs.symlinkSync('/nonexistent/x', path.join(list, '7.json')),
    args: ['create', 'next'],
    code: 0,
    stdout: '8\n',
    changes: [`${L}/8.json`],
  },
  {
    name: 'a directory named 7.json',
    setup: ({ list }) => fs.mkdirSync(path.join(list, '7.json')),
    args: ['list'],
    code: 0,
    stderr: /warning: skipped 7\.json: is a directory, not a file\n/,
  },
  {
    name: 'a FIFO named 7.json does not hang list',
    setup: ({ list }) => execFileSync('mkfifo', [path.join(list, '7.json')]),
    args: ['list'],
    code: 0,
    stderr: /warning: skipped 7\.json: is not a regular file \(a FIFO, socket or device\)\n/,
  },
  {
    name: 'a corrupt file and a FIFO do not stop watch',
    setup: ({ list }) => {
      fs.writeFileSync(path.join(list, '7.json'), '{"id":');
      execFileSync('mkfifo', [path.join(list, '8.json')]);
    },
    args: ['-l', 'refactor-auth', 'watch', '--json', '--until', 'all-completed', '--timeout', '2s'],
    code: 124,
    dataOnFailure: true,
    stdout: /^\{"event":"snapshot",.*"tasks":\[\{"id":"1".*\n\{"event":"end",.*"reason":"timeout"/,
  },
  {
    name: 'a FIFO as the high-water mark does not hang create',
    setup: ({ list }) => {
      fs.rmSync(path.join(list, '.highwatermark'));
      execFileSync('mkfifo', [path.join(list, '.highwatermark')]);
    },
    args: ['create', 'next'],
    code: 0,
    stdout: '6\n',
    changes: [`${L}/6.json`],
  },
  {
    name: 'a FIFO as a team config does not hang lists',
    setup: ({ config }) => {
      fs.mkdirSync(path.join(config, 'teams', 'refactor-auth'), { recursive: true });
      execFileSync('mkfifo', [path.join(config, 'teams', 'refactor-auth', 'config.json')]);
    },
    args: ['lists'],
    code: 0,
    stdout: /^refactor-auth\t4\t/,
    stderr: /warning: skipped team config .*config\.json: config\.json is not a regular file\n$/,
  },
  {
    name: 'settings.json as a link to /dev/zero does not hang or fill memory on create',
    setup: ({ config }) => fs.symlinkSync('/dev/zero', path.join(config, 'settings.json')),
    args: ['create', 'next'],
    code: 0,
    stdout: '6\n',
    stderr: /ignoring .*settings\.json: settings\.json is not a regular file/,
    changes: [`${L}/6.json`],
  },
  {
    name: 'the high-water mark symlinked to /dev/zero: delete refuses, deletes nothing',
    setup: ({ list }) => {
      fs.rmSync(path.join(list, '.highwatermark'));
      fs.symlinkSync('/dev/zero', path.join(list, '.highwatermark'));
    },
    args: ['delete', '5'],
    code: 1,
    stderr: /^error: \.highwatermark is a symbolic link; refusing to write through it\n$/,
  },
  {
    name: 'the list lock target symlinked elsewhere: create refuses',
    setup: ({ list, outside }) => {
      fs.rmSync(path.join(list, '.lock'));
      fs.symlinkSync(outside, path.join(list, '.lock'));
    },
    args: ['create', 'x'],
    code: 1,
    stderr: /^error: \.lock in .* is a symbolic link; refusing to lock through it\n$/,
  },
  {
    name: 'a looping link at a task lock (1.json.lock): update refuses',
    setup: ({ list }) => fs.symlinkSync(path.join(list, '1.json.lock'), path.join(list, '1.json.lock')),
    args: ['update', '1', '--owner', 'me'],
    code: 1,
    stderr: /^error: 1\.json\.lock in .* is a symbolic link; refusing to lock through it\n$/,
  },
  {
    name: 'a looping link at a task lock (5.json.lock): release refuses',
    setup: ({ list }) => {
      fs.writeFileSync(path.join(list, '5.json'), valid('5', { owner: 'researcher', status: 'in_progress' }));
      fs.symlinkSync(path.join(list, '5.json.lock'), path.join(list, '5.json.lock'));
    },
    args: ['release', '5'],
    code: 1,
    stderr: /^error: 5\.json\.lock in .* is a symbolic link; refusing to lock through it\n$/,
  },
  {
    name: 'a looping link at a task lock (5.json.lock): claim refuses',
    setup: ({ list }) => fs.symlinkSync(path.join(list, '5.json.lock'), path.join(list, '5.json.lock')),
    args: ['claim', '5', '--as', 'me'],
    code: 1,
    stderr: /^error: 5\.json\.lock in .* is a symbolic link; refusing to lock through it\n$/,
  },
  {
    name: 'a task lock (1.json.lock) linked to a folder elsewhere: update refuses',
    setup: ({ config, list }) => {
      fs.mkdirSync(path.join(config, 'elsewhere'));
      fs.symlinkSync(path.join(config, 'elsewhere'), path.join(list, '1.json.lock'));
    },
    args: ['update', '1', '--owner', 'me'],
    code: 1,
    stderr: /^error: 1\.json\.lock in .* is a symbolic link; refusing to lock through it\n$/,
  },
  {
    name: 'an unreadable file (mode 000)',
    setup: ({ list }) => {
      fs.writeFileSync(path.join(list, '7.json'), valid('7'));
      fs.chmodSync(path.join(list, '7.json'), 0);
    },
    args: ['list'],
    code: 0,
    stderr: /warning: skipped 7\.json: permission denied\n/,
    skip: isRoot ? 'running as root: mode 000 does not stop root from reading' : undefined,
  },
  // --- a file where a folder should be
  {
    name: 'a file where the list folder should be: list',
    setup: ({ config }) => fs.writeFileSync(path.join(config, 'tasks', 'flat'), 'x'),
    args: ['-l', 'flat', 'list'],
    code: 3,
    stderr: /^error: .*tasks\/flat is not a folder\n$/,
  },
  {
    name: 'a file where the list folder should be: create',
    setup: ({ config }) => fs.writeFileSync(path.join(config, 'tasks', 'flat'), 'x'),
    args: ['-l', 'flat', 'create', 'x'],
    code: 3,
    stderr: /^error: .*tasks\/flat is not a folder\n$/,
  },
  // Every command on one task of it says what `list` says of the path (no list folder, exit 3), not that the task is missing.
  ...[
    ['get', '1'],
    ['update', '1', '--subject', 'x'],
    ['delete', '1', '-y'],
    ['claim', '1', '--as', 'me'],
    ['claim', '1', '--as', 'me', '--busy-check'],
    ['start', '1'],
    ['done', '1'],
    ['block', '1', '--by', '2'],
    ['release', '1'],
  ].map(
    (args): Case => ({
      name: `a file where the list folder should be: ${args.join(' ')}`,
      setup: ({ config }) => fs.writeFileSync(path.join(config, 'tasks', 'flat'), 'x'),
      args: ['-l', 'flat', ...args],
      code: 3,
      stderr: /^error: .*tasks\/flat is not a folder\n$/,
    }),
  ),
  // Links that loop where the list folder should be: every command on one task says what
  // `list` says (it cannot be read, exit 1), not that the task is missing (exit 3) or that
  // its file is a link. Nothing is written.
  ...[
    ['list'],
    ['get', '1'],
    ['update', '1', '--subject', 'x'],
    ['delete', '1', '-y'],
    ['claim', '1', '--as', 'me'],
    ['claim', '1', '--as', 'me', '--busy-check'],
    ['start', '1'],
    ['done', '1'],
    ['block', '1', '--by', '2'],
    ['unblock', '1'],
    ['release', '1'],
  ].map(
    (args): Case => ({
      name: `links that loop where the list folder should be: ${args.join(' ')}`,
      setup: ({ config }) => {
        fs.symlinkSync('loop-b', path.join(config, 'tasks', 'loop-a'));
        fs.symlinkSync('loop-a', path.join(config, 'tasks', 'loop-b'));
      },
      args: ['-l', 'loop-a', ...args],
      code: 1,
      stderr: /^error: list folder .*tasks\/loop-a is a symbolic link loop\n$/,
    }),
  ),
  // A symbolic link to nothing in the list's place: no list folder, as list says (exit 3),
  // naming where it leads, for a change of one of its tasks too; create names the link, not a file.
  ...[
    ['list'],
    ['get', '1'],
    ['update', '1', '--subject', 'x'],
    ['delete', '1', '-y'],
    ['claim', '1', '--as', 'me'],
    ['claim', '1', '--as', 'me', '--busy-check'],
    ['done', '1'],
    ['release', '1'],
  ].map(
    (args): Case => ({
      name: `a link to nothing where the list folder should be: ${args.join(' ')}`,
      setup: ({ config }) => fs.symlinkSync(path.join(config, 'nowhere'), path.join(config, 'tasks', 'dangling')),
      args: ['-l', 'dangling', ...args],
      code: 3,
      stderr: /^error: list folder .*tasks\/dangling is a symbolic link to .*\/nowhere, which does not exist\n$/,
    }),
  ),
  {
    name: 'a link to nothing where the list folder should be: create',
    setup: ({ config }) => fs.symlinkSync(path.join(config, 'nowhere'), path.join(config, 'tasks', 'dangling')),
    args: ['-l', 'dangling', 'create', 'x'],
    code: 2,
    stderr: /^error: cannot create the list folder .*tasks\/dangling: it is a symbolic link to .*\/nowhere, which does not exist\n$/,
  },
  // A file where tasks/ should be: no list can be read or made. Every command says so
  // (exit 3) rather than "no lists yet" (exit 0), which a CI gate would take for nothing to do.
  ...[
    ['-l', 'new', 'create', 'x'],
    ['lists'],
    ['lists', '--json'],
    ['-l', 'a', 'list'],
    ['-l', 'a', 'get', '1'],
    ['check'],
    ['check', '--all'],
    ['doctor'],
    ['log', '--all'],
    ['cost', '--all'],
    ['watch', '--stream', '-', '--until', 'all-completed'],
    // Refused before the agent starts: it would make nothing here.
    ['-l', 'a', 'run', '--', 'mkdir', 'agent-ran'],
  ].map(
    (args): Case => ({
      name: `a file where tasks/ should be: ${args.join(' ')}`,
      setup: ({ config }) => {
        fs.rmSync(path.join(config, 'tasks'), { recursive: true });
        fs.writeFileSync(path.join(config, 'tasks'), 'x');
      },
      args,
      code: 3,
      stderr: args.includes('--json')
        ? /^\{"error":\{"code":"not_found","message":".*\/tasks is not a folder, so there are no task lists/
        : /^error: .*\/tasks is not a folder, so there are no task lists: Claude Code keeps them in that folder\n$/,
    }),
  ),
  {
    name: 'use given -l: the list is its argument, not the global option (nothing bound)',
    args: ['-l', 'demo', 'use'],
    code: 2,
    stderr: /^error: use takes the list to bind as its argument \(tasks use <list>\), not -l or --session\n$/,
  },
  // --- reaching outside
  {
    name: 'traversal in a list id stays under tasks/ (read)',
    args: ['-l', '../../etc', 'list'],
    code: 3,
    stderr:
      /^error: list folder .*\/tasks\/------etc does not exist \(a list id keeps letters, digits, - and _, as Claude Code's does: "..\/..\/etc" is "------etc"\)\n$/,
  },
  {
    name: 'traversal in a list id stays under tasks/ (write)',
    args: ['-l', '../../escape', 'create', 'x'],
    code: 0,
    stdout: '1\n',
    changes: ['tasks/------escape/'],
  },
  {
    name: 'an absolute path as a list id',
    args: ['-l', '/tmp/abs', 'list'],
    code: 3,
    stderr:
      /^error: list folder .*\/tasks\/-tmp-abs does not exist \(a list id keeps letters, digits, - and _, as Claude Code's does: "\/tmp\/abs" is "-tmp-abs"\)\n$/,
  },
  { name: 'traversal as a task id', args: ['get', '../../outside'], code: 2, stderr: /^error: invalid task id/ },
  {
    name: 'an absolute path as a task id',
    args: ['update', '/etc/passwd', '--owner', 'x'],
    code: 2,
    stderr: /^error: invalid task id "\/etc\/passwd"/,
  },
  { name: 'an id too long to be a file name', args: ['get', '9'.repeat(251)], code: 2, stderr: /^error: invalid task id/ },
  {
    name: 'an id past 2^53 is still an id (agents can write such files)',
    args: ['get', '99999999999999999999'],
    code: 3,
    stderr: /^error: task #99999999999999999999 not found\n$/,
  },
  {
    name: 'a path as an id inside a file: delete cleans references, never writes there',
    setup: ({ config, list }) => {
      fs.writeFileSync(path.join(list, '3.json'), valid('../../outside', { blocks: ['5'] }));
      fs.writeFileSync(path.join(config, 'outside.json'), valid('9', { blocks: ['5'] }));
    },
    args: ['delete', '5'],
    code: 0,
    stdout: 'Deleted task #5: Write changelog (removed from #3)\n',
    changes: [`${L}/3.json`, `${L}/5.json`, `${L}/.highwatermark`],
  },
  {
    name: 'a path in blockedBy: update still works, nothing written outside',
    setup: plant('7.json', valid('7', { blockedBy: ['../../../outside'] })),
    args: ['update', '7', '--owner', 'me'],
    code: 0,
    stdout: 'Updated task #7 owner\n',
    changes: [`${L}/7.json`],
  },
];

/** A link to itself at `rel` (under the config folder): whatever follows it fails with ELOOP. */
function loop(config: string, rel: string) {
  const p = path.join(config, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.symlinkSync(p, p);
}

/** Every entry under `root`, with a digest of its bytes (or what it is). */
function snapshotTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name);
      const rel = path.relative(root, p);
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) out.set(rel, `link:${fs.readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(rel, '<dir>');
        walk(p);
      } else if (st.isFile()) {
        out.set(rel, st.mode & 0o444 ? crypto.createHash('sha1').update(fs.readFileSync(p)).digest('hex') : `mode:${st.mode}`);
      } else out.set(rel, '<other>');
    }
  };
  walk(root);
  return out;
}

function allowed(rel: string, changes: readonly string[]): boolean {
  return changes.some((c) => (c.endsWith('/') ? rel.startsWith(c) || `${rel}/` === c : rel === c));
}

describe('hostile input catalogue', () => {
  it('has at least 30 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  for (const c of cases) {
    it.skipIf(c.skip !== undefined)(`${c.name}: exit ${c.code}${c.skip ? ` (skipped: ${c.skip})` : ''}`, () => {
      const { config, list } = fixtureConfig();
      // The sandbox: config folder and a sibling holding a task-shaped file.
      const sandbox = path.dirname(config);
      const outside = path.join(config, '..', `${path.basename(config)}-outside.json`);
      fs.writeFileSync(outside, valid('9'));
      c.setup?.({ config, list, outside });
      const before = snapshotTree(config);
      const outsideBefore = fs.readFileSync(outside, 'utf8');
      const r = runInProcessSync(config, c.args);
      expect(r.code, r.stderr).toBe(c.code);
      if (c.stderr) expect(r.stderr).toMatch(c.stderr);
      if (c.code !== 0 && !c.dataOnFailure) {
        expect(r.stdout).toBe('');
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      }
      if (typeof c.stdout === 'string') expect(r.stdout).toBe(c.stdout);
      else if (c.stdout) expect(r.stdout).toMatch(c.stdout);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).not.toMatch(CONTROL);
      expect(r.stderr).not.toMatch(CONTROL);
      const after = snapshotTree(config);
      const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
      // The journal of tasks' own changes is written beside the tasks on every change, and its trace in tasks/.
      expect(
        changed.filter((k) => !allowed(k, c.changes ?? []) && !k.endsWith('/.tasks-journal.jsonl') && k !== 'tasks/.tasks-writes.jsonl'),
      ).toEqual([]);
      // And each change the case expects did happen.
      for (const want of c.changes ?? [])
        expect(
          changed.some((k) => allowed(k, [want])),
          want,
        ).toBe(true);
      expect(fs.readFileSync(outside, 'utf8')).toBe(outsideBefore);
      expect(fs.readdirSync(sandbox).filter((n) => n.startsWith(path.basename(config)))).toEqual([
        path.basename(config),
        path.basename(outside),
      ]);
    });
  }
});

describe('a symlinked list folder', () => {
  it('is followed, as agents follow it: files and locks land in the real folder, lists shows it', () => {
    const { config } = fixtureConfig();
    const real = path.join(config, 'elsewhere', 'real-list');
    fs.mkdirSync(real, { recursive: true });
    fs.symlinkSync(real, path.join(config, 'tasks', 'linked'));
    const created = runInProcessSync(config, ['-l', 'linked', 'create', 'through the link', '--json']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: '1', subject: 'through the link' });
    expect(fs.readdirSync(real).sort()).toEqual(['.lock', '.tasks-journal.jsonl', '1.json']);
    expect(runInProcessSync(config, ['-l', 'linked', 'update', '1', '--owner', 'me']).code).toBe(0);
    expect(fs.readdirSync(real).sort()).toEqual(['.lock', '.tasks-journal.jsonl', '1.json']); // no lock left, none elsewhere
    const lists = runInProcessSync(config, ['lists', '--json']);
    expect(
      (JSON.parse(lists.stdout) as Array<{ id: string; counts: { total: number } }>).map((l) => [l.id, l.counts.total]),
    ).toContainEqual(['linked', 1]);
    expect(runInProcessSync(config, ['-l', 'linked', 'check']).code).toBe(0);
  });
});

describe('links that loop (a stat fails with ELOOP): one bad entry never fails a read of many', () => {
  // Through the binary: lists keeps its answer in the persistent cache, which stamps every file first.
  for (const rel of [
    'sessions/126.json',
    'projects/-home-u-proj/2d483082-5eaa-461a-bfdf-3e104fbfeff7.jsonl',
    `${L}/7.json`,
    'projects/looped',
    'teams',
  ])
    it(`lists with a looping link at ${rel}: exit 0, the list shown`, () => {
      const { config } = fixtureConfig();
      loop(config, rel);
      const r = run(config, ['lists', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as Array<{ id: string }>).map((l) => l.id)).toContain('refactor-auth');
      expect(r.stderr).not.toMatch(/ELOOP|\n\s+at /);
    });
});

describe('entries of projects/ that are no folder', () => {
  it('a stray file and a link loop in projects/ hold no transcript: lists, list, get and watch answer as without them', () => {
    const config = tempConfig();
    const sessionId = '11111111-2222-4333-8444-555555555555';
    const cwd = path.join(config, 'home', 'proj');
    fs.mkdirSync(cwd, { recursive: true });
    writeTranscript(config, { sessionId, cwd, prompt: 'hi', todos: false });
    writeTask(path.join(config, 'tasks', sessionId), {
      id: '1',
      subject: 'Mine',
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
    });
    const before = runInProcessSync(config, ['lists', '--json']);
    expect(before.code, before.stderr).toBe(0);
    fs.writeFileSync(path.join(config, 'projects', 'README'), 'hi');
    fs.symlinkSync('loop', path.join(config, 'projects', 'loop'));
    for (const args of [
      ['lists', '--json'],
      ['-l', sessionId, 'list'],
      ['-l', sessionId, 'get', '1'],
      ['--session', sessionId, 'list'],
    ]) {
      const r = run(config, args, { cwd });
      expect({ args, code: r.code }, r.stderr).toEqual({ args, code: 0 });
      expect(r.stderr).not.toMatch(/error|ENOTDIR|ELOOP/);
    }
    expect(run(config, ['lists', '--json']).stdout).toBe(before.stdout);
    const watch = run(config, ['-l', sessionId, 'watch', '--json', '--timeout', '1s']);
    expect({ code: watch.code, stderr: watch.stderr }).toEqual({ code: 0, stderr: '' });
  });
});
