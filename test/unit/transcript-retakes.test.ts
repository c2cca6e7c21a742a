/**
 * A TaskUpdate that sets a task in progress it already had (or gives it the owner it has):
 * Claude Code answers `updatedFields: []` and writes nothing (checked with 2.1.332), so it
 * is no write, but the session said it is at work on the task. What a transcript says of
 * it, as read whole and as kept between runs (the scan's saved state).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTranscriptTasks, TASKS_SCAN, tasksOf } from '../../src/core/sessions/transcript-tasks.js';
import { tempConfig } from '../helpers/cli.js';
import { writeTaskTranscript } from '../helpers/session-files.mjs';

const SESSION = 'd4e5f6a7-1b2c-4d3e-8f40-5a6b7c8d9e01';
const AT = Date.parse('2026-12-03T12:00:00.000Z');

function transcript() {
  return writeTaskTranscript(tempConfig(), {
    sessionId: SESSION,
    cwd: '/tmp/retake/work',
    running: true,
    calls: [
      // Took #1 up as it was.
      {
        name: 'TaskUpdate',
        input: { taskId: '1', status: 'in_progress' },
        result: { success: true, taskId: '1', updatedFields: [] },
        at: AT,
      },
      // Gave #3 the owner it had.
      { name: 'TaskUpdate', input: { taskId: '3', owner: 'b' }, result: { success: true, taskId: '3', updatedFields: [] }, at: AT + 1000 },
      // Started #2: a write, not a retake.
      {
        name: 'TaskUpdate',
        input: { taskId: '2', status: 'in_progress' },
        result: { success: true, taskId: '2', updatedFields: ['status'], statusChange: { from: 'pending', to: 'in_progress' } },
        at: AT + 2000,
      },
      // The same description again, or a task not found: neither takes anything up.
      {
        name: 'TaskUpdate',
        input: { taskId: '4', description: 'same' },
        result: { success: true, taskId: '4', updatedFields: [] },
        at: AT + 3000,
      },
      {
        name: 'TaskUpdate',
        input: { taskId: '9', status: 'in_progress' },
        result: { success: false, taskId: '9', error: 'Task not found' },
        at: AT + 4000,
      },
    ],
  });
}

describe('retakes: TaskUpdates that took a task up as it was', () => {
  it('are read apart from the writes, with the times of their call and result', () => {
    const said = readTranscriptTasks(transcript());
    expect(said.retakes).toEqual([
      { id: '1', at: AT, end: AT + 10 },
      { id: '3', at: AT + 1000, end: AT + 1010 },
    ]);
    expect(said.writes?.map((w) => w.id)).toEqual(['2']);
  });

  it('are kept between runs: the saved state loads back to the same answer and digest', () => {
    const state = TASKS_SCAN.start();
    for (const line of fs.readFileSync(transcript(), 'utf8').trimEnd().split('\n')) TASKS_SCAN.feed(state, line);
    const loaded = TASKS_SCAN.load(JSON.parse(JSON.stringify(TASKS_SCAN.save(state))));
    expect(loaded).toBeDefined();
    expect(tasksOf(loaded as typeof state).retakes?.map((r) => r.id)).toEqual(['1', '3']);
    expect(tasksOf(loaded as typeof state).retakes).toEqual(tasksOf(state).retakes);
    expect(TASKS_SCAN.digest(loaded as typeof state)).toBe(TASKS_SCAN.digest(state));
  });
});
