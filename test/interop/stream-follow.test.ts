/**
 * Interop: `tasks watch --stream` on runs of the real Claude Code. Two headless runs are
 * recorded (a TodoWrite run with CLAUDE_CODE_ENABLE_TASKS=0, and a Task-tools run on the
 * session's own list), then fed to `watch --stream -` line by line, as a pipe delivers
 * them: the events end in the run's final list, and the end event names the run's result.
 * With TASKS_RECORD_FIXTURES=1 the streams are saved as test fixtures
 * (test/fixtures/claude-code-2.1.328/follow/), which the end-to-end tests replay.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempConfig } from '../helpers/cli.js';
import { runFed } from '../helpers/feed.js';
import { normalize, parseNdjson, replay, type TaskRecord } from '../helpers/replay.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';

const ACTIVE: Record<string, string> = {
  'Read the failing test': 'Reading the failing test',
  'Fix the race': 'Fixing the race',
  'Run the suite': 'Running the suite',
};
const todos = (...items: Array<[string, string]>) => ({
  todos: items.map(([content, status]) => ({ content, status, activeForm: ACTIVE[content] ?? content })),
});

const TODO_TURNS: Turn[] = [
  [
    {
      name: 'TodoWrite',
      input: todos(['Read the failing test', 'in_progress'], ['Fix the race', 'pending'], ['Run the suite', 'pending']),
    },
  ],
  [
    {
      name: 'TodoWrite',
      input: todos(['Read the failing test', 'completed'], ['Fix the race', 'in_progress'], ['Run the suite', 'pending']),
    },
  ],
  [
    {
      name: 'TodoWrite',
      input: todos(['Read the failing test', 'completed'], ['Fix the race', 'completed'], ['Run the suite', 'in_progress']),
    },
  ],
  [
    {
      name: 'TodoWrite',
      input: todos(['Read the failing test', 'completed'], ['Fix the race', 'completed'], ['Run the suite', 'completed']),
    },
  ],
];

const TASK_TURNS: Turn[] = [
  [
    { name: 'TaskCreate', input: { subject: 'Reproduce the flake', description: 'run it 50 times', activeForm: 'Reproducing the flake' } },
    { name: 'TaskCreate', input: { subject: 'Fix the timer', description: 'use fake timers', activeForm: 'Fixing the timer' } },
  ],
  [{ name: 'TaskCreate', input: { subject: 'Verify the fix', description: 'run the suite', activeForm: 'Verifying the fix' } }],
  [{ name: 'TaskUpdate', input: { taskId: '3', addBlockedBy: ['2'] } }],
  [{ name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress' } }],
  [{ name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }],
  [{ name: 'TaskUpdate', input: { taskId: '2', status: 'in_progress' } }],
  [{ name: 'TaskUpdate', input: { taskId: '2', status: 'completed' } }],
  [{ name: 'TaskUpdate', input: { taskId: '3', status: 'in_progress' } }],
  [{ name: 'TaskUpdate', input: { taskId: '3', status: 'completed' } }],
];

/** `tasks watch --stream -` fed one line at a time, as a run writes them. */
function feedWatch(config: string, stream: string, args: string[]) {
  return runFed(
    config,
    ['watch', '--stream', '-', '--json', ...args],
    stream.split('\n').filter((l) => l !== ''),
    { delayMs: 30 },
  );
}

function save(name: string, stream: string): void {
  if (process.env.TASKS_RECORD_FIXTURES !== '1') return;
  const dir = path.join(FIXTURES, 'follow');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), stream);
}

describe('the real Claude Code: watch --stream follows its runs', () => {
  it('a TodoWrite run (CLAUDE_CODE_ENABLE_TASKS=0)', async () => {
    const config = tempConfig();
    const run = await runAgent({
      configDir: config,
      listId: undefined,
      prompt: 'fix the flaky test',
      turns: TODO_TURNS,
      env: { CLAUDE_CODE_ENABLE_TASKS: '0' },
    });
    expect(run.stream.calls.map((c) => c.name)).toEqual(['TodoWrite', 'TodoWrite', 'TodoWrite', 'TodoWrite']);
    save('stream-json-todowrite-run.jsonl', run.stdout);
    // A TodoWrite session writes no list folder: the stream is all there is.
    expect(fs.existsSync(path.join(config, 'tasks', run.stream.sessionId as string))).toBe(false);

    const r = await feedWatch(config, run.stdout, ['--until', 'all-completed']);
    expect(JSON.parse(r.stderr)).toMatchObject({
      note: { code: 'verification_missing', message: expect.stringMatching(/^all 3 tasks are completed and none is a verification step/) },
    });
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events[0]).toMatchObject({ event: 'snapshot', list: run.stream.sessionId, tasks: [] });
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: true, nudge: { code: 'verification_missing' } });
    const final = [...replay(events).values()].map((t) => [t.subject, t.status]);
    expect(final).toEqual([
      ['Read the failing test', 'completed'],
      ['Fix the race', 'completed'],
      ['Run the suite', 'completed'],
    ]);
  });

  it("a Task-tools run on its session's own list: the files are followed, the stream ends the watch", async () => {
    const config = tempConfig();
    const run = await runAgent({ configDir: config, listId: undefined, prompt: 'fix the flaky test', turns: TASK_TURNS });
    save('stream-json-tasks-run.jsonl', run.stdout);
    const listDir = path.join(config, 'tasks', run.stream.sessionId as string);
    const files = fs
      .readdirSync(listDir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => JSON.parse(fs.readFileSync(path.join(listDir, n), 'utf8')) as TaskRecord);

    // Replayed afterwards the folder exists from the start: the files are the truth.
    const r = await feedWatch(config, run.stdout, []);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    expect(events.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', run: { result: 'success', isError: false } });
    expect(events.at(-1)).not.toHaveProperty('nudge');
    expect(normalize(replay(events).values())).toEqual(normalize(files));

    // Without the folder, the stream alone gives the same list.
    const bare = tempConfig();
    const s = await feedWatch(bare, run.stdout, ['--until', 'all-completed']);
    expect(s.code, s.stderr).toBe(0);
    const streamEvents = parseNdjson(s.stdout);
    expect(streamEvents.at(-1)).toMatchObject({ event: 'end', reason: 'run-ended', met: true });
    expect(normalize(replay(streamEvents).values())).toEqual(normalize(files));
  });
});
