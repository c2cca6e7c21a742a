import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListPayload, NowPayload, OverviewPayload } from '../../src/board/board-protocol.js';
import { type BoardRun, openEvents, postAction, request, startBoard } from '../helpers/board.js';
import { run, writeTask } from '../helpers/cli.js';

/**
 * `tasks board -H` with ssh stood in for by a script that runs the host's command here,
 * as that host (a home and a config folder of its own): the board's merging, routing and
 * refusals, fast. The real thing, over real sshds and in a browser, is
 * test/slow/board-hosts.test.ts. The binary is run: the board, the ssh processes and the
 * hosts' feeds are processes.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-board-hosts-'));
const fakeSsh = path.join(root, 'fake-ssh');
fs.writeFileSync(
  fakeSsh,
  `#!/bin/sh
# ssh, stood in for: its options skipped, the command run here as host "$dest".
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -o|-p) shift 2 ;;
    *) shift ;;
  esac
done
dest="$1"
case "$dest" in *-down) echo "ssh: connect to host $dest port 22: Connection refused" >&2; exit 255 ;; esac
# A host whose board says hello and then answers nothing (busy, or stuck): what it is asked is kept in a file.
case "$dest" in *-mute) printf '{"hello":{"pid":%s}}\n' "$$"; exec cat > "${root}/$dest.heard" ;; esac
# One whose pipes outlive it, as ssh's shared connection holds them until the host's command ends (here: never).
case "$dest" in *-held) printf '{"hello":{"pid":%s}}\n' "$$"; (trap '' TERM; exec sleep 600) & echo $! > "${root}/$dest.pid"; exec cat > /dev/null ;; esac
HOME="${root}/$dest"; CLAUDE_CONFIG_DIR="$HOME/.claude"; export HOME CLAUDE_CONFIG_DIR
unset XDG_CACHE_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
exec sh -c "$2"
`,
  { mode: 0o755 },
);
const local = path.join(root, 'local', 'claude');
const env = { TASKS_SSH_COMMAND: fakeSsh, USER: 'carol' };
const hostList = (host: string, list: string) => path.join(root, host, '.claude', 'tasks', list);
const task = (host: string, list: string, id: string) => JSON.parse(fs.readFileSync(path.join(hostList(host, list), `${id}.json`), 'utf8'));

function seed(host: string, list: string, tasks: Array<[string, string, string, string | undefined]>): void {
  for (const [id, subject, status, owner] of tasks)
    writeTask(hostList(host, list), { id, subject, description: '', status, blocks: [], blockedBy: [], ...(owner ? { owner } : {}) });
}

async function api<T>(b: BoardRun, route: string): Promise<{ status: number; body: T }> {
  const r = await request(b.port, `/${b.token}/${route}`);
  return { status: r.status, body: JSON.parse(r.body) as T };
}

describe('tasks board -H, its hosts stood in for', () => {
  let board: BoardRun;

  beforeAll(async () => {
    seed('alpha', 'web', [
      ['1', 'Deploy the API', 'in_progress', 'agent-alpha'],
      ['2', 'Write the notes', 'pending', undefined],
    ]);
    seed('beta', 'web', [['1', 'Train the model', 'pending', undefined]]);
    board = await startBoard(local, ['-H', 'alpha', '-H', 'beta', '-H', 'gamma-down'], env, root);
  }, 60_000);
  afterAll(async () => {
    await board?.stop();
  });

  it('merges the hosts: a list of the same id on each is two lists, each naming its host; a host down is said, not shown', async () => {
    const { body } = await api<OverviewPayload>(board, 'api/overview');
    expect(body.hosts?.map((h) => [h.label, h.state])).toEqual([
      ['alpha', 'live'],
      ['beta', 'live'],
      ['gamma-down', 'down'],
    ]);
    expect(body.hosts?.[2]?.message).toBe('host gamma-down: connection refused (no SSH server on that port?)');
    // The overview comes from each host's feed: once both have sent theirs.
    await expect
      .poll(
        async () => (await api<OverviewPayload>(board, 'api/overview')).body.lists.map((l) => `${l.host} ${l.id} ${l.shortId}`).sort(),
        {
          timeout: 10_000,
        },
      )
      .toEqual(['alpha h0-web web', 'beta h1-web web']);
    const list = await api<ListPayload>(board, 'api/list?list=h1-web');
    expect(list.status).toBe(200);
    expect(list.body.id).toBe('h1-web');
    expect(list.body.tasks.map((t) => t.subject)).toEqual(['Train the model']);
    expect(list.body.row?.host).toBe('beta');
  });

  it('spans the hosts in the Now view, each entry naming its host', async () => {
    const stream = await openEvents(board);
    try {
      const now = (await stream.next((e) => e.event === 'now' && (e.data as NowPayload).working.length > 0, { ms: 10_000 }))
        .data as NowPayload;
      expect(now.working.map((w) => [w.host, w.list, w.tasks.map((t) => t.subject)])).toEqual([['alpha', 'h0-web', ['Deploy the API']]]);
    } finally {
      stream.close();
    }
  });

  it('runs an action on the host of the list and nowhere else; a list of no host, or of a host down, is refused', async () => {
    const alphaBefore = fs.readFileSync(path.join(hostList('alpha', 'web'), '1.json'), 'utf8');
    const r = await postAction(board, { action: 'start', list: 'h1-web', id: '1', expect: { status: 'pending', owner: null } });
    expect(r.status, r.body).toBe(200);
    expect(task('beta', 'web', '1').status).toBe('in_progress');
    expect(fs.readFileSync(path.join(hostList('alpha', 'web'), '1.json'), 'utf8')).toBe(alphaBefore);
    // The host's own refusal, in its words: the card's state is no longer what it was.
    const stale = await postAction(board, { action: 'start', list: 'h1-web', id: '1', expect: { status: 'pending', owner: null } });
    expect(stale.status).toBe(409);
    for (const list of ['web', 'h7-web', 'h0-../x']) {
      const bad = await postAction(board, { action: 'start', list, id: '1', expect: { status: 'pending', owner: null } });
      expect(bad.status).toBe(400);
    }
    const down = await postAction(board, { action: 'start', list: 'h2-web', id: '1', expect: { status: 'pending', owner: null } });
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body).error.message).toMatch(
      /^host gamma-down is not reached \(connection refused .*\): nothing was sent to it$/,
    );
    expect((await request(board.port, `/${board.token}/api/list?list=web`)).status).toBe(400);
    expect(fs.existsSync(local)).toBe(false);
  });

  it('warned of the host not reached at the start, listened here only, and stops as a board stops', async () => {
    expect(board.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const ended = await board.stop();
    expect(ended.code).toBe(0);
    // --json: notes and warnings are JSON lines on stderr.
    const warnings = ended.stderr
      .split('\n')
      .filter((l) => l.startsWith('{"warning"'))
      .map((l) => JSON.parse(l).warning);
    expect(warnings).toEqual([
      {
        code: 'board_warning',
        message: 'host gamma-down: connection refused (no SSH server on that port?); the board tries it again by itself',
      },
    ]);
  });

  it('stops at once with a read under way that its host has not answered: the read is answered, the board ends 0', async () => {
    const mute = await startBoard(local, ['-H', 'x-mute'], env, root);
    const heard = path.join(root, 'x-mute.heard');
    const read = request(mute.port, `/${mute.token}/api/cost?list=h0-web`);
    // The read has reached the host, which will never answer it.
    await expect
      .poll(() => fs.existsSync(heard) && fs.readFileSync(heard, 'utf8').includes('"get":"api/cost"'), { timeout: 10_000 })
      .toBe(true);
    const ended = await mute.stop();
    expect(ended.code, ended.stderr).toBe(0);
    const answer = await read;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).error.message).toMatch(/^host x-mute: the board stopped before the host answered/);
  });

  it("ends when stopped, whoever still holds its host's connection", async () => {
    const held = await startBoard(local, ['-H', 'x-held'], env, root);
    const holder = Number(fs.readFileSync(path.join(root, 'x-held.pid'), 'utf8'));
    try {
      const ended = await held.stop();
      expect(ended.code, ended.stderr).toBe(0);
    } finally {
      process.kill(holder, 'SIGKILL');
    }
  });

  it('does not start when no host is reached: exit 8, each cause, nothing listening', () => {
    const r = run(local, ['board', '-H', 'a-down', '-H', 'b-down'], { env, timeoutMs: 30_000 });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      'error: no host reached: host a-down: connection refused (no SSH server on that port?); host b-down: connection refused (no SSH server on that port?)',
    );
  });

  it('takes its hosts from a hosts file (--hosts), checked as -H checks them', () => {
    const file = path.join(root, 'hosts');
    fs.writeFileSync(file, '# the fleet\nc-down\n');
    const down = run(local, ['board', `--hosts=${file}`], { env, timeoutMs: 30_000 });
    expect(down.code).toBe(8);
    expect(down.stderr.trim()).toBe('error: host c-down: connection refused (no SSH server on that port?)');
    fs.writeFileSync(file, 'c-down\n-oProxyCommand=x\n');
    const bad = run(local, ['board', `--hosts=${file}`], { env, timeoutMs: 30_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe(`error: --hosts: ${file} line 2: -H "-oProxyCommand=x": a host name does not start with "-"`);
    expect(fs.existsSync(local)).toBe(false);
  });
});
