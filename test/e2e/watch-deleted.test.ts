/**
 * `watch --until task:<id>:<status>` on a task that is deleted: ids are never handed out
 * again (docs/task-store.md section 4), so the condition can no longer hold, and the watch
 * ends at once with exit 6, saying so (it waited until --timeout, or for ever, before). A
 * task not made yet (an id above every one used) is still waited for. Through the built
 * binary: a watch is a process that ends with a status.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, runAsync, tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';
import { parseNdjson } from '../helpers/replay.js';
import { killLeftovers, outs, startRun } from '../helpers/run-agent.js';
import { StreamScript } from '../helpers/stream-lines.js';
import { startWatch } from '../helpers/watch.js';

function twoTasks(): string {
  const config = tempConfig();
  for (const subject of ['build', 'deploy']) expect(runInProcessSync(config, ['-l', 'ci', 'create', subject]).code).toBe(0);
  return config;
}

const DELETED =
  'task #2 was deleted (ids are never used again), so task:2:completed will not hold; 1 task: 0 done, 0 in progress, 1 pending';

describe('watch --until task:<id>:<status> on a deleted task', () => {
  it('deleted while watched: ends at once, exit 6, with a task-deleted end event', async () => {
    const config = twoTasks();
    const w = startWatch(config, ['-l', 'ci', 'watch', '--until', 'task:2:completed', '--timeout', '120s', '--json']);
    try {
      await w.waitFor((e) => e.event === 'snapshot', 'the snapshot');
      const deletedAt = Date.now();
      expect((await runAsync(config, ['-l', 'ci', 'delete', '2'])).code).toBe(0);
      const r = await w.exited;
      expect(r.code).toBe(6);
      expect(Date.now() - deletedAt).toBeLessThan(20_000);
      const events = parseNdjson(r.stdout);
      expect(events.map((e) => e.event)).toEqual(['snapshot', 'deleted', 'end']);
      expect(events.at(-1)).toMatchObject({ reason: 'task-deleted', until: 'task:2:completed', met: false, deleted: '2' });
      expect(JSON.parse(r.stderr.trim())).toMatchObject({
        error: { code: 'task_deleted', message: DELETED, until: 'task:2:completed', reason: 'task-deleted', deleted: '2' },
      });
    } finally {
      await w.stop();
    }
  });

  it('deleted before the watch began (the high-water mark reached it): exit 6 at once, one line, no "not yet" warning', () => {
    const config = twoTasks();
    expect(runInProcessSync(config, ['-l', 'ci', 'delete', '2']).code).toBe(0);
    const r = run(config, ['-l', 'ci', 'watch', '--until', 'task:2:completed', '--timeout', '60s']);
    expect(r.code).toBe(6);
    expect(r.stderr).toBe(`error: ${DELETED}\n`);
  });

  it('a file removed by hand (no mark) below an id that has a file: deleted too', () => {
    const config = twoTasks();
    expect(runInProcessSync(config, ['-l', 'ci', 'create', 'ship']).code).toBe(0);
    fs.rmSync(path.join(config, 'tasks', 'ci', '2.json'));
    const r = run(config, ['-l', 'ci', 'watch', '--until', 'task:2:completed', '--timeout', '60s', '--json']);
    expect(r.code).toBe(6);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ event: 'end', reason: 'task-deleted', deleted: '2' });
  });

  it('an id above every one used is not deleted: still waited for, until --timeout (124)', () => {
    const config = twoTasks();
    // A mark below the id, as a deletion of #2 leaves it: #3 is the next to be made.
    expect(runInProcessSync(config, ['-l', 'ci', 'delete', '2']).code).toBe(0);
    const r = run(config, ['-l', 'ci', 'watch', '--until', 'task:3:completed', '--timeout', '1s']);
    expect(r.code).toBe(124);
    expect(r.stderr).toContain('warning: task #3 does not exist (yet); waiting for it to be created and done');
  });
});

describe('tasks run --until task:<id>:<status> whose task the agent deletes', () => {
  afterEach(killLeftovers);

  it("is judged at the run's end as before (exit 6), and the verdict says the task was deleted during the run", async () => {
    const config = tempConfig();
    const s = new StreamScript().init().create('1', 'Build').create('2', 'Deploy').update('2', { status: 'deleted' }).end();
    const r = await startRun(config, ['--until', 'task:2:completed', '--json'], { steps: outs(s.lines) }).done;
    expect(r.code, r.stderr).toBe(6);
    const events = parseNdjson(r.stdout);
    expect(events.at(-2)).toMatchObject({ event: 'end', reason: 'run-ended', met: false, deleted: '2' });
    const error = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { error?: Record<string, unknown> })
      .find((l) => l.error !== undefined)?.error;
    expect(error).toMatchObject({ code: 'task_deleted', deleted: '2' });
    expect(String(error?.message)).toMatch(
      /^task #2 was deleted during the run \(ids are never used again\), so task:2:completed will not hold; /,
    );
  });
});
