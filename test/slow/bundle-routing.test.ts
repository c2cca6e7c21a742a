/**
 * Every command and alias, run through each bundle and through bin/tasks.js (two launches
 * a name): each reaches a bundle that holds it. Slow by its number of launches.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

const bundle = path.join(path.dirname(BIN), '..', 'dist', 'tasks.cjs');
const readBundle = path.join(path.dirname(BIN), '..', 'dist', 'tasks-read.cjs');

describe('the CLI bundles', () => {
  it('every command and alias routes to a bundle that has it: the read commands to the read bundle, the rest to the full one', () => {
    const source = fs.readFileSync(BIN, 'utf8');
    const readNames = new Set(
      JSON.parse(String(/const READ_COMMANDS = new Set\((\[[^\]]*\])\)/.exec(source)?.[1]).replace(/'/g, '"')) as string[],
    );
    // Every command of the whole program, as the build found it (completion's spec).
    const spec = JSON.parse(fs.readFileSync(path.join(path.dirname(BIN), '..', 'dist', 'cli', 'completion', 'spec.json'), 'utf8')) as {
      program: { commands: Array<{ name: string; aliases: string[] }> };
    };
    // `help` is commander's own, in every bundle.
    const commands = spec.program.commands.filter((c) => c.name !== 'help');
    const names = commands.flatMap((c) => [c.name, ...c.aliases].map((name) => ({ name, usage: [c.name, ...c.aliases].join('|') })));
    expect(names.map((n) => n.name)).toEqual(
      expect.arrayContaining(['list', 'ls', 'get', 'lists', 'create', 'log', 'undo', 'redo', 'trust', 'use']),
    );
    const usageOf = (file: string, name: string) => {
      const r = spawnSync(process.execPath, [file, name, '--help'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      return r.status === 0 ? r.stdout.split('\n')[0] : `exit ${r.status}: ${r.stderr}`;
    };
    for (const { name, usage } of names) {
      const bundleFile = readNames.has(name) ? readBundle : bundle;
      // The bundle bin/tasks.js picks for this name holds the command...
      expect(usageOf(bundleFile, name), `${name} in ${path.basename(bundleFile)}`).toMatch(
        new RegExp(`^Usage: tasks ${usage.replace(/\|/g, '\\|')} `),
      );
      // ...and so does the run through bin/tasks.js itself.
      expect(usageOf(BIN, name), `${name} through bin/tasks.js`).toMatch(new RegExp(`^Usage: tasks ${usage.replace(/\|/g, '\\|')} `));
    }
    // The read bundle holds the reads alone: a change there would be the root's help, not the command's.
    for (const write of ['create', 'redo', 'trust', 'undo'])
      expect(usageOf(readBundle, write)).toMatch(/^Usage: tasks \[options\] \[command\]/);
    expect([...readNames].every((n) => names.some((c) => c.name === n))).toBe(true);
  });
});
