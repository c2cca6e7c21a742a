import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClaudeProcess } from '../../src/core/sessions/claude-processes.js';
import { readClaudeProcesses } from '../../src/core/sessions/claude-processes.js';
import { goneOwners } from '../../src/core/sessions/gone-owners.js';
import { attributeSessions, type SessionTasks, scoreItem } from '../../src/core/sessions/list-evidence.js';
import { sessionsOfList } from '../../src/core/sessions/list-sessions.js';
import type { ProcessProbe } from '../../src/core/sessions/live-sessions.js';
import { sessionsOfProcesses } from '../../src/core/sessions/process-sessions.js';
import { SessionIndex } from '../../src/core/sessions/session-index.js';
import { signsOfLife } from '../../src/core/sessions/signs-of-life.js';
import { readTranscriptTasks } from '../../src/core/sessions/transcript-tasks.js';
import { FIXTURES } from '../helpers/cli.js';

const NAMED = path.join(FIXTURES, 'sessions', 'transcript-tasks-named.jsonl');
const NAMED_ID = 'f7f775d4-e1d7-4aa0-a93e-9debb709c646';
const V1 = path.join(FIXTURES, 'transcript-todowrite-v1.jsonl');

function tmp(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-evidence-')));
}

describe('what a transcript shows of its tasks (real 2.1.328 transcripts)', () => {
  it('a session on a named list: the tasks it made, renamed and saw; not the one it deleted', () => {
    const read = readTranscriptTasks(NAMED);
    expect(read.usesTasks).toBe(true);
    expect(read.todos).toBeUndefined();
    expect(read.tasks.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
      { id: '9', subject: 'Made by someone else', created: false },
      { id: '10', subject: 'Write the tokenizer', created: true },
      { id: '11', subject: 'Test the parser', created: true },
    ]);
  });

  it('its writes, in order, each with the times of its call and of its result, the owner it gave, and whether it started the task', () => {
    const writes = readTranscriptTasks(NAMED).writes ?? [];
    expect(writes.map(({ at: _at, end: _end, ...w }) => w)).toEqual([
      { id: '10', created: true, subject: 'Write the parser' },
      { id: '11', created: true, subject: 'Test the parser' },
      { id: '12', created: true, subject: 'Throwaway' },
      { id: '10', created: false, subject: 'Write the tokenizer', owner: 'main', started: true },
      { id: '12', created: false, deleted: true },
    ]);
    for (const w of writes) expect(w.end).toBeGreaterThanOrEqual(w.at);
    // Times of the run, from its entries (it began at 15:02:22.670 and took seconds).
    for (const w of writes) expect(w.at - Date.parse('2026-12-01T15:02:22.670Z')).toBeGreaterThanOrEqual(0);
    for (const w of writes) expect(w.at - Date.parse('2026-12-01T15:02:22.670Z')).toBeLessThan(60_000);
  });

  it('a TodoWrite session: its latest todos, no tasks', () => {
    const read = readTranscriptTasks(V1);
    expect(read.usesTasks).toBe(false);
    expect(read.tasks).toEqual([]);
    expect(read.todos?.map((t) => t.status)).toEqual(['completed', 'in_progress', 'pending']);
    expect(read.todos?.[0]).toMatchObject({ content: 'Analyse code', activeForm: 'Analysing code' });
  });

  it('an unreadable or foreign file says nothing', () => {
    const dir = tmp();
    expect(readTranscriptTasks(path.join(dir, 'missing.jsonl'))).toEqual({ tasks: [], usesTasks: false });
    fs.writeFileSync(path.join(dir, 'junk.jsonl'), '{"name":"TaskCreate"\n\u0000\u0001\n[1,2]\n');
    expect(readTranscriptTasks(path.join(dir, 'junk.jsonl'))).toEqual({ tasks: [], usesTasks: false });
  });
});

describe('which list the tasks tie a session to', () => {
  type Files = Record<string, Record<string, [string, number]>>;
  /** Lists as they are on disk: list -> id -> [subject, mtime]. */
  const attribute = (sessions: SessionTasks[], lists: Files) =>
    attributeSessions(
      sessions,
      (ids) => Object.keys(lists).filter((l) => ids.some((id) => lists[l]?.[id] !== undefined)),
      (list, id) => {
        const f = lists[list]?.[id];
        return f === undefined ? undefined : { subject: f[0], mtimeMs: f[1] };
      },
    );
  const plain = (a: ReturnType<typeof attribute>) => ({ byList: Object.fromEntries(a.byList), unsure: Object.fromEntries(a.unsure) });
  /** One build's run of the plan: creates at `t`, then #1 taken a second later. */
  const build = (sessionId: string, t: number, known: string[] = []): SessionTasks => ({
    sessionId,
    seen: [
      { id: '1', subject: 'Run tests', created: true },
      { id: '2', subject: 'Deploy', created: true },
    ],
    writes: [
      { id: '1', created: true, subject: 'Run tests', at: t, end: t + 50 },
      { id: '2', created: true, subject: 'Deploy', at: t, end: t + 60 },
      { id: '1', created: false, at: t + 1000, end: t + 1050 },
    ],
    start: t - 500,
    known,
  });
  const plan = (t: number): Record<string, [string, number]> => ({ '1': ['Run tests', t + 1020], '2': ['Deploy', t + 30] });

  it('an item agrees with the file its write made, less with one written since, not with one written before or under another subject', () => {
    const item = { id: '1', subject: 'Run tests', created: true, lastAt: 10_000, lastEnd: 10_100 };
    expect(scoreItem(item, { subject: 'Run tests', mtimeMs: 10_050 }, undefined)).toBe(3);
    expect(scoreItem(item, { subject: 'Run tests', mtimeMs: 60_000 }, undefined)).toBe(2);
    expect(scoreItem(item, { subject: 'Run tests', mtimeMs: 1_000 }, undefined)).toBe(-1);
    expect(scoreItem(item, { subject: 'Deploy', mtimeMs: 10_050 }, undefined)).toBe(-1);
    expect(scoreItem(item, undefined, undefined)).toBeUndefined();
    // Only seen: its subject is all there is; one it made, older than the session, is a copy made before it.
    expect(scoreItem({ id: '1', subject: 'Run tests', created: false }, { subject: 'Run tests', mtimeMs: 0 }, 60_000)).toBe(1);
    expect(scoreItem({ id: '1', subject: 'Run tests', created: true }, { subject: 'Run tests', mtimeMs: 0 }, 60_000)).toBe(-1);
  });

  it('two builds of one plan, one after the other: each session its own list', () => {
    const lists = { 'build-101': plan(100_000), 'build-102': plan(200_000) };
    expect(plain(attribute([build('s1', 100_000), build('s2', 200_000)], lists))).toEqual({
      byList: { 'build-101': ['s1'], 'build-102': ['s2'] },
      unsure: {},
    });
    // Started 0.7 s after the first one's last write (as seen with the real binary): still told apart by the times.
    const close = { 'build-101': plan(100_000), 'build-102': plan(101_700) };
    expect(plain(attribute([build('s1', 100_000), build('s2', 101_700)], close)).byList).toEqual({
      'build-101': ['s1'],
      'build-102': ['s2'],
    });
  });

  it('two builds at the same moment: a live one whose process names its list decides; else both are unsure', () => {
    const lists = { 'build-201': plan(100_000), 'build-202': plan(100_010) };
    expect(plain(attribute([build('crashed', 100_000), build('running', 100_010, ['build-202'])], lists))).toEqual({
      byList: { 'build-202': ['running'], 'build-201': ['crashed'] },
      unsure: {},
    });
    expect(plain(attribute([build('a', 100_000), build('b', 100_010)], lists))).toEqual({
      byList: {},
      unsure: { 'build-201': ['a', 'b'], 'build-202': ['a', 'b'] },
    });
  });

  it("one plan made by two sessions, the earlier one's list gone: each file goes to the create that made it, whatever the order read", () => {
    // Only the later build's list is on disk; its files were made by its own creates.
    const lists = { later: plan(200_000) };
    for (const order of [
      [build('earlier', 100_000), build('later', 200_000, ['later'])],
      [build('later', 200_000, ['later']), build('earlier', 100_000)],
    ]) {
      expect(plain(attribute(order, lists))).toEqual({ byList: { later: ['later'] }, unsure: {} });
    }
  });

  it('a session moved to another list while it ran: both lists are its', () => {
    const moved: SessionTasks = {
      sessionId: 'm',
      seen: [{ id: '1', subject: 'After the binding', created: true }],
      writes: [
        { id: '1', created: true, subject: 'Before the binding', at: 1000, end: 1050 },
        { id: '1', created: true, subject: 'After the binding', at: 9000, end: 9050 },
      ],
      known: ['m'],
    };
    const lists = { m: { '1': ['Before the binding', 1020] }, refactor: { '1': ['After the binding', 9020] } } as Files;
    expect(plain(attribute([moved], lists)).byList).toEqual({ m: ['m'], refactor: ['m'] });
  });

  it('a session resumed under another list and back: an update of the first list joins no create of the second', () => {
    // alpha's #1 made and started; resumed on beta, beta's #1 made and completed; back on alpha, alpha's #1 completed.
    const resumed: SessionTasks = {
      sessionId: 'r',
      seen: [{ id: '1', subject: 'Beta one', created: true }],
      writes: [
        { id: '1', created: true, subject: 'Alpha one', at: 1000, end: 1050 },
        { id: '1', created: false, at: 1100, end: 1150 },
        { id: '1', created: true, subject: 'Beta one', at: 5000, end: 5050 },
        { id: '1', created: false, at: 5100, end: 5150 },
        { id: '1', created: false, at: 9000, end: 9050 },
      ],
    };
    const lists = { alpha: { '1': ['Alpha one', 9020] }, beta: { '1': ['Beta one', 5120] } } as Files;
    expect(plain(attribute([resumed], lists))).toEqual({ byList: { alpha: ['r'], beta: ['r'] }, unsure: {} });
  });

  it("a session's own task, made and then changed, is not taken for another list's task of the same id written later", () => {
    // Its #1 made and completed hours ago in a list now gone; another project's list has a #1 of another subject, written since.
    const gone: SessionTasks = {
      sessionId: 'g',
      seen: [],
      writes: [
        { id: '1', created: true, subject: 'Write the migration', at: 1000, end: 1050 },
        { id: '2', created: true, subject: 'Run it on staging', at: 2000, end: 2050 },
        { id: '1', created: false, at: 3000, end: 3050 },
      ],
    };
    const lists = { web: { '1': ['Tag the release', 90_000] } } as Files;
    expect(plain(attribute([gone], lists))).toEqual({ byList: {}, unsure: {} });
  });

  it('a worker that only updated a task: the list whose file its update wrote', () => {
    const worker: SessionTasks = {
      sessionId: 'w',
      seen: [],
      writes: [{ id: '2', created: false, at: 50_000, end: 50_040 }],
    };
    const lists = {
      nightly: { '2': ['Nightly B', 50_020] },
      other: { '2': ['Nightly B', 10_000] },
      later: { '2': ['X', 90_000] },
    } as Files;
    expect(plain(attribute([worker], lists))).toEqual({ byList: { nightly: ['w'] }, unsure: {} });
  });
});

describe('what a transcript says of its process (real 2.1.328 files, test/fixtures/claude-code-2.1.328/clear)', () => {
  const CLEAR = path.join(FIXTURES, 'clear');
  const stage = (name: string, id: string) => path.join(CLEAR, name, 'projects', '-tmp-tasks-test-qYucPo-home-work-web', `${id}.jsonl`);
  const facts = (file: string) => {
    const f = new SessionIndex(tmp()).facts(file);
    return { opensWithClear: f.opensWithClear, processSession: f.processSession, firstOfProcess: f.firstOfProcess, forkOf: f.forkOf };
  };
  const FIRST = 'fbaf346a-8fb2-4d62-8d89-d750e50f2c63';

  it('a session /clear began opens with the command; once it has had a turn, its entries name the process first session', () => {
    expect(facts(stage('3-cleared', 'e2b6a608-72c2-4ce6-a2cb-8fe7c0496900'))).toEqual({
      opensWithClear: true,
      processSession: undefined,
      firstOfProcess: undefined,
      forkOf: undefined,
    });
    expect(facts(stage('4-after-turn', 'e2b6a608-72c2-4ce6-a2cb-8fe7c0496900'))).toMatchObject({
      opensWithClear: true,
      processSession: 'dcfe5a82-0f7d-4f89-8887-6a09f4cc6b9b',
    });
    expect(facts(path.join(CLEAR, 'facts', '438cc1df-180e-4197-b97c-6bd8fe384f54.jsonl'))).toMatchObject({
      opensWithClear: true,
      processSession: FIRST,
    });
  });

  it("a turn's request, written after the entries naming the process, can push them out of the tail read: its first turn's name it", () => {
    const dir = tmp();
    const file = path.join(dir, 'e2b6a608-72c2-4ce6-a2cb-8fe7c0496900.jsonl');
    // The next request's shape (tools and system prompt, ~40 KB in the real file) after the tool's result.
    const shape = { type: 'api-request-shape', shape: 'x'.repeat(40_000), sessionId: 'e2b6a608-72c2-4ce6-a2cb-8fe7c0496900' };
    fs.writeFileSync(
      file,
      `${fs.readFileSync(stage('4-after-turn', 'e2b6a608-72c2-4ce6-a2cb-8fe7c0496900'), 'utf8')}${JSON.stringify(shape)}\n`,
    );
    expect(facts(file)).toMatchObject({ opensWithClear: true, processSession: 'dcfe5a82-0f7d-4f89-8887-6a09f4cc6b9b' });
  });

  it("a process's first session names itself; a headless run names nothing", () => {
    expect(facts(stage('2-first-turn', 'dcfe5a82-0f7d-4f89-8887-6a09f4cc6b9b'))).toEqual({
      opensWithClear: false,
      processSession: undefined,
      firstOfProcess: true,
      forkOf: undefined,
    });
    expect(facts(stage('2-first-turn', '151dc66d-23a5-4757-b8f4-1467705873a7'))).toEqual({
      opensWithClear: false,
      processSession: undefined,
      firstOfProcess: undefined,
      forkOf: undefined,
    });
  });

  it("a fork of a session still at work has its own prompt, after the entry Claude Code writes to close the parent's open turn", () => {
    // test/fixtures/claude-code-2.1.328/gone/forked-live: the fork's copies end in a turn still
    // open, then a `<synthetic>` "No response requested.", then the fork's own prompt.
    const file = path.join(FIXTURES, 'gone', 'forked-live', 'projects', '-tmp-fk-w-p', '0ea1b2eb-1961-46fa-9b97-f1ced9375f7a.jsonl');
    expect(fs.readFileSync(file, 'utf8')).toContain('"model":"<synthetic>"');
    const f = new SessionIndex(tmp()).facts(file);
    expect({ forkOf: f.forkOf, prompt: f.prompt, lastPrompt: f.lastPrompt }).toEqual({
      forkOf: 'd3f0527f-93a2-40ee-84e5-09195dc51f82',
      prompt: 'follow the plan',
      lastPrompt: 'follow the plan',
    });
  });

  it("a fork (--resume --fork-session) is not a /clear: its copies of the parent's entries name the parent's process, and count for nothing", () => {
    expect(facts(path.join(CLEAR, 'facts', '856b5dde-copies-only.jsonl'))).toEqual({
      opensWithClear: false,
      processSession: undefined,
      firstOfProcess: undefined,
      forkOf: FIRST,
    });
    // After its own turn, it names itself: the first session of its own process.
    expect(facts(path.join(CLEAR, 'facts', '856b5dde-3563-48da-9a45-ccf4e42aebd5.jsonl'))).toEqual({
      opensWithClear: false,
      processSession: undefined,
      firstOfProcess: true,
      forkOf: FIRST,
    });
  });
});

describe('the sessions of each running process (/clear)', () => {
  /** Times in minutes, as the stamps' milliseconds. */
  const stamps = (list: Array<[string, number, number, boolean]>) =>
    list.map(([sessionId, first, last, ended]) => ({ sessionId, firstActivity: first * 60_000, lastActivity: last * 60_000, ended }));
  const min = (m: number) => m * 60_000;

  it('the file names a session /clear began: the earlier ones of the process are replaced, by times alone', () => {
    const list = stamps([
      ['before-start', 1, 9, true],
      ['first', 11, 20, true],
      ['new', 21, 22, false],
    ]);
    const opened = list.map((s) => (s.sessionId === 'new' ? { ...s, opensWithClear: true } : s));
    const found = sessionsOfProcesses([{ pid: 7, cwd: '/p', sessionId: 'new', startedAt: min(10) }], () => opened);
    expect(found).toEqual([{ pid: 7, sessionId: 'new', fileSessionId: 'new', replaced: ['first'], proof: { first: 'times' } }]);
    // A session that does not open with /clear began its process: what ended before it is another's.
    expect(sessionsOfProcesses([{ pid: 7, cwd: '/p', sessionId: 'new', startedAt: min(10) }], () => list)[0]).toMatchObject({
      replaced: [],
    });
  });

  it('two sessions of one folder, one ending as the other begins, no /clear: nothing is replaced', () => {
    // A headless run ended in the folder while an interactive session sat idle; then its first prompt.
    const running = [{ pid: 7, cwd: '/p', sessionId: 'mine', startedAt: min(10) }];
    const other = { sessionId: 'other', firstActivity: min(11), lastActivity: min(12), ended: true };
    // Its first turn named itself as its process's first session.
    const named = sessionsOfProcesses(running, () => [
      other,
      { sessionId: 'mine', firstActivity: min(12), lastActivity: min(13), ended: false, firstOfProcess: true },
    ]);
    expect(named[0]).toMatchObject({ sessionId: 'mine', replaced: [] });
    // Before its first prompt it has no transcript: a /clear writes one at once, so none began it.
    expect(sessionsOfProcesses(running, () => [other])[0]).toMatchObject({ sessionId: 'mine', replaced: [] });
  });

  it('the same process seen on a session before: that session is replaced, sure, whatever the transcripts say', () => {
    const found = sessionsOfProcesses([{ pid: 7, cwd: '/p', sessionId: 'b', startedAt: min(10), seen: ['a'] }], () =>
      stamps([
        ['a', 11, 20, true],
        ['b', 20, 21, false],
      ]),
    );
    expect(found[0]).toMatchObject({ sessionId: 'b', replaced: ['a'], proof: { a: 'process' } });
    // b opens with /clear, before its first turn; another session ended since the process started: not its.
    const cleared = sessionsOfProcesses([{ pid: 7, cwd: '/p', sessionId: 'b', startedAt: min(10), seen: ['a'] }], () => [
      { sessionId: 'run', firstActivity: min(10.5), lastActivity: min(10.8), ended: true },
      { sessionId: 'a', firstActivity: min(11), lastActivity: min(20), ended: true, firstOfProcess: true },
      { sessionId: 'b', firstActivity: min(20), lastActivity: min(20), ended: false, opensWithClear: true },
    ]);
    expect(cleared[0]).toMatchObject({ sessionId: 'b', replaced: ['a'], proof: { a: 'process' } });
    // Seen, though no transcript of it was read (it had none, or an old one).
    expect(sessionsOfProcesses([{ pid: 7, cwd: '/p', sessionId: 'b', startedAt: min(10), seen: ['a'] }], () => [])[0]).toMatchObject({
      replaced: ['a'],
      proof: { a: 'process' },
    });
  });

  it("the file kept the old id: the newer transcript begun since is the process's session", () => {
    const found = sessionsOfProcesses([{ pid: 7, cwd: '/p', sessionId: 'old', startedAt: min(10) }], () =>
      stamps([
        ['old', 11, 20, true],
        ['new', 21, 22, false],
      ]),
    );
    expect(found).toEqual([{ pid: 7, sessionId: 'new', fileSessionId: 'old', replaced: ['old'], proof: { old: 'times' } }]);
    // An old session that has not ended is the process's own still.
    const running = sessionsOfProcesses([{ pid: 7, cwd: '/p', sessionId: 'old', startedAt: min(10) }], () =>
      stamps([
        ['old', 11, 20, false],
        ['new', 21, 22, false],
      ]),
    );
    expect(running[0]).toMatchObject({ sessionId: 'old', replaced: [] });
  });

  it('two processes in one folder: nothing is attributed that either could own', () => {
    const found = sessionsOfProcesses(
      [
        { pid: 7, cwd: '/p', sessionId: 'a2', startedAt: min(10) },
        { pid: 8, cwd: '/p', sessionId: 'b1', startedAt: min(15) },
      ],
      () =>
        stamps([
          ['a1', 11, 12, true],
          ['x', 16, 17, true],
          ['a2', 18, 19, false],
          ['b1', 15.5, 19, false],
        ]).map((s) => (s.sessionId === 'a2' ? { ...s, opensWithClear: true } : s)),
    );
    expect(found[0]).toMatchObject({ pid: 7, sessionId: 'a2', replaced: ['a1'], proof: { a1: 'times' } });
    expect(found[1]).toMatchObject({ pid: 8, sessionId: 'b1', replaced: [] });
  });

  it('/clear while another session is live in the folder: the new transcript opens with /clear as the old one closes', () => {
    // Both processes started before either session's first prompt: start times cannot tell.
    const running = [
      { pid: 7, cwd: '/p', sessionId: 'a2', startedAt: min(10) },
      { pid: 8, cwd: '/p', sessionId: 'b1', startedAt: min(10.2) },
    ];
    const list = stamps([
      ['a1', 11, 20, true],
      ['b1', 11.5, 25, false],
      ['a2', 20, 26, false],
    ]);
    const opened = list.map((s) => (s.sessionId === 'a2' ? { ...s, opensWithClear: true } : s));
    const found = sessionsOfProcesses(running, () => opened);
    // Which session closed as it began is a matter of times: probably a1.
    expect(found[0]).toMatchObject({ pid: 7, sessionId: 'a2', replaced: ['a1'], proof: { a1: 'times' } });
    expect(found[1]).toMatchObject({ pid: 8, sessionId: 'b1', replaced: [] });
    // Without the /clear opening, and with nothing else to go by, nothing is attributed.
    expect(sessionsOfProcesses(running, () => list)[0]).toMatchObject({ replaced: [] });
  });

  it('the sessions one process ran all name its first (session_id): each /clear of the chain, whatever the times', () => {
    const running = [
      { pid: 7, cwd: '/p', sessionId: 'a3', startedAt: min(10) },
      { pid: 8, cwd: '/p', sessionId: 'b1', startedAt: min(10.2) },
    ];
    const found = sessionsOfProcesses(running, () => [
      { sessionId: 'a1', firstActivity: min(11), lastActivity: min(12), ended: true },
      { sessionId: 'a2', firstActivity: min(13), lastActivity: min(20), ended: true, processSession: 'a1', opensWithClear: true },
      { sessionId: 'b1', firstActivity: min(11.5), lastActivity: min(25), ended: false },
      { sessionId: 'a3', firstActivity: min(21), lastActivity: min(26), ended: false, processSession: 'a1', opensWithClear: true },
      // b's own earlier run, ended as a3 began: not a's, since a's sessions name a1.
      { sessionId: 'b0', firstActivity: min(10.5), lastActivity: min(21), ended: true, processSession: 'zz' },
    ]);
    expect(found[0]).toMatchObject({ pid: 7, sessionId: 'a3', replaced: ['a1', 'a2'], proof: { a1: 'transcripts', a2: 'transcripts' } });
    expect(found[1]).toMatchObject({ pid: 8, replaced: [] });
  });

  it('a process that resumed an older session, then /clear: the resumed session is named by the new one, whatever its age', () => {
    const found = sessionsOfProcesses([{ pid: 7, cwd: '/p', sessionId: 'new', startedAt: min(100) }], () => [
      { sessionId: 'old', firstActivity: min(1), lastActivity: min(101), ended: true, firstOfProcess: true },
      { sessionId: 'new', firstActivity: min(101), lastActivity: min(102), ended: false, processSession: 'old', opensWithClear: true },
    ]);
    expect(found[0]).toMatchObject({ sessionId: 'new', replaced: ['old'], proof: { old: 'transcripts' } });
  });

  it('two sessions ended as one /clear began: neither is taken', () => {
    const found = sessionsOfProcesses(
      [
        { pid: 7, cwd: '/p', sessionId: 'a2', startedAt: min(10) },
        { pid: 8, cwd: '/p', sessionId: 'b1', startedAt: min(10.2) },
      ],
      () => [
        { sessionId: 'a1', firstActivity: min(11), lastActivity: min(20), ended: true },
        { sessionId: 'c1', firstActivity: min(11.2), lastActivity: min(20), ended: true },
        { sessionId: 'b1', firstActivity: min(11.5), lastActivity: min(25), ended: false },
        { sessionId: 'a2', firstActivity: min(20), lastActivity: min(26), ended: false, opensWithClear: true },
      ],
    );
    expect(found[0]).toMatchObject({ sessionId: 'a2', replaced: [] });
  });
});

describe('Claude Code processes in /proc', () => {
  function fakeProc(root: string, pid: number, argv: string[], env: Record<string, string>, cwd: string, exe = '/usr/bin/sleep') {
    const dir = path.join(root, String(pid));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'cmdline'), `${argv.join('\0')}\0`);
    fs.writeFileSync(
      path.join(dir, 'environ'),
      `${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\0')}\0`,
    );
    fs.writeFileSync(path.join(dir, 'stat'), `${pid} (x) S ${Array.from({ length: 30 }, (_, i) => i + 1).join(' ')}`);
    fs.symlinkSync(cwd, path.join(dir, 'cwd'));
    fs.symlinkSync(exe, path.join(dir, 'exe'));
  }

  it('finds the native binary and the npm script, with their list variable, config folder and team; nothing else', () => {
    const root = tmp();
    fakeProc(root, 101, ['claude', '--allowedTools', 'x'], { CLAUDE_CODE_TASK_LIST_ID: 'shared', CLAUDE_CONFIG_DIR: '/c' }, '/work');
    fakeProc(
      root,
      102,
      ['node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js', '--team-name', 'My Team'],
      { HOME: '/home/me' },
      '/work',
    );
    fakeProc(root, 103, ['/opt/x/claude'], {}, '/', '/opt/x/claude');
    fakeProc(
      root,
      104,
      ['bash', '-c', 'cd /w && /root/node_modules/@anthropic-ai/claude-code-linux-x64/claude -p hi'],
      { CLAUDE_CONFIG_DIR: '/c' },
      '/',
    );
    fakeProc(root, 105, ['vim', 'claude.md'], { CLAUDE_CONFIG_DIR: '/c' }, '/');
    fs.mkdirSync(path.join(root, 'self'));
    const found = readClaudeProcesses(root).sort((a, b) => a.pid - b.pid);
    expect(found.map((p) => p.pid)).toEqual([101, 102, 103]);
    expect(found[0]).toMatchObject({ listVariable: 'shared', configDir: '/c', cwd: '/work', teamName: undefined, startTime: '19' });
    expect(found[1]).toMatchObject({ listVariable: undefined, configDir: '/home/me/.claude', teamName: 'My Team' });
  });

  it('reads the project folder CLAUDE_CODE_PROJECT_DIR_NAME names, only where Claude Code uses it', () => {
    const root = tmp();
    fakeProc(root, 111, ['claude'], { CLAUDE_CONFIG_DIR: '/c', CLAUDE_CODE_PROJECT_DIR_NAME: 'myproj' }, '/work');
    // No CLAUDE_CONFIG_DIR, or a name Claude Code refuses: the folder is named after the directory.
    fakeProc(root, 112, ['claude'], { HOME: '/home/me', CLAUDE_CODE_PROJECT_DIR_NAME: 'myproj' }, '/work');
    fakeProc(root, 113, ['claude'], { CLAUDE_CONFIG_DIR: '/c', CLAUDE_CODE_PROJECT_DIR_NAME: 'my.proj' }, '/work');
    const found = readClaudeProcesses(root).sort((a, b) => a.pid - b.pid);
    expect(found.map((p) => p.projectFolder)).toEqual(['myproj', undefined, undefined]);
  });

  it('finds the binary by any name an installer gives it, by its path or its executable; not the tools it runs itself as', () => {
    const root = tmp();
    const native = '/home/me/.local/share/claude/versions/2.1.328';
    // The native installer's versioned path, as a teammate is started (process.execPath).
    fakeProc(root, 201, [native, '--team-name', 'crew'], { CLAUDE_CONFIG_DIR: '/c' }, '/w', native);
    // The npm package's bin.
    fakeProc(root, 202, ['/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe', '-p', 'x'], { CLAUDE_CONFIG_DIR: '/c' }, '/w');
    // A link of the user's own naming: the executable says what it is (even replaced by an update meanwhile).
    fakeProc(
      root,
      203,
      ['cc', '--settings', '{"env":{"CLAUDE_CODE_TASK_LIST_ID":"nightly"}}'],
      { CLAUDE_CONFIG_DIR: '/c' },
      '/w',
      `${native} (deleted)`,
    );
    // Claude Code runs itself as ripgrep: a helper, not a session.
    fakeProc(root, 204, ['rg', '--files'], { CLAUDE_CONFIG_DIR: '/c' }, '/w', native);
    // A process whose environment marks it as started by Claude Code (a shell of its Bash tool) is not Claude Code.
    fakeProc(root, 205, ['bash'], { CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CONFIG_DIR: '/c' }, '/w', '/usr/bin/bash');
    fakeProc(root, 206, [native, '--resume', '2D483082-5EAA-461A-BFDF-3E104FBFEFF7'], { CLAUDE_CONFIG_DIR: '/c' }, '/w', native);
    fs.writeFileSync(path.join(root, 'stat'), 'cpu 1 2 3\nbtime 1000\n');
    const found = readClaudeProcesses(root).sort((a, b) => a.pid - b.pid);
    expect(found.map((p) => p.pid)).toEqual([201, 202, 203, 206]);
    expect(found[0]).toMatchObject({ teamName: 'crew', parentPid: 1, startedAt: 1000_000 + 190 });
    expect(found[2]).toMatchObject({ settingsFlag: '{"env":{"CLAUDE_CODE_TASK_LIST_ID":"nightly"}}' });
    expect(found[3]).toMatchObject({ sessionArg: '2d483082-5eaa-461a-bfdf-3e104fbfeff7', resumes: true });
  });

  it("passes over another user's processes by their folder's owner, before reading them", () => {
    const root = tmp();
    fakeProc(root, 301, ['claude'], { CLAUDE_CONFIG_DIR: '/c' }, '/w');
    const owner = fs.statSync(path.join(root, '301')).uid;
    expect(readClaudeProcesses(root, owner).map((p) => p.pid)).toEqual([301]);
    // Another user (not root) sees none of them.
    expect(readClaudeProcesses(root, owner + 1)).toEqual([]);
  });
});

describe('signs of life, and whose owners are gone', () => {
  /** A config with the named list and its session's transcript, as the real run left them; the session long over. */
  function world(extra: Partial<ProcessProbe> = {}) {
    const config = tmp();
    const list = path.join(config, 'tasks', 'shared-list');
    fs.cpSync(path.join(FIXTURES, 'sessions', 'shared-list'), list, { recursive: true });
    const project = path.join(config, 'projects', '-work-p');
    fs.mkdirSync(project, { recursive: true });
    const transcript = path.join(project, `${NAMED_ID}.jsonl`);
    fs.copyFileSync(NAMED, transcript);
    // The files as the run left them: created during the session, which is an hour past.
    const start = Date.parse('2026-12-01T15:02:22.670Z');
    for (const f of fs.readdirSync(list)) fs.utimesSync(path.join(list, f), (start + 5000) / 1000, (start + 5000) / 1000);
    const probe: ProcessProbe = {
      startTime: () => undefined,
      domain: () => undefined,
      claudeProcess: () => undefined,
      claudeProcesses: () => [],
      ...extra,
    };
    const index = new SessionIndex(config, { probe, now: () => start + 3600_000 });
    return { config, list, transcript, index, start };
  }

  it('a named list knows its session only when asked deep; it is over, so its owners are gone', () => {
    const { index } = world();
    expect(sessionsOfList(index, 'shared-list').map((s) => s.sessionId)).toEqual([]);
    expect(sessionsOfList(index, 'shared-list', { deep: true }).map((s) => s.sessionId)).toEqual([NAMED_ID]);
    expect(goneOwners(index, 'shared-list')).toBeUndefined();
    expect(goneOwners(index, 'shared-list', () => new Set(), { deep: true })?.why).toBe('session f7f775d4 ended');
  });

  it('a transcript written within ten minutes without its end is a live session', () => {
    const { transcript, start, config } = world();
    const text = fs.readFileSync(transcript, 'utf8').trimEnd().split('\n');
    fs.writeFileSync(transcript, `${text.slice(0, -1).join('\n')}\n`); // no cost-state: not ended
    const at = (start + 3600_000 - 9 * 60_000) / 1000;
    fs.utimesSync(transcript, at, at);
    const probe: ProcessProbe = { startTime: () => undefined, domain: () => undefined, claudeProcesses: () => [] };
    const index = new SessionIndex(config, { probe, now: () => start + 3600_000 });
    const sessions = sessionsOfList(index, 'shared-list', { deep: true });
    expect(sessions[0]).toMatchObject({ state: 'live', liveBy: 'transcript' });
    expect(signsOfLife(index, 'shared-list', sessions)).toEqual({ why: 'session f7f775d4 is writing its transcript', busy: true });
    expect(goneOwners(index, 'shared-list', () => new Set(), { deep: true })).toBeUndefined();
    const later = new SessionIndex(config, { probe, now: () => start + 3600_000 + 2 * 60_000 });
    expect(goneOwners(later, 'shared-list', () => new Set(), { deep: true })).toBeDefined();
  });

  it('a quiet session with no live-session file is live while a Claude Code process that may be on it runs', () => {
    const { transcript, start, config } = world();
    const text = fs.readFileSync(transcript, 'utf8').trimEnd().split('\n');
    fs.writeFileSync(transcript, `${text.slice(0, -1).join('\n')}\n`); // no cost-state: not ended
    const quiet = (start + 3600_000 - 30 * 60_000) / 1000;
    fs.utimesSync(transcript, quiet, quiet);
    const proc = (p: Partial<ClaudeProcess>): ClaudeProcess => ({
      pid: 77,
      startTime: '1',
      startedAt: start - 2000,
      cwd: '/tmp/exp/p1/sub',
      listVariable: undefined,
      configDir: config,
      teamName: undefined,
      ...p,
    });
    const stateWith = (processes: ClaudeProcess[]) => {
      const probe: ProcessProbe = { startTime: () => undefined, domain: () => undefined, claudeProcesses: () => processes };
      const index = new SessionIndex(config, { probe, now: () => start + 3600_000 });
      const s = index.session(NAMED_ID);
      return { state: s?.state, liveBy: s?.liveBy, gone: goneOwners(index, 'shared-list', () => new Set(), { deep: true }) !== undefined };
    };
    expect(stateWith([proc({})])).toEqual({ state: 'live', liveBy: 'process', gone: false });
    // Started in that folder after the session began, with no --resume: a new session of its own.
    expect(stateWith([proc({ startedAt: start + 60_000 })])).toMatchObject({ state: 'ended', gone: true });
    expect(stateWith([proc({ startedAt: start + 60_000, resumes: true })])).toMatchObject({ state: 'live' });
    expect(stateWith([proc({ startedAt: start + 60_000, sessionArg: NAMED_ID })])).toMatchObject({ state: 'live' });
    expect(stateWith([proc({ sessionArg: '00000000-0000-4000-8000-000000000000' })])).toMatchObject({ state: 'ended' });
    // Another folder, another config folder, or a helper another Claude Code process started: not its process.
    expect(stateWith([proc({ cwd: '/tmp/exp/p1' })])).toMatchObject({ state: 'ended' });
    expect(stateWith([proc({ configDir: '/elsewhere' })])).toMatchObject({ state: 'ended' });
    expect(stateWith([proc({ pid: 80 }), proc({ pid: 81, parentPid: 80, cwd: '/x' }), proc({ pid: 82, parentPid: 81 })])).toMatchObject({
      state: 'live',
    });
    expect(stateWith([proc({ pid: 81, parentPid: 80, cwd: '/x' }), proc({ pid: 82, parentPid: 81 })])).toMatchObject({ state: 'ended' });
  });

  it('a process with no live-session file may be on a session of the project folder its environment names', () => {
    const { transcript, config, start } = world();
    // The transcript where CLAUDE_CODE_PROJECT_DIR_NAME=myproj put it.
    const named = path.join(config, 'projects', 'myproj', path.basename(transcript));
    fs.mkdirSync(path.dirname(named));
    fs.renameSync(transcript, named);
    const mayBe = (p: Partial<ClaudeProcess>) => {
      const proc: ClaudeProcess = {
        pid: 77,
        startTime: '1',
        cwd: '/work/q',
        listVariable: undefined,
        configDir: config,
        teamName: undefined,
        ...p,
      };
      const probe: ProcessProbe = { startTime: () => undefined, domain: () => undefined, claudeProcesses: () => [proc] };
      const index = new SessionIndex(config, { probe, now: () => start + 3600_000 });
      return { live: index.mayBeLive(NAMED_ID, named), folders: [...index.sessionsAProcessMayBeOn().folders] };
    };
    expect(mayBe({ projectFolder: 'myproj' })).toEqual({ live: true, folders: ['myproj'] });
    expect(mayBe({})).toEqual({ live: false, folders: ['-work-q'] });
  });

  it('a Claude Code process started with --settings naming the list keeps it alive', () => {
    const proc: ClaudeProcess = {
      pid: 42,
      startTime: '1',
      cwd: '/work/elsewhere',
      listVariable: 'other',
      configDir: undefined,
      teamName: undefined,
      settingsFlag: ' {"env": {"CLAUDE_CODE_TASK_LIST_ID": "shared-list"}} ',
    };
    const { config } = world();
    const alive = (p: ClaudeProcess) => {
      const probe: ProcessProbe = {
        startTime: () => undefined,
        domain: () => undefined,
        claudeProcesses: () => [{ ...p, configDir: config }],
      };
      const index = new SessionIndex(config, { probe, settings: { home: '/nonexistent', uid: undefined } });
      return goneOwners(index, 'shared-list', () => new Set(), { deep: true }) === undefined;
    };
    expect(alive(proc)).toBe(true);
    // A settings file, by its path relative to where the process was started.
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'ci.json'), JSON.stringify({ env: { CLAUDE_CODE_TASK_LIST_ID: 'shared-list' } }));
    expect(alive({ ...proc, cwd: dir, settingsFlag: 'ci.json' })).toBe(true);
    expect(alive({ ...proc, settingsFlag: '{"env": {}}' })).toBe(false);
  });

  it('a Claude Code process naming the list in its environment, or a teammate of its team, keeps it alive', () => {
    const proc = (p: Partial<ClaudeProcess>): ClaudeProcess => ({
      pid: 42,
      startTime: '1',
      cwd: '/work/p',
      listVariable: undefined,
      configDir: undefined,
      teamName: undefined,
      ...p,
    });
    const cases: Array<[ClaudeProcess[], boolean]> = [
      [[proc({ listVariable: ' shared-list ' })], true],
      [[proc({ teamName: 'shared list' })], true],
      [[proc({ listVariable: 'other' })], false],
    ];
    for (const [processes, alive] of cases) {
      const { index, config } = world({ claudeProcesses: () => processes.map((p) => ({ ...p, configDir: config })) });
      expect(goneOwners(index, 'shared-list', () => new Set(), { deep: true }) === undefined).toBe(alive);
    }
    // A process of another config folder says nothing about this one.
    const { index } = world({ claudeProcesses: () => [proc({ listVariable: 'shared-list', configDir: '/elsewhere' })] });
    expect(goneOwners(index, 'shared-list', () => new Set(), { deep: true })).toBeDefined();
  });
});
