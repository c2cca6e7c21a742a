import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { NowPayload } from '../../src/board/board-protocol.js';
import { type BoardRun, request, startBoard } from '../helpers/board.js';
import { goneFixture } from '../helpers/gone-fixtures.js';
import { procStart } from '../helpers/session-files.mjs';

/**
 * The board's Now with no tab open: a script polling `api/now` (or a tab opened later)
 * sees an agent's end within a round of the Now view (10 s), as a tab kept open does,
 * though nothing but the Now view reads the sessions. The real Claude Code 2.1.328's files
 * of a solo agent holding #1 with no owner (test/fixtures/claude-code-2.1.328/gone), its
 * live-session file pointed at a running process named `claude` that is then killed.
 */
const children: ChildProcess[] = [];
let board: BoardRun | undefined;
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await board?.stop();
});

async function nowOf(b: BoardRun): Promise<NowPayload> {
  const r = await request(b.port, `/${b.token}/api/now`);
  return JSON.parse(r.body) as NowPayload;
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('the board with no tab open', () => {
  it("api/now tells a killed agent's end within a round, not only once a tab is open", async () => {
    const child = spawn('sleep', ['600'], { argv0: 'claude', stdio: 'ignore', env: { ...process.env, CLAUDE_CODE_TASK_LIST_ID: 'solo' } });
    children.push(child);
    const pid = child.pid as number;
    const w = goneFixture('crashed-unowned', { pid, procStart: procStart(pid), endedAgoMs: 60_000 });
    board = await startBoard(w.config, [], { USER: 'carol' });
    const b = board;
    // Looked at, the agent alive: #1 in progress, nothing died.
    const first = await until('the Now view', async () => ((await nowOf(b)).ready ? nowOf(b) : undefined), 30_000);
    expect(first.working.find((l) => l.list === 'solo')?.tasks.map((t) => t.id)).toEqual(['1']);
    expect(first.died).toEqual([]);
    child.kill('SIGKILL');
    const killedAt = Date.now();
    const died = await until(
      'the agent-died event',
      async () => {
        const now = await nowOf(b);
        return now.died.length > 0 ? now : undefined;
      },
      25_000,
    );
    expect(died.died[0]).toMatchObject({ list: 'solo' });
    expect(died.working.find((l) => l.list === 'solo')?.tasks[0]).toMatchObject({ id: '1', ownerGone: true });
    // Within a round of the Now view (10 s) and the index's age (5 s), with time for a loaded machine.
    expect(Date.now() - killedAt).toBeLessThan(25_000);
  }, 90_000);
});
