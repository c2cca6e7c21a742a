import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewPayload } from '../../src/board/board-protocol.js';
import { type BoardRun, type EventStream, openEvents, request, startBoard } from '../helpers/board.js';
import { writeTask } from '../helpers/cli.js';
import { descendantsOf } from '../helpers/sshd.js';

/**
 * `tasks board -H alpha -H beta` when beta stays connected and stops answering: its
 * processes stopped (SIGSTOP), as a host whose tasks process is stuck, or whose link
 * stalled without closing. ssh is stood in for by a script that runs the host's command
 * here, as that host (as test/e2e/board-hosts.test.ts does), as a child (the script is
 * the local ssh, its children the host's), and that records each connection's pid; while `<host>.frozen` exists a new connection stops itself before
 * anything comes back, so that the host stays silent however often it is dialled, until
 * the test continues it (SIGCONT). TASKS_SSH_TIMEOUT=1: the deadline is 1 + 5 s.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-board-stuck-'));
const fakeSsh = path.join(root, 'fake-ssh');
fs.writeFileSync(
  fakeSsh,
  `#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -o|-p) shift 2 ;;
    *) shift ;;
  esac
done
dest="$1"
echo $$ >> "${root}/$dest.pids"
[ -e "${root}/$dest.frozen" ] && kill -STOP $$
HOME="${root}/$dest"; CLAUDE_CONFIG_DIR="$HOME/.claude"; export HOME CLAUDE_CONFIG_DIR
unset XDG_CACHE_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
# Not exec'd: this process is the local ssh, and what it runs is the host's.
sh -c "$2"
`,
  { mode: 0o755 },
);
const local = path.join(root, 'local', 'claude');
const env = { TASKS_SSH_COMMAND: fakeSsh, TASKS_SSH_TIMEOUT: '1', USER: 'carol' };
const DEADLINE_MS = 6000;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const pidsOf = (host: string): number[] => {
  const file = path.join(root, `${host}.pids`);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').map(Number) : [];
};
/** Every process of a host's connections, made so far: the ssh stand-ins and what each runs. */
const processesOf = (host: string): number[] => pidsOf(host).flatMap((p) => [p, ...descendantsOf(p)]);

async function api<T>(b: BoardRun, route: string, ms = 30_000): Promise<{ status: number; body: T; ms: number }> {
  const t0 = Date.now();
  const r = await Promise.race([
    request(b.port, `/${b.token}/${route}`),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${route}: no answer within ${ms} ms`)), ms)),
  ]);
  return { status: r.status, body: JSON.parse(r.body) as T, ms: Date.now() - t0 };
}

const hostState = (o: OverviewPayload, label: string) => o.hosts?.find((h) => h.label === label);

describe('tasks board -H: a host that stays connected and stops answering', () => {
  let board: BoardRun;
  let events: EventStream;
  /** What the test stopped: continued at the end whatever happens. */
  const stopped = new Set<number>();
  let seen: number[] = [];

  beforeAll(async () => {
    for (const host of ['alpha', 'beta'])
      writeTask(path.join(root, host, '.claude', 'tasks', 'web'), {
        id: '1',
        subject: `Work on ${host}`,
        description: '',
        status: 'pending',
        blocks: [],
        blockedBy: [],
      });
    board = await startBoard(local, ['-H', 'alpha', '-H', 'beta'], env, root);
    events = await openEvents(board);
    // Each host's lists come with its first overview.
    await events.next((e) => e.event === 'overview' && (e.data as OverviewPayload).lists.length === 2, { ms: 15_000 });
  }, 60_000);
  afterAll(async () => {
    events?.close();
    fs.rmSync(path.join(root, 'beta.frozen'), { force: true });
    for (const p of [...stopped, ...processesOf('beta')]) if (alive(p)) process.kill(p, 'SIGCONT');
    await board?.stop();
  });

  it("answers a read of the silent host within the deadline, says since when it is silent, and serves the other host's board all along", async () => {
    seen = pidsOf('beta');
    fs.writeFileSync(path.join(root, 'beta.frozen'), '');
    const frozenAt = Date.now();
    // The host's side of its connection: the ssh stand-in itself runs on, as a local ssh does.
    for (const p of seen.flatMap((s) => descendantsOf(s)))
      if (alive(p)) {
        process.kill(p, 'SIGSTOP');
        stopped.add(p);
      }
    const read = api<{ ok: boolean; error: { code: string; message: string } }>(board, 'api/list?list=h1-web');
    // alpha is asked while beta's read waits: answered as ever.
    const other = await api<{ tasks: Array<{ subject: string }> }>(board, 'api/list?list=h0-web');
    expect(other.status).toBe(200);
    expect(other.body.tasks.map((t) => t.subject)).toEqual(['Work on alpha']);
    expect(other.ms).toBeLessThan(2000);
    const silent = await read;
    expect(silent.status).toBe(504);
    expect(silent.ms).toBeLessThan(DEADLINE_MS + 2000);
    expect(silent.body.error.code).toBe('unreachable');
    expect(silent.body.error.message).toMatch(/^host beta is not answering: nothing came back within 6s; /);
    const o = (await api<OverviewPayload>(board, 'api/overview')).body;
    const beta = hostState(o, 'beta');
    expect(beta).toMatchObject({ state: 'down', silent: true, message: 'host beta: not answering (nothing came back within 6s)' });
    expect(beta?.answeredAt).toBeLessThanOrEqual(frozenAt + 1000);
    expect(beta?.answeredAt).toBeGreaterThan(frozenAt - 10_000);
    expect(hostState(o, 'alpha')?.state).toBe('live');
    expect(o.lists.map((l) => l.id)).toEqual(['h0-web']);
    // Asked again while silent: answered at once, nothing sent to it.
    const again = await api<{ error: { message: string } }>(board, 'api/list?list=h1-web');
    expect(again.status).toBe(503);
    expect(again.ms).toBeLessThan(1000);
    expect((await api(board, 'api/list?list=h0-web')).status).toBe(200);
  });

  it('does not leak the silent connection: its ssh is ended and the host dialled again', async () => {
    // The stuck connection's ssh is ended by the board; a new one is dialled (and, the host still frozen, stays silent).
    const stuck = seen.at(-1) as number;
    expect([...stopped].length).toBeGreaterThan(0);
    expect(stopped.has(stuck)).toBe(false);
    await expect.poll(() => alive(stuck) && !zombie(stuck), { timeout: 5000 }).toBe(false);
    await expect.poll(() => pidsOf('beta').length, { timeout: 10_000 }).toBeGreaterThan(seen.length);
    // Dialled while the host is frozen: still silent, and said so.
    expect(hostState((await api<OverviewPayload>(board, 'api/overview')).body, 'beta')?.state).toBe('down');
  });

  it('is back by itself once the host answers again (SIGCONT), on the page that stayed open', async () => {
    const from = events.events.length;
    fs.rmSync(path.join(root, 'beta.frozen'));
    for (const p of [...stopped, ...processesOf('beta')]) if (alive(p)) process.kill(p, 'SIGCONT');
    const back = await events.next((e) => e.event === 'overview' && (e.data as OverviewPayload).lists.some((l) => l.id === 'h1-web'), {
      from,
      ms: 15_000,
    });
    expect(hostState(back.data as OverviewPayload, 'beta')?.state).toBe('live');
    const read = await api<{ tasks: Array<{ subject: string }> }>(board, 'api/list?list=h1-web');
    expect(read.status).toBe(200);
    expect(read.body.tasks.map((t) => t.subject)).toEqual(['Work on beta']);
  });

  it('leaves no ssh and no host process behind when it stops', async () => {
    const all = [...new Set([...processesOf('alpha'), ...processesOf('beta'), ...stopped])];
    expect(all.some(alive)).toBe(true);
    events.close();
    const ended = await board.stop();
    expect(ended.code, ended.stderr).toBe(0);
    await expect.poll(() => all.filter((p) => alive(p) && !zombie(p)), { timeout: 10_000 }).toEqual([]);
  });
});

function zombie(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? false;
  } catch {
    return false;
  }
}
