import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentSpec } from '../../src/cli/completion/spec-from-program.js';
import { loadSpec } from '../../src/cli/completion/spec-load.js';
import { ROOT, tempConfig } from '../helpers/cli.js';
import { COMPLETIONS } from '../helpers/complete.js';
import { runInProcess } from '../helpers/in-process.js';

describe('tasks completion <shell>', () => {
  it.each([
    ['bash', 'tasks.bash'],
    ['zsh', '_tasks'],
    ['fish', 'tasks.fish'],
  ])('prints the %s script, the same as completions/%s (npm run completions)', async (shell, file) => {
    const r = await runInProcess(tempConfig(), ['completion', shell]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('__complete');
    expect(r.stdout).toBe(fs.readFileSync(path.join(COMPLETIONS, file), 'utf8'));
  });

  it('refuses an unknown or missing shell with a usage error', async () => {
    const bad = await runInProcess(tempConfig(), ['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/tcsh.*bash, zsh, fish/);
    expect((await runInProcess(tempConfig(), ['completion'])).code).toBe(2);
  });

  it('says how to install each script', async () => {
    const help = (await runInProcess(tempConfig(), ['completion', '--help'])).stdout;
    expect(help).toMatch(/bash .*completion bash/);
    expect(help).toMatch(/zsh .*_tasks/);
    expect(help).toMatch(/fish .*tasks\.fish/);
  });

  it('keeps __complete out of the help', async () => {
    const help = (await runInProcess(tempConfig(), ['--help'])).stdout;
    expect(help).toContain('completion');
    expect(help).not.toContain('__complete');
  });
});

describe('the completion spec', () => {
  it('written by the build is the one the program defines now', async () => {
    const built = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'cli', 'completion', 'spec.json'), 'utf8'));
    expect(built).toEqual(JSON.parse(JSON.stringify(await currentSpec())));
  });

  it('comes from the program itself where the build wrote none (a build by plain tsc)', async () => {
    // Run from src/, where no spec.json and no bundle exist.
    expect(await loadSpec()).toEqual(await currentSpec());
  });

  it('holds every command of the program with its options', async () => {
    const spec = await currentSpec();
    const update = spec.program.commands.find((c) => c.name === 'update');
    expect(update?.arguments).toEqual([{ name: 'id', required: true, variadic: false, kind: 'task-id' }]);
    expect(update?.options.find((o) => o.long === '--add-blocks')).toMatchObject({ kind: 'task-id', repeatable: true });
    expect(update?.options.find((o) => o.long === '--status')).toMatchObject({ kind: 'status', value: 'required' });
    expect(update?.options.find((o) => o.long === '--no-owner')).toMatchObject({ attribute: 'owner' });
    expect(spec.program.options.find((o) => o.long === '--list')).toMatchObject({ short: '-l', kind: 'list' });
    expect(spec.program.commands.map((c) => c.name)).toContain('help');
  });
});
