/**
 * How the process ends (src/cli/runtime/end-when-idle.ts): once its work is done it leaves
 * through process.exit, skipping Node's teardown. Nothing a user sees may change: output
 * is whole however slowly it is read, the exit status is the run's, and what the 'exit'
 * listeners do (the user's code cache) is still done. Spawned: all of it is the process's.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempConfig, writeTask } from '../helpers/cli.js';

const TASKS = 3000;

/** A list whose JSON is megabytes: many times what a pipe holds. */
function bigList(): string {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'big');
  const description = 'x'.repeat(400);
  for (let i = 1; i <= TASKS; i++)
    writeTask(dir, { id: String(i), subject: `Task ${i}`, description, status: 'pending', blocks: [], blockedBy: [] });
  return config;
}

/** `tasks <args>` piped into a reader that starts reading only after `waitS` seconds; the output read and both exit statuses. */
function slowlyRead(config: string, args: string[], waitS: number) {
  const out = path.join(config, 'read.out');
  const quoted = args.map((a) => `'${a}'`).join(' ');
  const result = spawnSync(
    'bash',
    ['-c', `"${process.execPath}" "${BIN}" ${quoted} | { sleep ${waitS}; cat > "${out}"; }; echo "\${PIPESTATUS[0]} \${PIPESTATUS[1]}"`],
    { env: baseEnv(config), encoding: 'utf8', timeout: 60_000 },
  );
  return { statuses: result.stdout.trim(), stderr: result.stderr, text: fs.readFileSync(out, 'utf8') };
}

describe('the end of the process', () => {
  it('a listing of megabytes read slowly through a pipe arrives whole, and the process ends with its status', () => {
    const config = bigList();
    const json = slowlyRead(config, ['-l', 'big', 'list', '--json'], 0.5);
    expect(json.statuses).toBe('0 0');
    expect(json.text.length).toBeGreaterThan(1_000_000);
    expect(JSON.parse(json.text)).toHaveLength(TASKS);

    // The whole CLI (not a read bundle), also written through a slow pipe.
    const exported = slowlyRead(config, ['-l', 'big', 'export'], 0.5);
    expect(exported.statuses).toBe('0 0');
    expect(JSON.parse(exported.text)).toBeTruthy();
  });

  it("a run's exit status is the process's, from every bundle", () => {
    const config = bigList();
    for (const [args, status] of [
      [['-l', 'big', 'get', '99999'], 3],
      [['-l', 'big', 'list', '--status', 'nope'], 2],
      [['-l', 'big', 'update', '99999', '--status', 'completed'], 3],
      [['-l', 'nowhere', 'lists', '--json'], 0],
    ] as const) {
      const r = spawnSync(process.execPath, [BIN, ...args], { env: baseEnv(config), encoding: 'utf8' });
      expect(r.status, args.join(' ')).toBe(status);
    }
  });
});
