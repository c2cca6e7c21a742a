/**
 * `tasks log` on a list Claude Code cleared itself (docs/task-store.md section 6.7), as
 * 2.1.328 left it (test/fixtures/claude-code-2.1.328/reset/README.md): the task the
 * record has is gone, with no record of its deletion, but its going is Claude Code's own
 * reset, not a hand edit. Files deleted by hand stay a hand edit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

const S = '6da9f214-2624-4656-ae15-0b83b09f3074';

function world(): { config: string; list: string } {
  const config = tempConfig();
  fs.cpSync(path.join(FIXTURES, 'reset', 'projects'), path.join(config, 'projects'), { recursive: true });
  fs.cpSync(path.join(FIXTURES, 'reset', 'tasks'), path.join(config, 'tasks'), { recursive: true });
  return { config, list: path.join(config, 'tasks', S) };
}
const log = (config: string, ...args: string[]) => runInProcessSync(config, ['-l', S, 'log', ...args], { env: { USER: 'carol' } });
const lastLine = (config: string) => log(config).stdout.trimEnd().split('\n').at(-1)?.split('\t').slice(1);

describe('a list Claude Code cleared 5 s after its tasks were all completed', () => {
  it('says so, not "likely a hand edit"', () => {
    const { config } = world();
    const r = log(config);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t').slice(1).join(' ')),
    ).toEqual([
      '#1 agent of session 6da9f214 created one',
      '#1 agent of session 6da9f214 status pending → in_progress',
      '#1 agent of session 6da9f214 status in_progress → completed',
      '#1 (no record) cleared by Claude Code: an interactive session on the list clears it 5 s after every task is completed',
    ]);
    const events = JSON.parse(log(config, '--json').stdout) as Array<Record<string, unknown>>;
    expect(events.at(-1)).toMatchObject({
      task: '1',
      op: 'unrecorded',
      source: 'files',
      cause: 'app-reset',
      changes: { file: { old: '1.json' } },
    });
  });

  it('files deleted by hand stay a hand edit: no mark written with them, or a task not completed', () => {
    // The same list, its mark left as it was long before the files went.
    const a = world();
    const old = Date.now() / 1000 - 3600;
    fs.utimesSync(path.join(a.list, '.highwatermark'), old, old);
    expect(lastLine(a.config)).toEqual([
      '#1',
      '(no record)',
      'changed with no record: gone, with no record of its deletion (likely a hand edit)',
    ]);
    // No mark at all: nothing was deleted by Claude Code (it writes the mark when it deletes).
    const b = world();
    fs.rmSync(path.join(b.list, '.highwatermark'));
    expect(lastLine(b.config)).toEqual([
      '#1',
      '(no record)',
      'changed with no record: gone, with no record of its deletion (likely a hand edit)',
    ]);
    // The record ends with #1 in progress (the transcript cut before its completion): a list
    // with a task not completed is never cleared by Claude Code.
    const c = world();
    const file = path.join(c.config, 'projects', '-tmp-hx-web', `${S}.jsonl`);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const completion = lines.findIndex((l) => l.includes('"status":"completed"') && l.includes('"type":"assistant"'));
    expect(completion).toBeGreaterThan(0);
    fs.writeFileSync(file, `${lines.slice(0, completion).join('\n')}\n`);
    fs.utimesSync(path.join(c.list, '.highwatermark'), Date.now() / 1000, Date.now() / 1000);
    expect(lastLine(c.config)).toEqual([
      '#1',
      '(no record)',
      'changed with no record: gone, with no record of its deletion (likely a hand edit)',
    ]);
  });
});
