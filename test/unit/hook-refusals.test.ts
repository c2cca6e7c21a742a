import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HookRefusals } from '../../src/core/notify/hook-refusals.js';

// The lines as Claude Code 2.1.332 wrote them (a TaskCreated hook that printed a block
// decision, a TaskCompleted hook that exited 2), trimmed of fields nothing here reads.
const SESSION = '29501dd9-b834-4ea6-9ebf-223eaf538c69';
const createCall = {
  type: 'assistant',
  timestamp: '2026-12-02T10:50:07.100Z',
  sessionId: SESSION,
  message: {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_mock_1_0', name: 'TaskCreate', input: { subject: 'Step one', description: 'a' } }],
  },
};
const createRefused = {
  type: 'user',
  timestamp: '2026-12-02T10:50:07.244Z',
  sessionId: SESSION,
  message: {
    role: 'user',
    content: [
      { type: 'tool_result', content: 'TaskCreated hook feedback:\nno new tasks on Friday', is_error: true, tool_use_id: 'toolu_mock_1_0' },
    ],
  },
  toolUseResult: 'Error: TaskCreated hook feedback:\nno new tasks on Friday',
};
const completeRefused = {
  type: 'user',
  timestamp: '2026-12-02T10:50:12.119Z',
  sessionId: SESSION,
  message: {
    role: 'user',
    content: [
      {
        tool_use_id: 'toolu_mock_2_0',
        type: 'tool_result',
        content: "TaskCompleted hook feedback:\n[echo 'tests must pass first' >&2; exit 2]: tests must pass first\n",
      },
    ],
  },
  toolUseResult: { success: false, taskId: '1', updatedFields: [], error: 'TaskCompleted hook feedback:\n…' },
};
const ordinary = {
  type: 'user',
  timestamp: '2026-12-02T10:50:08.000Z',
  sessionId: SESSION,
  message: {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'Task #1 updated: a hook feedback: line quoted in a task' }],
  },
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function transcript(lines: object[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-refusals-'));
  dirs.push(dir);
  const file = path.join(dir, `${SESSION}.jsonl`);
  fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return file;
}

describe("a hook's refusals, from a transcript", () => {
  it('finds a refused create (with the subject of its call) and a refused completion (with its task and the reason alone)', () => {
    const file = transcript([createCall, createRefused, ordinary, completeRefused]);
    const found = new HookRefusals().of(SESSION, file);
    expect(found).toEqual([
      {
        session: SESSION,
        toolUseId: 'toolu_mock_1_0',
        hook: 'TaskCreated',
        at: Date.parse('2026-12-02T10:50:07.244Z'),
        taskId: undefined,
        subject: 'Step one',
        reason: 'no new tasks on Friday',
      },
      {
        session: SESSION,
        toolUseId: 'toolu_mock_2_0',
        hook: 'TaskCompleted',
        at: Date.parse('2026-12-02T10:50:12.119Z'),
        taskId: '1',
        subject: undefined,
        reason: 'tests must pass first',
      },
    ]);
  });

  it('reads a growing transcript from where it stopped, a line written in two parts once, and a replaced file afresh', () => {
    const file = transcript([createCall]);
    const refusals = new HookRefusals();
    expect(refusals.of(SESSION, file)).toEqual([]);
    const line = `${JSON.stringify(completeRefused)}\n`;
    fs.appendFileSync(file, line.slice(0, 40));
    expect(refusals.of(SESSION, file)).toEqual([]);
    fs.appendFileSync(file, line.slice(40));
    expect(refusals.of(SESSION, file).map((r) => r.toolUseId)).toEqual(['toolu_mock_2_0']);
    expect(refusals.of(SESSION, file)).toHaveLength(1);
    // Replaced (a new file under the name): read again from its start.
    fs.rmSync(file);
    fs.writeFileSync(file, `${JSON.stringify(createCall)}\n${JSON.stringify(createRefused)}\n`);
    expect(refusals.of(SESSION, file).map((r) => r.hook)).toEqual(['TaskCreated']);
  });

  it('a transcript that is gone or not JSON gives nothing, and no error', () => {
    const file = transcript([]);
    fs.writeFileSync(
      file,
      'not json at all TaskCompleted hook feedback:\n{"type":"user","message":{"content":"TaskCompleted hook feedback: x"}}\n',
    );
    const refusals = new HookRefusals();
    expect(refusals.of(SESSION, file)).toEqual([]);
    expect(refusals.of(SESSION, path.join(path.dirname(file), 'gone.jsonl'))).toEqual([]);
  });
});
