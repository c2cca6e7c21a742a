import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

const CORE = path.join(ROOT, 'src/core');
const CLI = path.join(ROOT, 'src/cli');
const BOARD = path.join(ROOT, 'src/board');
const PAGE = path.join(BOARD, 'page');

/** Every relative import of a file (static, type-only, re-exports and dynamic), resolved to a .ts path. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"](\.\.?\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specs.map((s) => path.resolve(path.dirname(file), s).replace(/\.js$/, '.ts'));
}

/** A map's table (src/core/README.md, src/cli/README.md): folder -> its main file and the folders it may use. */
function readMap(readme: string): Map<string, { main: string; mayUse: string[]; row: number }> {
  const rows = fs
    .readFileSync(readme, 'utf8')
    .split('\n')
    .filter((l) => /^\| `[a-z/-]+` \|/.test(l));
  return new Map(
    rows.map((line, row) => {
      const cells = line.split('|').map((c) => c.trim());
      const folder = cells[1]!.replace(/`/g, '');
      const main = cells[2]!.replace(/`/g, '');
      const mayUse = cells[4]!
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return [folder, { main, mayUse, row }];
    }),
  );
}

type FolderMap = ReturnType<typeof readMap>;

/**
 * The map's folder a file belongs to: the longest row naming a folder that holds it
 * (`completion/scripts` before `completion`); "." for a file loose in `base`, and the
 * file's own first folder when no row names it.
 */
function folderIn(base: string, map: FolderMap, file: string): string {
  const rel = path.relative(base, path.dirname(file)).split(path.sep).join('/');
  if (rel === '') return '.';
  const rows = [...map.keys()].filter((f) => rel === f || rel.startsWith(`${f}/`));
  return rows.sort((a, b) => b.length - a.length)[0] ?? rel.split('/')[0]!;
}

/** Import edges from one folder of a map to another that the map does not allow. */
function forbiddenImports(base: string, files: readonly string[], map: FolderMap): string[] {
  const offences: string[] = [];
  for (const file of files) {
    const from = folderIn(base, map, file);
    for (const target of importsOf(file)) {
      if (!target.startsWith(base + path.sep)) continue;
      const to = folderIn(base, map, target);
      if (to !== from && !map.get(from)?.mayUse.includes(to)) {
        offences.push(`${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)} (${from} may not use ${to})`);
      }
    }
  }
  return offences;
}

/** Rows whose "may use" names a folder that is not listed above them. */
function upwardRows(map: FolderMap): string[] {
  return [...map].flatMap(([folder, { mayUse, row }]) =>
    mayUse.filter((used) => !map.has(used) || map.get(used)!.row >= row).map((used) => `${folder} -> ${used}`),
  );
}

/** Main files that are missing or do not open with a paragraph saying what the folder is. */
function mainFilesWithoutParagraph(base: string, map: FolderMap): string[] {
  return [...map]
    .filter(([folder, { main }]) => {
      const file = path.join(base, folder, main);
      return !fs.existsSync(file) || !fs.readFileSync(file, 'utf8').startsWith('/**');
    })
    .map(([folder, { main }]) => `${folder}/${main}`);
}

/** docs/design.md: core knows nothing of the terminal; dependencies point down only. */
describe('layers', () => {
  it('keeps core free of CLI concerns', () => {
    const offenders = sources(CORE).filter((file) =>
      /from ['"](commander|chalk|cli-table3)['"]|from ['"](\.\.\/)+(cli|render|board)\/|console\.|process\.(exit|stdout|stderr|argv)/.test(
        fs.readFileSync(file, 'utf8'),
      ),
    );
    expect(offenders).toEqual([]);
  });
  it('keeps render free of cli, of the board and of I/O', () => {
    const offenders = sources(path.join(ROOT, 'src/render')).filter((file) =>
      /from ['"]\.\.\/(cli|board)\/|from ['"]node:fs['"]|process\.(exit|stdout|stderr)/.test(fs.readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
  it('sets the exit code in one place only', () => {
    const setters = sources(path.join(ROOT, 'src')).filter((file) =>
      /process\.exitCode\s*=|process\.exit\(/.test(fs.readFileSync(file, 'utf8')),
    );
    expect(setters.map((f) => path.relative(ROOT, f))).toEqual(['src/cli/main.ts']);
  });
});

/** Every module a file names that is not a relative path: node's (`node:fs`) and packages'. */
function bareImportsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"]([^'"./\s][^'"\s]*)['"]/gm)].map((m) => m[1]!);
}

/**
 * What the board's page reaches: its files and every file they import, type-only
 * imports included (the page's tsconfig compiles them all), each with the node or
 * package modules it names. The page runs in a browser: that list must be empty.
 */
function pageReach(entries: readonly string[]): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.set(file, bareImportsOf(file));
    for (const next of importsOf(file)) visit(next);
  };
  for (const f of entries) visit(f);
  return reached;
}

function nodeInPage(entries: readonly string[]): string[] {
  return [...pageReach(entries)].flatMap(([file, bare]) => bare.map((m) => `${path.relative(ROOT, file)} imports ${m}`));
}

/**
 * The board (docs/design.md, "Layers"): its server, src/board, is an adapter beside the
 * CLI that may use core and render and never cli; `tasks board` (a command) starts it.
 * Its page, src/board/page, runs in the browser: nothing it reaches may use node or a
 * package, and the protocol it shares with the server imports nothing.
 */
describe('the board', () => {
  const server = sources(BOARD).filter((f) => !f.startsWith(PAGE + path.sep));
  const page = sources(PAGE);

  it('is one of the four layers of src, with core, render and cli', () => {
    const top = fs
      .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(top).toEqual(['board', 'cli', 'core', 'render']);
  });

  it('uses core and render, never cli', () => {
    const offences = server.flatMap((f) =>
      importsOf(f)
        .filter((t) => t.startsWith(CLI + path.sep))
        .map((t) => `${path.relative(ROOT, f)} imports ${path.relative(ROOT, t)}`),
    );
    expect(offences).toEqual([]);
  });

  it('is started by a command only: no other part of the CLI imports it', () => {
    const offences = sources(CLI)
      .filter((f) => !f.startsWith(path.join(CLI, 'commands') + path.sep))
      .flatMap((f) =>
        importsOf(f)
          .filter((t) => t.startsWith(BOARD + path.sep))
          .map((t) => `${path.relative(ROOT, f)} imports ${path.relative(ROOT, t)}`),
      );
    expect(offences).toEqual([]);
  });

  it('has a page that reaches nothing of node and no package', () => {
    expect(page.length).toBeGreaterThan(0);
    expect(nodeInPage(page)).toEqual([]);
    // The page reaches core's layout (pure), never the server.
    const reached = [...pageReach(page).keys()];
    expect(
      reached.filter((f) => f.startsWith(BOARD + path.sep) && !f.startsWith(PAGE + path.sep)).map((f) => path.relative(ROOT, f)),
    ).toEqual(['src/board/board-protocol.ts']);
  });

  it('shares a protocol with its page that imports nothing', () => {
    const protocol = path.join(BOARD, 'board-protocol.ts');
    expect([...importsOf(protocol), ...bareImportsOf(protocol)]).toEqual([]);
  });

  it('catches the page reaching node, however far', () => {
    // A page file importing a core file that uses node:fs is the kind of reach forbidden.
    const scratch = path.join(PAGE, '.scratch-forbidden.ts');
    fs.writeFileSync(scratch, "import { readList } from '../../core/store/list-read.js';\nexport const x = readList;\n");
    try {
      expect(nodeInPage([scratch])).toContain('src/core/store/list-read.ts imports node:fs');
    } finally {
      fs.rmSync(scratch);
    }
  });
});

/**
 * What a module of core may keep between calls, by file and name, and why: none of it
 * is a run's state (docs/design.md, "Style"), which lives in the run's scope (core/scope).
 */
const KEPT_IN_CORE_MODULES: Record<string, string> = {
  'base/zod.ts loaded': 'zod, loaded once: a module, never changed',
  'store/active-form.ts verbSet': 'a constant set of words, made on first use: never changed',
  'locks/lock-activity.ts tracked': "one wrapped fs, made once: it counts into the calling run's scope",
  'cache/folder-names.ts looked': 'a memo of each reading of the folders (a session index; a WeakMap: it goes with the index)',
  'lifecycle/task-lifecycle.ts teamCache': 'a memo of each lifecycle context (a WeakMap: it goes with the context)',
  'sessions/list-sessions.ts evidences': 'a memo of each session index (a WeakMap: it goes with the index)',
  'sessions/list-sessions.ts liveEvidences': 'a memo of each session index (a WeakMap: it goes with the index)',
  'sessions/list-sessions.ts keptEvidences': 'a memo of each session index and list (a WeakMap: it goes with the index)',
  'sessions/list-sessions.ts caches': 'a memo of each session index (a WeakMap: it goes with the index)',
  'sessions/list-sessions.ts unsureSessions': "a memo of each evidence's session ids (a WeakMap: it goes with them)",
  'sessions/list-sessions.ts listsBySession': 'a memo of each evidence, its lists by session (a WeakMap: it goes with it)',
  'sessions/live-lists.ts known': 'a memo of each session index (a WeakMap: it goes with the index)',
  'cost/usage-scan.ts lastSubjects': "a memo of each transcript scan's state, its tasks' last names (a WeakMap: it goes with the state)",
  'progress/stalled-work.ts waitsByIndex': 'a memo of each session index (a WeakMap: it goes with the index)',
  'sessions/claude-processes.ts boots': "each /proc root's boot time: a fact of the machine",
  'sessions/live-sessions.ts ownDomain': "this machine's pid domain: a fact of the machine",
  'sessions/claude-processes.ts procBuffer': 'a scratch buffer of synchronous reads: nothing in it outlives a call',
  'base/open-read-close.ts chosen': "which calls this Node's fs takes, chosen once: a fact of the Node",
  'store/task-file.ts quickBuffer': 'a scratch buffer of synchronous reads: nothing in it outlives a call',
  'sessions/transcript-lines.ts chunkBuffer': 'a scratch buffer of synchronous reads: nothing in it outlives a call',
  'scope/run-scope.ts running': "the handle each async context's scope is read by, made on first use: it holds no run's state",
  'scope/run-scope.ts processScope': 'the scope of a process that runs one run alone (main.ts), set once: a second is refused',
};

/**
 * Module-level bindings of core that can hold state: every `let`, and every collection
 * (Map, Set, WeakMap, array, object) that the file changes (set, add, delete, push...).
 */
function moduleState(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const rel = path.relative(CORE, file).split(path.sep).join('/');
    for (const m of text.matchAll(/^(?:export )?let (\w+)/gm)) found.push(`${rel} ${m[1]}`);
    const collections = /^(?:export )?const (\w+)(?::[^=]+)? = (?:new (?:Map|Set|WeakMap|WeakSet|Array)\b|\[|\{)/gm;
    for (const m of text.matchAll(collections)) {
      const name = m[1]!;
      if (new RegExp(`\\b${name}(?:\\.(?:set|add|delete|clear|push|pop|shift|unshift|splice)\\(|\\[[^\\]]+\\]\\s*=[^=])`).test(text))
        found.push(`${rel} ${name}`);
    }
  }
  return found;
}

describe('the state of core', () => {
  it('keeps no run state in a module: what a run records or listens to is in its scope (core/scope)', () => {
    const state = moduleState(sources(CORE));
    expect(state.filter((s) => KEPT_IN_CORE_MODULES[s] === undefined)).toEqual([]);
    // Each exception is still there: one that went away leaves the list.
    expect(Object.keys(KEPT_IN_CORE_MODULES).filter((k) => !state.includes(k))).toEqual([]);
  });

  it('catches a listener kept in a module', () => {
    const scratch = path.join(CORE, 'writes', '.scratch-state.ts');
    fs.writeFileSync(
      scratch,
      'const listeners = new Set<() => void>();\nexport const on = (l: () => void) => listeners.add(l);\nlet last = 0;\n',
    );
    try {
      expect(moduleState([scratch])).toEqual(['writes/.scratch-state.ts last', 'writes/.scratch-state.ts listeners']);
    } finally {
      fs.rmSync(scratch);
    }
  });
});

/** src/core/README.md is the map of core; these hold the code to it. */
describe('the map of core', () => {
  const map = readMap(path.join(CORE, 'README.md'));

  it('names every folder of core, and only those; no file is loose in src/core', () => {
    const entries = fs.readdirSync(CORE, { withFileTypes: true });
    expect(entries.filter((e) => e.isFile() && e.name !== 'README.md').map((e) => e.name)).toEqual([]);
    const folders = entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect([...map.keys()].sort()).toEqual(folders);
  });

  it('goes one way: each folder may use only folders listed above it', () => {
    expect(upwardRows(map)).toEqual([]);
  });

  it('is obeyed: no folder imports one that its row does not name', () => {
    expect(forbiddenImports(CORE, sources(CORE), map)).toEqual([]);
  });

  it('catches an import against the map', () => {
    // A store file importing writes/ is the kind of edge the map forbids.
    const scratch = path.join(CORE, 'store', '.scratch-forbidden.ts');
    fs.writeFileSync(scratch, "import { getTask } from '../writes/task-writes.js';\nexport const x = getTask;\n");
    try {
      expect(forbiddenImports(CORE, [scratch], map)).toEqual([
        'src/core/store/.scratch-forbidden.ts imports src/core/writes/task-writes.ts (store may not use writes)',
      ]);
    } finally {
      fs.rmSync(scratch);
    }
  });

  it('opens each folder with its main file, which says what the concept is', () => {
    expect(mainFilesWithoutParagraph(CORE, map)).toEqual([]);
  });
});

/** src/cli/README.md is the map of the CLI; these hold the code to it. */
describe('the map of cli', () => {
  const map = readMap(path.join(CLI, 'README.md'));

  /** Every folder under src/cli, nested ones included, as "a/b". */
  const folders = (dir: string, prefix = ''): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => [`${prefix}${e.name}`, ...folders(path.join(dir, e.name), `${prefix}${e.name}/`)]);

  it('names every folder of the CLI, and only those; at most four files are loose in src/cli', () => {
    expect([...map.keys()].sort()).toEqual(folders(CLI).sort());
    const loose = fs.readdirSync(CLI, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.ts'));
    expect(loose.length).toBeLessThanOrEqual(4);
  });

  it('goes one way: each folder may use only folders listed above it', () => {
    expect(upwardRows(map)).toEqual([]);
  });

  it('is obeyed: no folder imports one that its row does not name, nor a file loose in src/cli', () => {
    const inFolders = sources(CLI).filter((f) => folderIn(CLI, map, f) !== '.');
    expect(forbiddenImports(CLI, inFolders, map)).toEqual([]);
  });

  it('has no command that imports another: what commands share lives in flags/, lifecycle/ or runtime/', () => {
    const COMMANDS = path.join(CLI, 'commands');
    const registry = new Set(['index.ts', 'program.ts', 'version.ts'].map((f) => path.join(COMMANDS, f)));
    const offences = sources(COMMANDS)
      .filter((f) => !registry.has(f))
      .flatMap((f) =>
        importsOf(f)
          .filter((t) => path.dirname(t) === COMMANDS)
          .map((t) => `${path.basename(f)} imports ${path.basename(t)}`),
      );
    expect(offences).toEqual([]);
  });

  it('catches an import against the map', () => {
    // A flag parser reaching for a command is the kind of edge the map forbids.
    const scratch = path.join(CLI, 'flags', '.scratch-forbidden.ts');
    fs.writeFileSync(scratch, "import { registerList } from '../commands/list.js';\nexport const x = registerList;\n");
    try {
      expect(forbiddenImports(CLI, [scratch], map)).toEqual([
        'src/cli/flags/.scratch-forbidden.ts imports src/cli/commands/list.ts (flags may not use commands)',
      ]);
    } finally {
      fs.rmSync(scratch);
    }
  });

  it('opens each folder with its main file, which says what the concept is', () => {
    expect(mainFilesWithoutParagraph(CLI, map)).toEqual([]);
  });
});

/** The value imports of a file (not `import type`, not `type X` inside braces), dynamic ones included: module -> names. */
function valueImportsOf(file: string): Map<string, string[]> {
  const text = fs.readFileSync(file, 'utf8');
  const found = new Map<string, string[]>();
  const add = (module: string, names: string[]) => {
    if (!module.startsWith('.') || names.length === 0) return;
    const target = path.resolve(path.dirname(file), module).replace(/\.js$/, '.ts');
    found.set(target, [...(found.get(target) ?? []), ...names]);
  };
  for (const m of text.matchAll(/^import\s+(?!type\s)([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gms)) {
    const clause = m[1]!;
    const braces = /\{([^}]*)\}/.exec(clause)?.[1];
    const named = (braces ?? '')
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '' && !n.startsWith('type '))
      .map((n) => n.split(/\s+as\s+/)[0]!);
    const outside = clause
      .replace(/\{[^}]*\}/, '')
      .replace(/,/g, ' ')
      .trim();
    add(m[2]!, [...named, ...(outside === '' ? [] : [outside])]);
  }
  for (const m of text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]/g)) add(m[1]!, ['(dynamic import)']);
  return found;
}

/** Most core modules a command file may import: it reads its flags, makes one core call (or a few named ones) and renders. */
const MAX_CORE_MODULES_PER_COMMAND = 4;

/** Command files that import more core modules than a thin command needs, with their count. */
function heavyCommands(files: readonly string[]): string[] {
  return files.flatMap((file) => {
    const core = new Set(importsOf(file).filter((t) => t.startsWith(CORE + path.sep)));
    return core.size > MAX_CORE_MODULES_PER_COMMAND ? [`${path.relative(ROOT, file)} imports ${core.size} core modules`] : [];
  });
}

/**
 * What render may take from core besides types (docs/design.md, "Layers": render answers
 * no domain question): core/base, and the store's id order, schema and status words.
 */
const RENDER_MAY_CALL = ['base/', 'store/ids.ts', 'store/schema.ts', 'store/status-words.ts'];

/** Render's value imports from core outside what it may call: a domain question asked in render. */
function renderQuestions(files: readonly string[]): string[] {
  return files.flatMap((file) =>
    [...valueImportsOf(file)]
      .filter(([target]) => target.startsWith(CORE + path.sep))
      .filter(([target]) => !RENDER_MAY_CALL.some((allowed) => path.relative(CORE, target).split(path.sep).join('/').startsWith(allowed)))
      .map(([target, names]) => `${path.relative(ROOT, file)} calls ${names.join(', ')} of ${path.relative(ROOT, target)}`),
  );
}

/** docs/design.md, "Style" 2: commands as gh's are, options -> a core call -> a view model -> render. */
describe('thin commands', () => {
  const COMMANDS = path.join(CLI, 'commands');

  it(`has no command file that imports more than ${MAX_CORE_MODULES_PER_COMMAND} core modules`, () => {
    expect(heavyCommands(sources(COMMANDS))).toEqual([]);
  });

  it('catches a command that reaches into core for what a use case should answer', () => {
    const scratch = path.join(COMMANDS, '.scratch-heavy.ts');
    fs.writeFileSync(
      scratch,
      [
        "import { TasksError } from '../../core/base/errors.js';",
        "import { indexTasks } from '../../core/graph/blockers.js';",
        "import { filterTasks } from '../../core/lists/task-filter.js';",
        "import type { Task } from '../../core/store/schema.js';",
        "import { readList } from '../../core/store/list-read.js';",
        'export const x = [TasksError, indexTasks, filterTasks, readList] as unknown as Task;',
        '',
      ].join('\n'),
    );
    try {
      expect(heavyCommands([scratch])).toEqual(['src/cli/commands/.scratch-heavy.ts imports 5 core modules']);
    } finally {
      fs.rmSync(scratch);
    }
  });

  it("has render ask core no domain question: types only, besides core/base and the store's ids, schema and status words", () => {
    expect(renderQuestions(sources(path.join(ROOT, 'src/render')))).toEqual([]);
  });

  it('catches render calling a domain function of core', () => {
    const scratch = path.join(ROOT, 'src/render', '.scratch-question.ts');
    fs.writeFileSync(
      scratch,
      [
        "import { type BlockerState, isBlocked, type TaskIndex } from '../core/graph/blockers.js';",
        "import type { ListGraph } from '../core/graph/list-graph.js';",
        "import { compareIds } from '../core/store/ids.js';",
        "import { TasksError } from '../core/base/errors.js';",
        'export const x = [isBlocked, compareIds, TasksError] as unknown as [BlockerState, TaskIndex, ListGraph];',
        '',
      ].join('\n'),
    );
    try {
      expect(renderQuestions([scratch])).toEqual(['src/render/.scratch-question.ts calls isBlocked of src/core/graph/blockers.ts']);
    } finally {
      fs.rmSync(scratch);
    }
  });
});

/**
 * zod: one package at one version. What runs (core, through base/zod.ts, loaded on first
 * use) uses its v3 API; the JSON contract (render/json-schemas) uses its v4 generator and
 * is loaded at build and test time only. Measured: a bundle that loads the v4 API spends
 * about four times the v3 API's start-up, and its messages are not the ones users see.
 */
describe('zod', () => {
  const SCHEMAS = path.join(ROOT, 'src/render/json-schemas');
  const all = sources(path.join(ROOT, 'src'));

  it('runs with its v3 API only: nothing outside the JSON contract names zod/v4', () => {
    const offenders = all.filter(
      (f) => !f.startsWith(SCHEMAS + path.sep) && /from ['"]zod\/v4|require\(['"]zod\/v4/.test(fs.readFileSync(f, 'utf8')),
    );
    expect(offenders.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it('loads the JSON contract at run time nowhere: only its types are imported from outside it', () => {
    const offences = all
      .filter((f) => !f.startsWith(SCHEMAS + path.sep))
      .flatMap((f) =>
        [...valueImportsOf(f).keys()]
          .filter((t) => t.startsWith(SCHEMAS + path.sep))
          .map((t) => `${path.relative(ROOT, f)} imports ${path.relative(ROOT, t)}`),
      );
    expect(offences).toEqual([]);
  });
});

describe('the source tree', () => {
  const all = sources(path.join(ROOT, 'src'));

  it('has no two files with the same name', () => {
    const byName = new Map<string, string[]>();
    for (const f of all) byName.set(path.basename(f), [...(byName.get(path.basename(f)) ?? []), path.relative(ROOT, f)]);
    expect([...byName.values()].filter((files) => files.length > 1)).toEqual([]);
  });

  it('has no import cycle, type-only imports included', () => {
    const graph = new Map(all.map((f) => [f, importsOf(f).filter((t) => t.startsWith(path.join(ROOT, 'src')))]));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(ROOT, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const f of all) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
