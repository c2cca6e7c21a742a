/**
 * `tasks run --until all-completed` on a reused list whose tasks were all completed before
 * the agent started: the documented rule passes it (the condition holds at the run's
 * end), and the run now says that the agent changed nothing there: a note on stderr, and
 * `runChanged: false` in the end event. A run that did change its list says nothing more.
 * Through the built binary, with the scripted agent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { contractProblems } from '../helpers/json-contract.js';
import { parseNdjson } from '../helpers/replay.js';
import { killLeftovers, outs, startRun } from '../helpers/run-agent.js';
import { StreamScript } from '../helpers/stream-lines.js';

afterEach(killLeftovers);

const done = (id: string) => ({ id, subject: `old ${id}`, description: '', status: 'completed', blocks: [], blockedBy: [] });

function reusedList(): string {
  const config = tempConfig();
  const dir = path.join(config, 'tasks', 'sh2');
  for (const id of ['1', '2']) writeTask(dir, done(id));
  expect(fs.existsSync(path.join(dir, '1.json'))).toBe(true);
  return config;
}

describe('tasks run on a reused list the agent did not change', () => {
  it('passes (exit 0), with a note that the agent changed nothing, and runChanged: false', async () => {
    const config = reusedList();
    const s = new StreamScript().init().say('All tasks are already completed.').end();
    const r = await startRun(config, ['--until', 'all-completed'], { steps: outs(s.lines) }, { globals: ['-l', 'sh2'] }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('note: the agent changed nothing in list sh2: its tasks were all completed, none by it');
    const events = parseNdjson(r.stdout);
    expect(events.at(-2)).toMatchObject({ event: 'end', reason: 'run-ended', met: true, runChanged: false });
    expect(events.at(-1)).toMatchObject({ event: 'run', verdict: 'passed', exit: 0 });
    expect(contractProblems('run', r.stdout)).toEqual([]);
  });

  it('with --json the note is a JSON line with its code', async () => {
    const config = reusedList();
    const s = new StreamScript().init().end();
    const r = await startRun(config, ['--until', 'all-completed', '--json'], { steps: outs(s.lines) }, { globals: ['-l', 'sh2'] }).done;
    expect(r.code, r.stderr).toBe(0);
    const notes = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { note?: { code: string } });
    expect(notes.find((n) => n.note?.code === 'run_changed_nothing')).toMatchObject({
      note: { code: 'run_changed_nothing', list: 'sh2', until: 'all-completed' },
    });
  });

  it('a run that changed its list: runChanged: true, no note', async () => {
    const config = reusedList();
    const s = new StreamScript().init().create('3', 'New').update('3', { status: 'completed' }).end();
    const r = await startRun(config, ['--until', 'all-completed'], { steps: outs(s.lines) }, { globals: ['-l', 'sh2'] }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('changed nothing');
    expect(parseNdjson(r.stdout).at(-2)).toMatchObject({ event: 'end', met: true, runChanged: true });
  });

  it('a fast agent whose first chunk holds its init and its writes: still runChanged: true, no note', async () => {
    const config = reusedList();
    const s = new StreamScript().init().create('3', 'New').update('3', { status: 'completed' }).end();
    // One write of every line: the reader gets the init and the writes in one chunk, before the first state.
    const oneChunk = s.lines.join('\n');
    const r = await startRun(config, ['--until', 'all-completed'], { steps: [{ out: oneChunk }] }, { globals: ['-l', 'sh2'] }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('changed nothing');
    expect(parseNdjson(r.stdout).at(-2)).toMatchObject({ event: 'end', met: true, runChanged: true });
  });
});
