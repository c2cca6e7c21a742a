/**
 * The board's Now view dates each entry by when it happened, as the records say (a
 * session's end as `tasks lists` has it, a task file's time), not by when this board
 * first looked: an agent gone minutes before the board started reads as minutes old, and
 * the same after a restart. What no record dates (a cycle of blockers) is marked as only
 * seen then. The board is the built binary, asked over HTTP as the page asks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NowPayload } from '../../src/board/board-protocol.js';
import { type BoardRun, openEvents, startBoard } from '../helpers/board.js';
import { run, tempConfig, writeTask } from '../helpers/cli.js';
import { writeTranscript } from '../helpers/session-files.mjs';

const S = '0b2d0b0b-8d3b-4c55-a1e0-6b2f0c8d9e31';
const boards: BoardRun[] = [];

afterEach(async () => {
  for (const b of boards.splice(0)) await b.stop('SIGKILL');
});

async function board(config: string): Promise<BoardRun> {
  const b = await startBoard(config, [], { USER: 'carol' });
  boards.push(b);
  return b;
}

/** The Now view as the board sends it, once it passes `test`. */
async function nowWhen(b: BoardRun, test: (d: NowPayload) => boolean): Promise<NowPayload> {
  const events = await openEvents(b);
  try {
    const now = await events.next((e) => e.event === 'now' && test(e.data as unknown as NowPayload), { ms: 10_000 });
    return now.data as unknown as NowPayload;
  } finally {
    events.close();
  }
}

/** A task file written as of `at`, in place at once (a rename): as a change an agent made that long ago reaches the board. */
function writeDated(dir: string, t: Record<string, unknown>, at: number): void {
  const tmp = path.join(path.dirname(dir), `${t.id}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(t, null, 2));
  fs.utimesSync(tmp, at / 1000, at / 1000);
  fs.renameSync(tmp, path.join(dir, `${t.id}.json`));
}

function task(dir: string, id: string, over: Record<string, unknown>): void {
  writeTask(dir, { id, subject: `Step ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...over });
}

/** A session that ended four minutes ago holding #1; another list with two tasks. */
function world(): { config: string; endedAt: number } {
  const config = tempConfig();
  const now = Date.now();
  const cwd = path.join(config, 'home', 'work', 'api');
  fs.mkdirSync(cwd, { recursive: true });
  const end = now - 4 * 60_000;
  writeTranscript(config, { sessionId: S, cwd, start: now - 10 * 60_000, end });
  const list = path.join(config, 'tasks', S);
  task(list, '1', { status: 'in_progress', owner: 'worker-1' });
  const then = new Date(now - 5 * 60_000);
  fs.utimesSync(path.join(list, '1.json'), then, then);
  const work = path.join(config, 'tasks', 'work');
  task(work, '1', {});
  task(work, '2', {});
  // When the session ended, as its transcript says (its run's end), and as `tasks lists` dates
  // it (by its file's time, which keeps it to the millisecond).
  const lists = JSON.parse(run(config, ['lists', '--json']).stdout) as Array<{ id: string; state: string; lastActivity: string }>;
  const row = lists.find((l) => l.id === S);
  expect(row?.state).toBe('ended');
  expect(Math.abs(Date.parse(row?.lastActivity ?? '') - end)).toBeLessThanOrEqual(1);
  return { config, endedAt: end };
}

describe("tasks board: the Now view's times", () => {
  it("dates an agent gone by its session's end, also after a restart", async () => {
    const { config, endedAt } = world();
    expect(Date.now() - endedAt).toBeGreaterThan(3 * 60_000);
    const died = [{ type: 'agent-died', list: S, since: endedAt, seen: false }];
    const first = await nowWhen(await board(config), (d) => d.ready);
    expect(first.died).toMatchObject(died);
    // A board started again says the same time, not its own start.
    await boards.splice(0)[0]?.stop('SIGTERM');
    const again = await nowWhen(await board(config), (d) => d.ready);
    expect(again.died).toMatchObject(died);
  });

  it("dates a task's change by its file's time, and a deletion, which leaves no file, as only seen", async () => {
    const { config } = world();
    const work = path.join(config, 'tasks', 'work');
    const b = await board(config);
    await nowWhen(b, (d) => d.ready);
    const at = Date.now() - 2 * 60_000;
    writeDated(
      work,
      { id: '1', subject: 'Step 1', description: '', status: 'in_progress', owner: 'worker-2', blocks: [], blockedBy: [] },
      at,
    );
    const started = await nowWhen(b, (d) => d.feed.some((f) => f.task === '1'));
    expect(started.feed).toMatchObject([{ list: 'work', kind: 'change', task: '1', text: '"Step 1" started (worker-2)', seen: false }]);
    expect(Math.abs((started.feed[0]?.at ?? 0) - fs.statSync(path.join(work, '1.json')).mtimeMs)).toBeLessThan(2);

    const before = Date.now();
    fs.rmSync(path.join(work, '2.json'));
    const gone = await nowWhen(b, (d) => d.feed.some((f) => f.task === '2'));
    // Newest first by when it happened: the deletion (seen now) above the start (two minutes old).
    expect(gone.feed).toMatchObject([
      { kind: 'change', task: '2', text: '"Step 2" deleted', seen: true },
      { kind: 'change', task: '1', seen: false },
    ]);
    expect(gone.feed[0]?.at).toBeGreaterThanOrEqual(before);
  });
});
