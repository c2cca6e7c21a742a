/**
 * The command reference, docs/reference/: a page per command written from the commander
 * program itself (its usage, options, help text and examples, as `--help` has them), its
 * exit statuses from the one table of them (runtime/exit-codes.ts), a link to its JSON
 * output and schema, and the table of every error, warning, note and finding code from
 * core's own lists. `npm run docs` writes the pages; a test fails when a page on disk
 * differs from what the program makes now. The output is the same on every machine:
 * a fixed width, no dates, no paths of the machine it was made on.
 */
import type { Command, Help, Option } from 'commander';
import { buildProgram } from '../commands/program.js';
import { Context } from '../runtime/context.js';
import { IO } from '../runtime/io.js';
import { codesPage } from './codes-page.js';
import { exitRows } from './command-exits.js';
import { GENERATED, markdownCell, markdownText, slug } from './markdown.js';

/** One file of the reference, relative to docs/reference/. */
export interface ReferencePage {
  file: string;
  text: string;
}

/** What the reference links to beside it: the JSON document of each command and the schemas. */
export interface ReferenceInputs {
  /** docs/json-output.md, whose `### \`command ...\`` headings each command's page links to. */
  jsonOutput: string;
  /** The names of the files in docs/schemas/. */
  schemaFiles: readonly string[];
}

/** The width help is laid out at in the reference, whatever the terminal that runs `npm run docs`. */
export const HELP_WIDTH = 100;

export async function referencePages(inputs: ReferenceInputs): Promise<ReferencePage[]> {
  const program = await buildProgram(fixedContext());
  const commands = program.commands.filter((c) => !isHidden(c));
  for (const c of [program, ...commands]) c.configureHelp({ ...c.configureHelp(), helpWidth: HELP_WIDTH });
  const jsonAnchors = commandAnchors(inputs.jsonOutput);
  return [
    { file: 'README.md', text: indexPage(program, commands) },
    ...commands.map((c) => ({ file: `${c.name()}.md`, text: commandPage(c, jsonAnchors, inputs.schemaFiles) })),
    { file: 'codes.md', text: codesPage() },
  ];
}

/**
 * The program as a run builds it, in a context that holds nothing of this machine: help
 * reads no environment, but a default it printed would then be the same everywhere.
 */
function fixedContext(): Context {
  const nowhere = { isTTY: false, write: () => undefined };
  const stdin = { isTTY: false, stream: () => undefined as never };
  const io = new IO({ stdout: nowhere, stderr: nowhere, stdin }, {});
  return new Context(io, { env: {}, cwd: undefined, platform: 'linux', uid: undefined });
}

function isHidden(c: Command): boolean {
  return (c as Command & { _hidden?: boolean })._hidden === true;
}

function indexPage(program: Command, commands: readonly Command[]): string {
  const help = program.createHelp();
  const lines = [
    GENERATED,
    '',
    '# Command reference',
    '',
    `${markdownText(program.description())}.`,
    '',
    'Each page has what `tasks <command> --help` prints, laid out for reading: usage, options,',
    'details and examples, the exit statuses the command can end with, and where its `--json`',
    'output is described. The guides ([docs/guide/](../guide/)) explain how the commands work',
    'together; [codes.md](codes.md) lists every error, warning, note and finding code.',
    '',
    '## Commands',
    '',
    '| command | what it does |',
    '|---|---|',
    ...commands.map((c) => `| [\`${c.name()}\`](${c.name()}.md)${aliases(c)} | ${markdownCell(firstLine(c.description()))} |`),
    '',
    '## Global options',
    '',
    'Every command takes these, before or after its name.',
    '',
    ...optionTable(help, help.visibleOptions(program)),
    '',
    '## `tasks --help`',
    '',
    '```text',
    fullHelp(program).trimEnd(),
    '```',
    '',
  ];
  return lines.join('\n');
}

function commandPage(c: Command, jsonAnchors: ReadonlyMap<string, string>, schemaFiles: readonly string[]): string {
  const help = c.createHelp();
  const { details, examples } = splitAfterHelp(afterHelp(c));
  const name = c.name();
  const schema = `${name}.schema.json`;
  const anchor = jsonAnchors.get(name);
  const json: string[] = [];
  if (anchor !== undefined) json.push(`What \`--json\` prints: [json-output.md](../json-output.md#${anchor}).`);
  if (schemaFiles.includes(schema)) json.push(`Its JSON Schema: [${schema}](../schemas/${schema}).`);
  const lines = [
    GENERATED,
    '',
    `# tasks ${name}`,
    '',
    `${markdownText(sentence(c.description()))}`,
    '',
    ...(c.aliases().length > 0
      ? [
          `Also: ${c
            .aliases()
            .map((a) => `\`tasks ${a}\``)
            .join(', ')}.`,
          '',
        ]
      : []),
    '## Usage',
    '',
    '```text',
    `tasks ${name} ${c.usage()}`,
    '```',
    '',
    '## Options',
    '',
    ...optionTable(help, help.visibleOptions(c)),
    '',
    `And the [global options](README.md#global-options): ${globalOptionNames(c.parent)}.`,
    '',
  ];
  if (details !== '') lines.push('## Details', '', '```text', details, '```', '');
  if (examples !== '') lines.push('## Examples', '', '```text', examples, '```', '');
  if (json.length > 0) lines.push('## JSON output', '', json.join(' '), '');
  lines.push(
    '## Exit codes',
    '',
    '| code | meaning |',
    '|---|---|',
    ...exitRows(name).map((r) => `| ${r.status} | ${markdownCell(r.meaning)} |`),
    '',
    'Which case gives which status: [exit-codes.md](../exit-codes.md).',
    '',
  );
  return lines.join('\n');
}

/** The program's own options as a command page names them (`-l, --list`), all but help and version. */
function globalOptionNames(program: Command | null): string {
  return (program?.options ?? [])
    .filter((o) => o.long !== '--help' && o.long !== '--version')
    .map((o) => `\`${o.flags.replace(/ [<[].*$/, '')}\``)
    .join(', ');
}

function optionTable(help: Help, options: readonly Option[]): string[] {
  const rows = options
    .filter((o) => o.long !== '--help' && o.long !== '--version')
    .map((o) => `| \`${help.optionTerm(o)}\` | ${markdownCell(help.optionDescription(o))} |`);
  if (rows.length === 0) return ['None of its own.'];
  return ['| option | what it does |', '|---|---|', ...rows];
}

function aliases(c: Command): string {
  return c.aliases().length === 0
    ? ''
    : ` (${c
        .aliases()
        .map((a) => `\`${a}\``)
        .join(', ')})`;
}

/** A description as a sentence: a capital first, a full stop last. */
function sentence(text: string): string {
  const t = text.trim();
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.:!?]$/.test(t) ? '' : '.'}`;
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

/** Everything `--help` prints for this command, at the reference's width. */
function fullHelp(c: Command): string {
  let text = '';
  const out = c.configureOutput();
  c.configureOutput({ ...out, writeOut: (s) => (text += s), getOutHelpWidth: () => HELP_WIDTH });
  try {
    c.outputHelp();
  } finally {
    c.configureOutput(out);
  }
  return text;
}

/** The text a command adds after its generated help (`addHelpText('after', ...)`). */
function afterHelp(c: Command): string {
  const all = fullHelp(c);
  const own = c.helpInformation({ error: false });
  return (all.startsWith(own) ? all.slice(own.length) : '').replace(/^\n+/, '').trimEnd();
}

/** The help's closing text, apart from its `Examples:` block (indented lines after that heading). */
function splitAfterHelp(text: string): { details: string; examples: string } {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^Examples?:\s*$/.test(l));
  if (at < 0) return { details: text.trim(), examples: '' };
  let end = at + 1;
  while (end < lines.length && (lines[end]!.startsWith('  ') || lines[end] === '')) end++;
  const examples = lines
    .slice(at + 1, end)
    .map((l) => l.replace(/^ {2}/, ''))
    .join('\n')
    .trim();
  const details = [...lines.slice(0, at), ...lines.slice(end)].join('\n').trim();
  return { details, examples };
}

/**
 * json-output.md's heading anchor for each command: `### \`update <id>\`, \`start <id>\`` is
 * the section of update and of start.
 */
function commandAnchors(jsonOutput: string): Map<string, string> {
  const anchors = new Map<string, string>();
  for (const m of jsonOutput.matchAll(/^###\s+(.+)$/gm)) {
    const heading = m[1]!;
    for (const c of heading.matchAll(/`([a-z]+)[^`]*`/g)) if (!anchors.has(c[1]!)) anchors.set(c[1]!, slug(heading));
  }
  return anchors;
}
