import { Argument, Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { complete, DIRECTIVE, formatCompletion, type LineSources, type ValueSource } from '../../src/cli/completion/candidates.js';
import { specFromProgram } from '../../src/cli/completion/spec-from-program.js';
import { argumentValueKind, optionValueKind } from '../../src/cli/completion/value-kinds.js';
import type { TaskPeek } from '../../src/core/store/list-peek.js';

/**
 * The completion engine on a program of its own, with commands the way other commands
 * will be written: nothing in the engine knows them, only their definitions and names.
 */
function program(): Command {
  const root = new Command('tasks')
    .option('-l, --list <id>', 'the task list')
    .option('--config-dir <dir>', 'config folder')
    .option('--json', 'JSON output')
    .version('1.0.0', '-V, --version');
  root
    .command('claim')
    .description('claim a task')
    .argument('<id>', 'task id')
    .option('--as <agent>', 'claim for this agent')
    .option('--force', 'even if owned');
  root.command('block').description('make tasks wait').argument('<ids...>').requiredOption('--by <ids...>', 'the blockers');
  root.command('import').description('import todos').argument('[file]', 'a JSON file').option('--dry-run');
  root
    .command('export')
    .description('export tasks')
    .addOption(new Option('--format <format>', 'output format').choices(['json', 'todo', 'markdown']))
    .option('-o, --output <file>', 'write here')
    .option('--since [when]', 'changed since');
  root.command('watch').description('watch').option('--until <condition>', 'stop when').option('--if-status <status>', 'only when');
  const lists = root.command('lists').description('lists');
  lists.command('prune').description('remove old lists').argument('<list>').option('--keep <n>', 'how many');
  root.command('paint').addArgument(new Argument('<colour>').choices(['red', 'blue']));
  root.command('secret', { hidden: true });
  return root;
}

const TASKS: TaskPeek[] = [
  { id: '1', subject: 'Analyse', status: 'completed', owner: 'amy' },
  { id: '2', subject: 'Build', status: 'in_progress', owner: 'bob' },
  { id: '3', subject: 'Check\tthe\nbuild\u001b[31m', status: 'pending', owner: 'amy' },
  { id: '12', subject: 'Deploy', status: 'pending' },
];

/** A fake disk that records which list and config folder it was asked for. */
function source(seen: LineSources[] = []): (line: LineSources) => ValueSource {
  return (line) => {
    seen.push(line);
    return {
      tasks: (wanted) => TASKS.filter((t) => wanted(t.id)),
      lists: () => [
        { id: 'alpha', tasks: 3 },
        { id: 'beta', tasks: 1 },
      ],
    };
  };
}

const spec = specFromProgram(program());
const values = (words: string[], current: string, seen?: LineSources[]) =>
  complete(spec, words, current, source(seen)).candidates.map((c) => c.value);
const directive = (words: string[], current: string) => complete(spec, words, current, source()).directive;

describe('value kinds', () => {
  it('go by command and flag, by flag, then by placeholder', () => {
    expect(optionValueKind(['update'], '--add-blocks', '--add-blocks <ids...>')).toBe('task-id');
    expect(optionValueKind(['block'], '--by', '--by <ids...>')).toBe('task-id');
    expect(optionValueKind(['x'], '--whatever', '--whatever <ids...>')).toBe('task-id');
    expect(optionValueKind(['x'], '--list', '-l, --list <id>')).toBe('list'); // the flag wins over `<id>`
    expect(optionValueKind(['x'], '--output', '-o, --output <path>')).toBe('file');
    expect(optionValueKind(['x'], '--subject', '--subject <text>')).toBe('text');
    expect(argumentValueKind(['import'], 'file')).toBe('file');
    expect(argumentValueKind(['create'], 'subject')).toBe('text');
  });
});

describe('completion of a program it has never seen', () => {
  it('offers visible subcommands, not hidden ones', () => {
    expect(values([], '')).toEqual(['claim', 'block', 'import', 'export', 'watch', 'lists', 'paint', 'help']);
    expect(values(['lists'], '')).toEqual(['prune', 'help']);
  });

  it('offers task ids in id order, with descriptions made safe for one line', () => {
    const r = complete(spec, ['claim'], '', source());
    expect(r.candidates.map((c) => c.value)).toEqual(['1', '2', '3', '12']);
    expect(r.candidates[2]?.description).toBe('Check the build[31m (pending)');
    expect(r.directive).toBe(DIRECTIVE.noFiles | DIRECTIVE.keepOrder);
    expect(values(['claim'], '1')).toEqual(['1', '12']);
  });

  it('offers owners for --as, statuses for --if-status, choices in their order', () => {
    expect(values(['claim', '2', '--as'], '')).toEqual(['amy', 'bob']);
    expect(values(['watch', '--if-status'], '')).toEqual(['pending', 'in_progress', 'completed']);
    expect(values(['export', '--format'], '')).toEqual(['json', 'todo', 'markdown']);
    expect(values(['export', '--format'], 'm')).toEqual(['markdown']);
    expect(values(['paint'], '')).toEqual(['red', 'blue']);
    expect(values(['watch', '--until'], '')).toEqual(['all-completed', 'ready', 'empty', 'task:1:', 'task:2:', 'task:3:', 'task:12:']);
    expect(values(['watch', '--until'], 'task:1')).toEqual(['task:1:', 'task:12:']);
    expect(directive(['watch', '--until'], 'task:1')).toBe(DIRECTIVE.noFiles | DIRECTIVE.keepOrder | DIRECTIVE.noSpace);
    expect(values(['watch', '--until'], 'task:2:c')).toEqual(['task:2:completed']);
  });

  it('leaves file names to the shell where a file is expected', () => {
    expect(complete(spec, ['import'], '', source())).toEqual({ candidates: [], directive: 0 });
    expect(complete(spec, ['export', '--output'], 'out', source())).toEqual({ candidates: [], directive: 0 });
    expect(complete(spec, ['export', '--output=out'], '', source()).directive).toBe(DIRECTIVE.noFiles); // a finished word
    expect(directive(['export'], '--output=')).toBe(0);
    expect(directive(['--config-dir'], '')).toBe(DIRECTIVE.filterDirs);
  });

  it('takes every word after a variadic option until the next option', () => {
    expect(values(['block', '1', '--by', '2'], '')).toEqual(['3', '12']);
    // Back to <ids...>: no id on the line is offered again.
    expect(values(['block', '1', '--by', '2', '--json'], '')).toEqual(['3', '12']);
    expect(values(['block', '--by', '2,'], '')).toEqual(['1', '3', '12']);
    expect(values(['block', '--by'], '2,')).toEqual(['2,1', '2,3', '2,12']);
  });

  it('reads an optional value only when it does not look like an option', () => {
    expect(values(['export', '--since'], '')).toEqual([]);
    expect(values(['export', '--since'], '--f')).toEqual(['--format']);
  });

  it('stops reading options after --', () => {
    expect(values(['claim', '--'], '--')).toEqual([]);
    expect(values(['block', '--', '--by'], '')).toEqual(['1', '2', '3', '12']); // '--by' was an id
  });

  it('knows nested commands and their arguments', () => {
    expect(values(['lists', 'prune'], '')).toEqual(['alpha', 'beta']);
    expect(values(['lists', 'prune', 'alpha'], '--k')).toEqual(['--keep']);
    expect(values(['lists', 'prune', 'alpha'], '--l')).toEqual(['--list']); // the root's options apply below
  });

  it('offers options not yet given, short ones after a single dash', () => {
    expect(values(['claim', '4'], '-')).toEqual(['--as', '--force', '--help', '-h', '--list', '-l', '--config-dir', '--json']);
    expect(values(['claim', '4', '--force'], '--')).toEqual(['--as', '--help', '--list', '--config-dir', '--json']);
    expect(values([], '--')).toEqual(['--list', '--config-dir', '--json', '--version', '--help']);
  });

  it('hands the list and config folder typed on the line to the values', () => {
    const seen: LineSources[] = [];
    values(['-l', 'beta', '--config-dir=/x', 'claim'], '', seen);
    values(['claim', '-lalpha', '2', '--as'], '', seen);
    values(['claim', '4', '--as'], '', seen);
    expect(seen).toEqual([{ list: 'beta', configDir: '/x' }, { list: 'alpha' }, {}]);
  });

  it('asks the disk only for values that come from it', () => {
    const seen: LineSources[] = [];
    values([], '', seen);
    values(['claim'], '--', seen);
    values(['watch', '--if-status'], '', seen);
    expect(seen).toEqual([]);
  });
});

describe('the protocol output', () => {
  it('is value<TAB>description lines and a last :directive line', () => {
    expect(formatCompletion({ candidates: [{ value: 'a', description: 'first' }, { value: 'b' }], directive: 36 })).toBe(
      'a\tfirst\nb\n:36\n',
    );
    expect(formatCompletion({ candidates: [], directive: 1 })).toBe(':1\n');
  });
});
