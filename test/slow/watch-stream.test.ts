import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, ROOT, run, runAsync, tempConfig, writeTask } from '../helpers/cli.js';
import { normalize, replay, type TaskRecord } from '../helpers/replay.js';
import { startWatch } from '../helpers/watch.js';

const RAW_WRITER = path.join(ROOT, 'test', 'helpers', 'raw-writer.mjs');

interface RawResult {
  changes: number;
  deleted: string[];
}

function rawWriter(dir: string, first: number, last: number, changes: number, seed: number): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RAW_WRITER, dir, String(first), String(last), String(changes), String(seed)]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as RawResult) : reject(new Error(`raw writer failed: ${err}`))));
  });
}

/** The folder as it is: every task file, parsed. */
function folderState(dir: string): TaskRecord[] {
  return fs
    .readdirSync(dir)
    .filter((n) => /^[^.].*\.json$/.test(n))
    .map((n) => JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8')) as TaskRecord);
}

const task = (id: string) => ({ id, subject: `seed ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [] });

describe('watch --json: the stream replays to the folder', () => {
  it('200+ changes from several processes (tasks and raw writes) and a list reset', async () => {
    const config = tempConfig();
    const dir = path.join(config, 'tasks', 'busy');
    for (let i = 1; i <= 10; i++) writeTask(dir, task(String(i)));
    // Ids the raw writers own (11-130) stay below those `tasks create` allocates.
    fs.writeFileSync(path.join(dir, '.highwatermark'), '200');
    const watch = startWatch(config, ['-l', 'busy', 'watch', '--json']);
    await watch.waitFor((e) => e.event === 'snapshot', 'the snapshot');

    let changes = 0;
    const cli = async (args: string[]) => {
      const r = await runAsync(config, ['-l', 'busy', ...args]);
      // Starting or completing a task whose blocker is open is allowed, and said.
      expect(r.stderr.replace(/^warning: #\d+ is still blocked by .*\n/gm, '')).toBe('');
      expect(r.code).toBe(0);
      changes++;
      return r.stdout.trim();
    };
    const creator = async (n: number, prefix: string) => {
      for (let i = 0; i < n; i++) await cli(['create', `${prefix} ${i}`, '-d', 'made by tasks']);
    };
    const updater = async () => {
      for (let i = 0; i < 20; i++) {
        const id = String((i % 5) + 1);
        if (i % 4 === 0) await cli(['update', id, '--status', ['in_progress', 'completed', 'pending'][i % 3] as string]);
        else if (i % 4 === 1) await cli(['update', id, '--owner', `agent-${i}`]);
        else if (i % 4 === 2) await cli(['update', id, '--meta', `step:=${i}`]);
        else if (Number(id) < 5) await cli(['update', id, '--add-blocks', String(Number(id) + 1)]);
        else await cli(['update', id, '--subject', `renamed ${i}`]);
      }
    };
    const churner = async () => {
      for (let i = 6; i <= 10; i++) {
        await cli(['delete', String(i)]);
        const id = await cli(['create', `churn ${i}`]);
        await cli(['update', id, '--status', 'in_progress', '--active-form', `Churning ${i}`]);
      }
    };
    const phase1 = await Promise.all([
      creator(15, 'phase one'),
      updater(),
      churner(),
      rawWriter(dir, 11, 70, 60, 1),
      rawWriter(dir, 71, 130, 60, 2),
    ]);
    const raw1 = [phase1[3] as RawResult, phase1[4] as RawResult];
    changes += raw1[0]!.changes + raw1[1]!.changes;

    // An agent's reset of a finished list: every task file deleted at once.
    for (const name of fs.readdirSync(dir)) if (name.endsWith('.json')) fs.unlinkSync(path.join(dir, name));
    changes++;
    await watch.waitFor((e) => e.event === 'list-cleared', 'list-cleared after the reset');

    const phase2 = await Promise.all([creator(5, 'phase two'), rawWriter(dir, 11, 35, 25, 3)]);
    changes += phase2[1].changes;
    const rawDeletes = [...raw1, phase2[1]].flatMap((r) => r.deleted);

    // Everything written before the sentinel is in the rescan that sees the sentinel.
    await cli(['create', 'sentinel']);
    await watch.waitFor((e) => e.event === 'created' && e.task?.subject === 'sentinel', 'the sentinel');
    const result = await watch.stop('SIGTERM');

    expect(changes).toBeGreaterThanOrEqual(200);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const events = watch.events();
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'stopped' });
    for (const e of events) expect(new Date(e.at).toISOString()).toBe(e.at);
    expect(events.filter((e) => e.event === 'list-cleared')).toHaveLength(1);
    expect(new Set(events.map((e) => e.event))).toEqual(new Set(['snapshot', 'created', 'updated', 'deleted', 'list-cleared', 'end']));
    // A file caught half-written is never reported as deleted: each raw id is reported
    // deleted at most as often as the writers deleted it.
    for (const e of events.filter((x) => x.event === 'deleted' && Number(x.task?.id) >= 11 && Number(x.task?.id) <= 130)) {
      const id = e.task?.id as string;
      const reported = events.filter((x) => x.event === 'deleted' && x.task?.id === id).length;
      expect(reported, `#${id} reported deleted`).toBeLessThanOrEqual(rawDeletes.filter((d) => d === id).length);
    }
    expect(normalize(replay(events).values())).toEqual(normalize(folderState(dir)));
    // The end event states where the list stands, too.
    expect(normalize((events.at(-1)?.tasks ?? []) as TaskRecord[])).toEqual(normalize(folderState(dir)));
  }, 240_000);
});

describe('watch whose reader goes away', () => {
  it('watch --json | head -1 ends without waiting for a change, status 0', async () => {
    const config = tempConfig();
    run(config, ['-l', 'w', 'create', 'one']);
    // Nothing changes the list while this runs: only the reader's exit can end the watch.
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        'bash',
        ['-c', `set -o pipefail; ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} -l w watch --json | head -1`],
        { env: baseEnv(config) },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ event: 'snapshot', list: 'w' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 30_000);
});

describe('watch --help', () => {
  it('prints the example piped from claude on two lines, the first ending in a line continuation', () => {
    const help = run(tempConfig(), ['watch', '--help']).stdout;
    expect(help).toContain(
      '  claude -p "fix the flaky tests" --output-format stream-json --verbose \\\n    | tee run.jsonl | tasks watch --stream - --until all-completed --timeout 30m\n',
    );
  });
});
