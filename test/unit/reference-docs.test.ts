import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/commands/program.js';
import { exitRows, ONLY } from '../../src/cli/reference/command-exits.js';
import { referencePages } from '../../src/cli/reference/reference-pages.js';
import { Context } from '../../src/cli/runtime/context.js';
import { IO } from '../../src/cli/runtime/io.js';
import { NOTICES } from '../../src/core/base/notices.js';
import { ROOT } from '../helpers/cli.js';

/**
 * docs/reference/ is written by `npm run docs` from the program and the code's own lists
 * of codes; these fail when what is on disk is not what they make now, and when a code
 * the code says is missing from the list (or the list names one nothing says).
 */
const DOCS = path.join(ROOT, 'docs');
const REFERENCE = path.join(DOCS, 'reference');

const pagesNow = () =>
  referencePages({
    jsonOutput: fs.readFileSync(path.join(DOCS, 'json-output.md'), 'utf8'),
    schemaFiles: fs.readdirSync(path.join(DOCS, 'schemas')),
  });

async function commandNames(): Promise<string[]> {
  const nowhere = { isTTY: false, write: () => undefined };
  const io = new IO({ stdout: nowhere, stderr: nowhere, stdin: { isTTY: false, stream: () => undefined as never } }, {});
  const program = await buildProgram(new Context(io, { env: {}, cwd: undefined }));
  // A hidden command (what another machine's tasks runs over ssh) is for no person to read of.
  return program.commands.filter((c) => !(c as { _hidden?: boolean })._hidden).map((c) => c.name());
}

describe('the command reference (docs/reference/)', () => {
  it('is what npm run docs makes now: a page per command, the index and the codes, nothing else', async () => {
    const pages = await pagesNow();
    const onDisk = fs.existsSync(REFERENCE) ? fs.readdirSync(REFERENCE).sort() : [];
    expect(onDisk, 'run npm run docs').toEqual(pages.map((p) => p.file).sort());
    for (const page of pages) {
      expect(fs.readFileSync(path.join(REFERENCE, page.file), 'utf8'), `docs/reference/${page.file} is stale: run npm run docs`).toBe(
        page.text,
      );
    }
  });

  it('has a page for every command of the program', async () => {
    const files = new Set((await pagesNow()).map((p) => p.file));
    for (const name of await commandNames()) if (name !== '__complete') expect(files).toContain(`${name}.md`);
  });

  it('holds nothing of the machine it was made on', async () => {
    for (const page of await pagesNow()) {
      expect(page.text).not.toContain(ROOT);
      expect(page.text).not.toMatch(/\/(tmp|root|home)\/|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    }
  });

  it('names only commands of the program where a status belongs to some commands', async () => {
    const names = new Set(await commandNames());
    for (const commands of Object.values(ONLY)) for (const c of commands ?? []) expect(names).toContain(c);
  });
});

describe('the list of warning and note codes (core/base/notices.ts)', () => {
  /** Every quoted snake_case word in src outside the list itself. */
  const words = new Set(
    execFileSync('grep', ['-rhoE', "'[a-z]+(_[a-z]+)*'", 'src', '--include=*.ts', '--exclude=notices.ts'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .map((w) => w.slice(1, -1)),
  );

  it('names no code that nothing in src says', () => {
    expect(Object.keys(NOTICES).filter((code) => !words.has(code))).toEqual([]);
  });

  it('holds every code a command says: note() and warn() take no other (the type checker holds them to it)', () => {
    const io = fs.readFileSync(path.join(ROOT, 'src/cli/runtime/io.ts'), 'utf8');
    expect(io).toMatch(/note\(text: string, code: NoteCode,/);
    expect(io).toMatch(/warn\(text: string, code: WarningCode,/);
    // And nothing writes a notice of its own around them.
    const direct = execFileSync('grep', ['-rln', 'renderNoticeJson(', 'src', '--include=*.ts'], { cwd: ROOT, encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(direct.sort()).toEqual(['src/cli/runtime/io.ts', 'src/render/error.ts']);
  });
});

describe('what each command page says of the global options and exit statuses', () => {
  it('names every global option the program has, -H and --hosts among them', async () => {
    const nowhere = { isTTY: false, write: () => undefined };
    const io = new IO({ stdout: nowhere, stderr: nowhere, stdin: { isTTY: false, stream: () => undefined as never } }, {});
    const program = await buildProgram(new Context(io, { env: {}, cwd: undefined }));
    const globals = program.options.map((o) => o.long).filter((l) => l !== undefined && l !== '--help' && l !== '--version');
    expect(globals).toContain('--host');
    const pages = (await pagesNow()).filter((p) => p.file !== 'README.md' && p.file !== 'codes.md');
    for (const page of pages) {
      const line = page.text.split('\n').find((l) => l.startsWith('And the [global options]')) ?? '';
      for (const long of globals) expect(line, `${page.file} names ${long}`).toContain(`${long}\``);
    }
  });

  it('lists 8 for every command (each runs on a host with -H), and 3 for every one that needs the config folder', async () => {
    for (const name of await commandNames()) {
      const statuses = exitRows(name).map((r) => r.status);
      expect(statuses, `${name}: -H`).toContain(8);
      // completion reads no list; run makes its list, and its agent makes the config folder.
      if (name !== 'completion' && name !== 'run') expect(statuses, `${name}: not found`).toContain(3);
    }
  });

  it('says for board that SIGTERM ends it with 0, as its own help does', () => {
    const interrupted = exitRows('board').find((r) => r.status === 130);
    expect(interrupted?.meaning).toMatch(/SIGTERM[^.;]*\b0\b/);
  });

  it('says for notify that Ctrl-C, SIGTERM and SIGHUP end it with 0 once it runs, as its own help does', () => {
    const interrupted = exitRows('notify').find((r) => r.status === 130);
    expect(interrupted?.meaning).toMatch(/Ctrl-C, SIGTERM and SIGHUP[^.;]*\b0\b/);
  });
});
