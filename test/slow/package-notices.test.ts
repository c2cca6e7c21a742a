import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/**
 * The tarball's licences: the package's own (LICENSE, MIT, as package.json says) and,
 * for every package whose code a bundle holds (esbuild's metafiles of the build, in
 * dist/meta/), that package's own licence text in THIRD_PARTY_NOTICES.
 */
describe('the licences in the packed tarball', () => {
  it("hold LICENSE and, for every bundled package, its name, version and licence file's text", () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-notices-'));
    // The build is already made (npm test builds first): pack it as it is.
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' });
    expect(pack.status).toBe(0);
    const tarball = path.join(work, pack.stdout.trim().split('\n').pop() as string);
    expect(spawnSync('tar', ['-xzf', tarball, '-C', work]).status).toBe(0);
    const unpacked = path.join(work, 'package');

    const own = JSON.parse(fs.readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
    expect(own.license).toBe('MIT');
    expect(fs.readFileSync(path.join(unpacked, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) /);

    // Every package any bundle holds, by the folder of its inputs (the last node_modules/<name>).
    const bundled = new Set<string>();
    const metaDir = path.join(ROOT, 'dist', 'meta');
    const metafiles = fs.readdirSync(metaDir);
    expect(metafiles).toEqual(
      expect.arrayContaining(['tasks.json', 'tasks-read.json', 'complete.json', 'board-page-board.json', 'board-page-board-worker.json']),
    );
    for (const file of metafiles) {
      const inputs = Object.keys(JSON.parse(fs.readFileSync(path.join(metaDir, file), 'utf8')).inputs);
      for (const input of inputs) {
        const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*\/node_modules\/)/.exec(input);
        if (m) bundled.add(input.slice(0, m.index + m[0].length - 1));
      }
    }
    // commander, chalk, zod and proper-lockfile are in the CLI's bundle by design.
    const names = [...bundled].map((folder) => JSON.parse(fs.readFileSync(path.join(ROOT, folder, 'package.json'), 'utf8')).name);
    expect(names).toEqual(expect.arrayContaining(['commander', 'chalk', 'zod', 'proper-lockfile']));

    const notices = fs.readFileSync(path.join(unpacked, 'THIRD_PARTY_NOTICES'), 'utf8');
    for (const folder of bundled) {
      const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, folder, 'package.json'), 'utf8'));
      expect(notices).toContain(`\n${pkg.name} ${pkg.version}\nLicense: ${pkg.license}\n`);
      const licence = fs.readdirSync(path.join(ROOT, folder)).find((f) => /^licen[cs]e/i.test(f));
      expect(licence, `${pkg.name} has a licence file`).toBeDefined();
      expect(notices).toContain(fs.readFileSync(path.join(ROOT, folder, licence as string), 'utf8').trim());
    }
  }, 120_000);
});
