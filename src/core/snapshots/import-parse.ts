import { TasksError } from '../base/errors.js';
import { inexactIntegerAt, notKeptExactly } from '../base/finite-json.js';
import type { ImportFormatChoice, Snapshot } from './import-snapshot.js';
import { snapshotFromStream, streamKind } from './import-stream.js';
import { looksLikeTask, snapshotFromTasks } from './import-tasks-json.js';
import { count, isObject, keyList, looksLikeTodos, snapshotFromTodoJson, todosToItems } from './import-todowrite.js';
import type { JsonLine } from './stream-events.js';
import { kindOf, parseTodoItems } from './todo-schema.js';

/**
 * Input text -> a normalized snapshot. Pure: the caller reads the file or stdin.
 * Everything is validated here, before the list is looked at, so that a bad input
 * is refused (TasksError 'usage', one line naming the line or item) with nothing written.
 *
 * One JSON document: a TodoWrite snapshot (array of todos, {"todos": [...]},
 * {"newTodos": [...]}) or tasks (an array, or one task). Otherwise JSON Lines: a
 * stream-json output or transcript, tasks one per line (`export --format jsonl`), or todos
 * one per line.
 */
export function parseImportText(text: string, choice: ImportFormatChoice): Snapshot {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') throw new TasksError('usage', 'the input is empty');
  const whole = tryJson(body);
  if (whole.ok) {
    const snapshot = fromDocument(whole.value, choice);
    if (snapshot.format === 'tasks') refuseInexact(body, Array.isArray(whole.value) ? (i) => `item ${i + 1}` : undefined);
    return snapshot;
  }
  const lines = jsonLines(body, whole.error);
  const snapshot = fromLines(lines, choice);
  if (snapshot.format === 'tasks') for (const [i, line] of body.split('\n').entries()) refuseInexact(line, undefined, `line ${i + 1}`);
  return snapshot;
}

/**
 * Tasks holding a whole number a JavaScript number cannot keep exactly (`"n":
 * 12345678901234567890` parses as 12345678901234567000): imported, it would be written as
 * another number without a word, as `--meta n:=...` is refused for. Looked for in the text,
 * since the parsed value has lost it. Only tasks are looked at: todos bring no numbers into
 * a task, and a stream's Task tool inputs are what the agent itself was given, rounded alike.
 * `item`: the text is an array of tasks, named by index; else one task, named `one`.
 */
function refuseInexact(text: string, item?: (i: number) => string, one = 'the task'): void {
  const inexact = inexactIntegerAt(text);
  if (inexact === undefined) return;
  const [first, second] = inexact.path;
  const where = item && typeof first === 'number' ? [item(first), second] : [one, first];
  throw new TasksError('usage', `${where.filter((w) => w !== undefined).join(': ')}: ${notKeptExactly(inexact)}`);
}

function fromDocument(value: unknown, choice: ImportFormatChoice): Snapshot {
  // One todo alone (a one-item array through `jq -c '.[]'`): read as todos one a line.
  if ((choice === 'auto' || choice === 'todowrite') && isObject(value) && looksLikeTodoLine(value)) return todoLines([{ line: 1, value }]);
  switch (choice) {
    case 'todowrite':
      return snapshotFromTodoJson(value);
    case 'tasks':
      return tasksFromDocument(value);
    case 'transcript':
    case 'stream-json':
      if (!isObject(value)) throw new TasksError('usage', `expected JSON Lines (one JSON object a line), got ${kindOf(value)}`);
      return snapshotFromStream([{ line: 1, value }], choice);
    case 'auto':
      break;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return snapshotFromTodoJson(value);
    if (value.every(looksLikeTask)) return tasksFromDocument(value);
    if (looksLikeTodos(value)) return snapshotFromTodoJson(value);
    const i = value.findIndex((v) => !looksLikeTask(v) && !(isObject(v) && 'content' in v));
    if (i < 0) {
      // Each item is one or the other: the array mixes them, which no one format holds.
      const task = value.findIndex(looksLikeTask);
      const todo = value.findIndex((v) => !looksLikeTask(v));
      throw new TasksError(
        'usage',
        `the array mixes todos and tasks (item ${todo + 1} is a todo, item ${task + 1} a task): import one kind at a time`,
      );
    }
    const odd = value[i];
    throw new TasksError(
      'usage',
      `item ${i + 1}: neither a todo {content, status, activeForm} nor a task {id, subject, ...}: got ${kindOf(odd)}${isObject(odd) ? ` with keys ${keyList(odd)}` : ''}`,
    );
  }
  if (looksLikeTodos(value)) return snapshotFromTodoJson(value);
  if (looksLikeTask(value)) return tasksFromDocument(value);
  if (isObject(value) && typeof value.type === 'string') return snapshotFromStream([{ line: 1, value }], 'stream-json');
  throw new TasksError(
    'usage',
    `unrecognised input: ${kindOf(value)}${isObject(value) ? ` with keys ${keyList(value)}` : ''}; expected a TodoWrite snapshot, tasks, or Claude Code JSON Lines`,
  );
}

function tasksFromDocument(value: unknown): Snapshot {
  if (Array.isArray(value)) return snapshotFromTasks(value, (i) => `item ${i + 1}`, `${count(value.length, 'task')} (a JSON array)`);
  if (isObject(value)) return snapshotFromTasks([value], () => 'the task', '1 task (one JSON object)');
  throw new TasksError('usage', `expected tasks (a JSON array of task objects), got ${kindOf(value)}`);
}

function fromLines(lines: JsonLine[], choice: ImportFormatChoice): Snapshot {
  const allTasks = lines.every(({ value }) => looksLikeTask(value));
  if ((choice === 'auto' || choice === 'todowrite') && !allTasks && lines.every(({ value }) => looksLikeTodoLine(value)))
    return todoLines(lines);
  if (choice === 'todowrite') {
    throw new TasksError('usage', 'expected one JSON document (a TodoWrite snapshot), but the input is JSON Lines; try --format auto');
  }
  if (choice === 'tasks' || (choice === 'auto' && allTasks)) {
    const byIndex = lines.map((l) => l.line);
    return snapshotFromTasks(
      lines.map((l) => l.value),
      (i) => `line ${byIndex[i] ?? i + 1}`,
      `${count(lines.length, 'task')} (JSON Lines)`,
    );
  }
  if (choice === 'auto') refuseMixedLines(lines);
  return snapshotFromStream(lines, choice === 'auto' ? streamKind(lines) : choice);
}

/** Todos one a line (as `jq -c '.[]'` prints a todos array): each named by its line. */
function todoLines(lines: readonly JsonLine[]): Snapshot {
  const items = parseTodoItems(
    lines.map((l) => l.value),
    '',
    (i) => `line ${lines[i]?.line ?? i + 1}`,
  );
  return { format: 'todowrite', found: `todos, one a line (${count(items.length)})`, items: todosToItems(items), warnings: [] };
}

/**
 * A TodoWrite item on a line of its own: it has `content`; a Claude Code entry, which may
 * too, has a `type`, and a task (which may keep a `content` key of its own: unknown keys
 * are kept and exported) is a task.
 */
function looksLikeTodoLine(value: Record<string, unknown>): boolean {
  return 'content' in value && typeof value.type !== 'string' && !looksLikeTask(value);
}

/** Lines that are each a todo or a task, with both kinds there: no one format holds them, and they are no stream either. */
function refuseMixedLines(lines: readonly JsonLine[]): void {
  const known = (value: Record<string, unknown>) => looksLikeTask(value) || looksLikeTodoLine(value);
  if (!lines.every(({ value }) => known(value))) {
    // No Claude Code entry (none has a "type"), yet todos or tasks: the line that is neither is the fault.
    const odd = lines.find(({ value }) => !known(value));
    if (odd && lines.some(({ value }) => known(value)) && !lines.some(({ value }) => typeof value.type === 'string'))
      throw new TasksError(
        'usage',
        `line ${odd.line}: neither a todo {content, status, activeForm} nor a task {id, subject, ...}: got an object with keys ${keyList(odd.value)}`,
      );
    return;
  }
  const task = lines.find(({ value }) => looksLikeTask(value));
  const todo = lines.find(({ value }) => !looksLikeTask(value));
  if (!task || !todo) return;
  throw new TasksError(
    'usage',
    `the lines mix todos and tasks (line ${todo.line} is a todo, line ${task.line} a task): import one kind at a time`,
  );
}

/**
 * Split JSON Lines. When even the first line is not JSON, the input was meant as one
 * document: report that document's own parse error, with its line and column.
 */
function jsonLines(body: string, wholeError: string): JsonLine[] {
  const raw = body.split('\n');
  const lines: JsonLine[] = [];
  let last = raw.length;
  while (last > 0 && (raw[last - 1] ?? '').trim() === '') last--;
  for (let i = 0; i < last; i++) {
    const text = (raw[i] ?? '').trim();
    if (text === '') continue;
    const parsed = tryJson(text);
    if (!parsed.ok) {
      if (lines.length === 0) throw new TasksError('usage', `not valid JSON: ${withLineColumn(wholeError, body)}`);
      const cut = i === last - 1 ? '; the input looks cut short' : '';
      throw new TasksError('usage', `line ${i + 1}: not valid JSON (${parsed.error})${cut}`);
    }
    if (!isObject(parsed.value)) throw new TasksError('usage', `line ${i + 1}: expected a JSON object, got ${kindOf(parsed.value)}`);
    lines.push({ line: i + 1, value: parsed.value });
  }
  return lines;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** V8 says "at position 123"; people want a line and a column. */
function withLineColumn(message: string, text: string): string {
  const clean = message.replace(/\s*\(line \d+ column \d+\)/, '');
  const position = /at position (\d+)/.exec(clean);
  if (!position) return clean;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${clean.replace(/ in JSON at position \d+/, '')} at line ${line}, column ${column}`;
}

/** parseImportText, with the input named in its one line of error: "session.jsonl: line 7: not valid JSON (...)". */
export function parseNamedImport(text: string, choice: ImportFormatChoice, name: string): Snapshot {
  try {
    return parseImportText(text, choice);
  } catch (err) {
    if (err instanceof TasksError) throw new TasksError(err.code, `${name}: ${err.message}`, { details: err.details });
    throw err;
  }
}
