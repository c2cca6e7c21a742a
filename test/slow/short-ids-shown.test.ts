/**
 * A session's list is shown by its short id (as `tasks lists` shows it) wherever a person
 * reads it: `log --all`'s list column and the header of `watch`. Piped, `log --all` keeps
 * the full id (nothing is cut where a script reads).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig, writeTask } from '../helpers/cli.js';
import { startInTmux, tmuxAvailable } from '../helpers/tmux.js';

const A = '2d483082-5eaa-461a-bfdf-3e104fbfeff7';

function world() {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', A);
  fs.mkdirSync(dir, { recursive: true });
  writeTask(dir, { id: '1', subject: 'Ship it', description: '', status: 'completed', blocks: [], blockedBy: [] });
  fs.mkdirSync(path.join(config, 'tasks', 'named'), { recursive: true });
  expect(run(config, ['-l', 'named', 'create', 'Named work']).code).toBe(0);
  expect(run(config, ['-l', A, 'update', '1', '--subject', 'Ship it now']).code).toBe(0);
  return config;
}

async function screenOf(config: string, args: string[]): Promise<string> {
  const pane = startInTmux(config, args, { width: 120, height: 12 });
  try {
    return await pane.waitFor((s) => /EXIT=\d+/.test(s), `tasks ${args.join(' ')} to end`);
  } finally {
    pane.kill();
  }
}

describe.runIf(tmuxAvailable())('short ids where a person reads', () => {
  it("log --all: the list column names a session's list by its short id; piped, the full id", async () => {
    const config = world();
    const screen = await screenOf(config, ['log', '--all']);
    const line = screen.split('\n').find((l) => l.includes('Ship it now')) ?? '';
    expect(line).toMatch(/ 2d483082 +#1 /);
    expect(line).not.toContain('2d483082-');
    expect(screen).toMatch(/ named {3,}#1 /);
    expect(run(config, ['log', '--all']).stdout).toContain(`\t${A}\t#1\t`);
  });

  it("watch: the header names a session's list by its short id", async () => {
    const config = world();
    const screen = await screenOf(config, ['-l', A, 'watch', '--until', 'all-completed']);
    expect(screen).toMatch(/^ ?2d483082 /m);
    expect(screen).not.toContain('2d483082-');
  });
});
