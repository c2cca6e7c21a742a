import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** design.md: core knows nothing of the terminal; dependencies point down only. */
describe('layers', () => {
  it('keeps core free of CLI concerns', () => {
    const offenders = sources(path.join(ROOT, 'src/core')).filter((file) =>
      /from ['"](commander|chalk|cli-table3)['"]|from ['"]\.\.\/(cli|render)\/|console\.|process\.(exit|stdout|stderr|argv)/.test(
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
