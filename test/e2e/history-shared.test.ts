/**
 * A shared list (named by CLAUDE_CODE_TASK_LIST_ID): its agents' changes come from the
 * sessions matched to it by their transcripts (the tasks their Task tools made and saw),
 * each attributed to its session. The transcript is the real one of a session on a named
 * list (test/fixtures/claude-code-2.1.328/sessions/README.md); a second session is made
 * from the first's lines, as a second agent sharing the list would write them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTLE_MS } from '../../src/core/cache/file-stamp.js';
import { FIXTURES, run, tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

const FIRST = 'f7f775d4-e1d7-4aa0-a93e-9debb709c646';
const SECOND = '0b6e2c1d-4a5f-4b7c-9d8e-1f2a3b4c5d6e';
const ENV = { USER: 'carol' };

function world(): { config: string; folder: string } {
  const config = tempConfig();
  const folder = path.join(config, 'projects', '-tmp-exp-p1-sub');
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(path.join(FIXTURES, 'sessions', 'transcript-tasks-named.jsonl'), path.join(folder, `${FIRST}.jsonl`));
  fs.cpSync(path.join(FIXTURES, 'sessions', 'shared-list'), path.join(config, 'tasks', 'shared-list'), { recursive: true });
  return { config, folder };
}

/** A second agent on the same list: it sees #10 and #11 (TaskList) and completes #11, a minute after the first's last entry. */
function secondSession(folder: string): void {
  const last = fs
    .readFileSync(path.join(folder, `${FIRST}.jsonl`), 'utf8')
    .trimEnd()
    .split('\n');
  const lastTime = Math.max(...last.map((l) => Date.parse((JSON.parse(l) as { timestamp?: string }).timestamp ?? '') || 0));
  const at = (ms: number) => new Date(lastTime + 60_000 + ms).toISOString();
  const base = { sessionId: SECOND, cwd: '/tmp/exp/p1/sub', version: '2.1.328', gitBranch: 'HEAD' };
  const lines = [
    { ...base, type: 'user', timestamp: at(0), message: { role: 'user', content: 'test the parser' }, uuid: 'u0' },
    {
      ...base,
      type: 'assistant',
      timestamp: at(10),
      uuid: 'a1',
      message: { content: [{ type: 'tool_use', id: 'toolu_s2_1', name: 'TaskList', input: {} }] },
    },
    {
      ...base,
      type: 'user',
      timestamp: at(20),
      uuid: 'r1',
      toolUseResult: {
        tasks: [
          { id: '10', subject: 'Write the tokenizer', status: 'in_progress', blockedBy: [] },
          { id: '11', subject: 'Test the parser', status: 'pending', blockedBy: [] },
        ],
      },
      message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_s2_1', content: '#10 ...' }] },
    },
    {
      ...base,
      type: 'assistant',
      timestamp: at(30),
      uuid: 'a2',
      message: { content: [{ type: 'tool_use', id: 'toolu_s2_2', name: 'TaskUpdate', input: { taskId: '11', status: 'completed' } }] },
    },
    {
      ...base,
      type: 'user',
      timestamp: at(40),
      uuid: 'r2',
      toolUseResult: { success: true, taskId: '11', updatedFields: ['status'], statusChange: { from: 'pending', to: 'completed' } },
      message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_s2_2', content: 'Updated task #11 status' }] },
    },
  ];
  fs.writeFileSync(path.join(folder, `${SECOND}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

/** `log --json`: one document, an array of changes. */
const events = (text: string) =>
  JSON.parse(text) as Array<{ op: string; task: string; who: { kind: string; session: string | null }; changes: Record<string, unknown> }>;

describe("a shared list's history", () => {
  it("names each agent change's session, from the sessions matched to the list by their transcripts", () => {
    const { config, folder } = world();
    secondSession(folder);
    // The second agent's completion of #11, as the file holds it.
    const eleven = path.join(config, 'tasks', 'shared-list', '11.json');
    fs.writeFileSync(eleven, fs.readFileSync(eleven, 'utf8').replace('"pending"', '"completed"'));
    const r = runInProcessSync(config, ['-l', 'shared-list', 'log', '--json'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const got = events(r.stdout);
    expect(got.map((e) => `${e.op} #${e.task} ${e.who.session?.slice(0, 8)}`)).toEqual([
      'create #10 f7f775d4',
      'create #11 f7f775d4',
      'create #12 f7f775d4',
      'update #10 f7f775d4',
      'delete #12 f7f775d4',
      'update #11 0b6e2c1d',
    ]);
    expect(got.every((e) => e.who.kind === 'agent')).toBe(true);
    // Nothing is unrecorded: #9 was made before any record (said on stderr), the rest is explained.
    const text = runInProcessSync(config, ['-l', 'shared-list', 'log'], { env: ENV });
    expect(text.stderr).toContain("and 2 transcripts of this list's sessions");
    expect(text.stderr).toContain('no record of the creation of #9');
    expect(text.stdout).not.toContain('no record:');
  });

  it("get names the agent's session of its last change, as log does", () => {
    const { config, folder } = world();
    secondSession(folder);
    const eleven = path.join(config, 'tasks', 'shared-list', '11.json');
    fs.writeFileSync(eleven, fs.readFileSync(eleven, 'utf8').replace('"pending"', '"completed"'));
    // Written by the second agent's TaskUpdate, between its call and its result.
    const second = fs
      .readFileSync(path.join(folder, `${SECOND}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n');
    const call = Date.parse((JSON.parse(second[3] as string) as { timestamp: string }).timestamp);
    fs.utimesSync(eleven, (call + 5) / 1000, (call + 5) / 1000);
    // As a person finds it: the list's history first (which ties the list to its sessions, kept
    // once the files have settled: both runs' clock is past the settling time, no waiting),
    // then one task.
    const later = { ...ENV, TASKS_NOW: String(Date.now() + SETTLE_MS + 300) };
    expect(run(config, ['-l', 'shared-list', 'log'], { env: later }).stdout).toContain('0b6e2c1d');
    const r = run(config, ['-l', 'shared-list', 'get', '11'], { env: later });
    expect(r.code, r.stderr).toBe(0);
    const last = r.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(last).toContain('0b6e2c1d');
    expect(r.stdout).not.toMatch(/no record/);
  });

  it("get names the agent's session on a cold start too: no lists or log ran before, the cache is fresh", () => {
    const { config, folder } = world();
    secondSession(folder);
    const eleven = path.join(config, 'tasks', 'shared-list', '11.json');
    fs.writeFileSync(eleven, fs.readFileSync(eleven, 'utf8').replace('"pending"', '"completed"'));
    const second = fs
      .readFileSync(path.join(folder, `${SECOND}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n');
    const call = Date.parse((JSON.parse(second[3] as string) as { timestamp: string }).timestamp);
    fs.utimesSync(eleven, (call + 5) / 1000, (call + 5) / 1000);
    // A cache folder of its own, empty: nothing kept by an earlier run.
    const cache = path.join(config, 'cold-cache');
    const r = runInProcessSync(config, ['-l', 'shared-list', 'get', '11'], { env: { ...ENV, XDG_CACHE_HOME: cache } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toContain('0b6e2c1d');
    expect(r.stdout).not.toMatch(/no record/);
    // And as log says it.
    const log = runInProcessSync(config, ['-l', 'shared-list', 'log', '11', '--json'], {
      env: { ...ENV, XDG_CACHE_HOME: cache },
    });
    expect(events(log.stdout).at(-1)?.who.session).toBe(SECOND);
  });

  it('with no session matched, what changed is an unrecorded line, likely an agent whose transcript is not known', () => {
    const { config, folder } = world();
    fs.rmSync(folder, { recursive: true });
    // A person's change the journal records, then an agent's change no transcript shows.
    expect(runInProcessSync(config, ['-l', 'shared-list', 'update', '9', '--status', 'in_progress'], { env: ENV }).code).toBe(0);
    const nine = path.join(config, 'tasks', 'shared-list', '9.json');
    fs.writeFileSync(nine, fs.readFileSync(nine, 'utf8').replace('"in_progress"', '"completed"'));
    const later = Date.now() / 1000 + 10;
    fs.utimesSync(nine, later, later);
    const got = events(runInProcessSync(config, ['-l', 'shared-list', 'log', '--json'], { env: ENV }).stdout);
    expect(got.at(-1)).toMatchObject({
      op: 'unrecorded',
      task: '9',
      cause: 'unknown-agent',
      changes: { status: { old: 'in_progress', new: 'completed' } },
    });
  });
});
