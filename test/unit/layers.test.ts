import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

const CORE = path.join(ROOT, 'src/core');

/** Every relative import of a file (static, type-only, re-exports and dynamic), resolved to a .ts path. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"](\.\.?\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specs.map((s) => path.resolve(path.dirname(file), s).replace(/\.js$/, '.ts'));
}

/** src/core/README.md's table: folder -> its main file and the folders it may use. */
function coreMap(): Map<string, { main: string; mayUse: string[]; row: number }> {
  const rows = fs
    .readFileSync(path.join(CORE, 'README.md'), 'utf8')
    .split('\n')
    .filter((l) => /^\| `[a-z-]+` \|/.test(l));
  return new Map(
    rows.map((line, row) => {
      const cells = line.split('|').map((c) => c.trim());
      const folder = cells[1]!.replace(/`/g, '');
      const main = cells[2]!.replace(/`/g, '');
      const mayUse = cells[4]!.split(',').map((s) => s.trim()).filter(Boolean);
      return [folder, { main, mayUse, row }];
    }),
  );
}

/** Import edges from one core folder to another that the map does not allow. */
export function forbiddenCoreImports(files: readonly string[], map: ReturnType<typeof coreMap>): string[] {
  const folderOf = (file: string) => path.relative(CORE, file).split(path.sep)[0]!;
  const offences: string[] = [];
  for (const file of files) {
    const from = folderOf(file);
    for (const target of importsOf(file)) {
      if (!target.startsWith(CORE + path.sep)) continue;
      const to = folderOf(target);
      if (to !== from && !map.get(from)?.mayUse.includes(to)) {
        offences.push(`${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)} (${from} may not use ${to})`);
      }
    }
  }
  return offences;
}

/** docs/design.md: core knows nothing of the terminal; dependencies point down only. */
describe('layers', () => {
  it('keeps core free of CLI concerns', () => {
    const offenders = sources(CORE).filter((file) =>
      /from ['"](commander|chalk|cli-table3)['"]|from ['"](\.\.\/)+(cli|render)\/|console\.|process\.(exit|stdout|stderr|argv)/.test(
        fs.readFileSync(file, 'utf8'),
      ),
    );
    expect(offenders).toEqual([]);
  });
  it('keeps render free of cli and of I/O', () => {
    const offenders = sources(path.join(ROOT, 'src/render')).filter((file) =>
      /from ['"]\.\.\/cli\/|from ['"]node:fs['"]|process\.(exit|stdout|stderr)/.test(fs.readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
  it('sets the exit code in one place only', () => {
    const setters = sources(path.join(ROOT, 'src')).filter((file) => /process\.exitCode\s*=|process\.exit\(/.test(fs.readFileSync(file, 'utf8')));
    expect(setters.map((f) => path.relative(ROOT, f))).toEqual(['src/cli/main.ts']);
  });
});

/** src/core/README.md is the map of core; these hold the code to it. */
describe('the map of core', () => {
  const map = coreMap();

  it('names every folder of core, and only those; no file is loose in src/core', () => {
    const entries = fs.readdirSync(CORE, { withFileTypes: true });
    expect(entries.filter((e) => e.isFile() && e.name !== 'README.md').map((e) => e.name)).toEqual([]);
    const folders = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect([...map.keys()].sort()).toEqual(folders);
  });

  it('goes one way: each folder may use only folders listed above it', () => {
    const upward = [...map].flatMap(([folder, { mayUse, row }]) =>
      mayUse.filter((used) => !map.has(used) || map.get(used)!.row >= row).map((used) => `${folder} -> ${used}`),
    );
    expect(upward).toEqual([]);
  });

  it('is obeyed: no folder imports one that its row does not name', () => {
    expect(forbiddenCoreImports(sources(CORE), map)).toEqual([]);
  });

  it('catches an import against the map', () => {
    // A store file importing writes/ is the kind of edge the map forbids.
    const scratch = path.join(CORE, 'store', '.scratch-forbidden.ts');
    fs.writeFileSync(scratch, "import { getTask } from '../writes/task-writes.js';\nexport const x = getTask;\n");
    try {
      expect(forbiddenCoreImports([scratch], map)).toEqual([
        'src/core/store/.scratch-forbidden.ts imports src/core/writes/task-writes.ts (store may not use writes)',
      ]);
    } finally {
      fs.rmSync(scratch);
    }
  });

  it('opens each folder with its main file, which says what the concept is', () => {
    const missing = [...map]
      .filter(([folder, { main }]) => {
        const file = path.join(CORE, folder, main);
        return !fs.existsSync(file) || !fs.readFileSync(file, 'utf8').startsWith('/**');
      })
      .map(([folder, { main }]) => `${folder}/${main}`);
    expect(missing).toEqual([]);
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
