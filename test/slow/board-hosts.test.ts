import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NowPayload, OverviewPayload } from '../../src/board/board-protocol.js';
import { axe, browserAvailable, shot, useBoardBrowser } from '../helpers/board-browser.js';
import { BIN, baseEnv, ROOT, run } from '../helpers/cli.js';
import { pidsOf, type SshHost, sshAvailable, startSshd } from '../helpers/sshd.js';

/**
 * `tasks board -H alpha -H beta`: two hosts, each a real OpenSSH server on loopback with a
 * user of its own (test/helpers/sshd.ts), in one board, in a real browser. The binary is
 * run because ssh, the board's server and the hosts' processes are the point. The local
 * config folder is never made: the board of hosts reads and writes nothing here.
 * Screenshots go to $TASKS_BOARD_SCREENSHOTS when set (the guide's: docs/images).
 */
const AGENT = path.join(ROOT, 'test', 'helpers', 'agent-task.mjs');
const available = sshAvailable() && browserAvailable;

interface Board {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<number | null>;
}

function taskFile(host: SshHost, list: string, id: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(host.claudeDir, 'tasks', list, `${id}.json`), 'utf8'));
}

function seed(host: SshHost, list: string, tasks: Array<[string, string, string, string | undefined]>): void {
  const dir = path.join(host.claudeDir, 'tasks', list);
  fs.mkdirSync(dir, { recursive: true });
  for (const [id, subject, status, owner] of tasks) {
    const t = { id, subject, description: '', status, blocks: [], blockedBy: [], ...(owner ? { owner, activeForm: `${subject}…` } : {}) };
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(t, null, 2));
  }
  execFileSync('chown', ['-R', `${host.user}:`, host.claudeDir]);
}

/** An agent on the host, as the host's user: one change as Claude Code's task tools make it. */
function agentOn(host: SshHost, list: string, ...args: string[]): void {
  const dir = path.join(host.claudeDir, 'tasks', list);
  const quoted = [process.execPath, AGENT, dir, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  host.asUser(quoted);
}

describe.skipIf(!available)('tasks board -H: the boards of several hosts in one', () => {
  let alpha: SshHost;
  let beta: SshHost;
  /** beta's server once the first test has stopped it and started it again (the one startSshd started is gone). */
  let betaAgain: ChildProcess | undefined;
  let local: string;
  let env: Record<string, string>;
  // An action refused because its host is not reached is an answer the page shows (503), not an error of the page;
  // so is a read that was on its way to a host when the test killed it (502: the connection was lost before it answered),
  // or stopped it (504: nothing came back by the deadline).
  const b = useBoardBrowser({ console: /status of (409|502|503|504)/ });

  beforeAll(async () => {
    [alpha, beta] = [await startSshd(), await startSshd()];
    // One ssh config naming both machines, as a user's ~/.ssh/config would.
    const dir = fs.mkdtempSync('/tmp/tbh-');
    const config = path.join(dir, 'ssh_config');
    const aliases = (host: SshHost, name: string, down: string) =>
      fs
        .readFileSync(path.join(host.dir, 'ssh_config'), 'utf8')
        .replace(/^Host box$/m, `Host ${name}`)
        .replace(/^Host box-down$/m, `Host ${down}`);
    fs.writeFileSync(config, `${aliases(alpha, 'alpha', 'alpha-down')}\n${aliases(beta, 'beta', 'beta-down')}`);
    const runDir = path.join(dir, 'run');
    fs.mkdirSync(runDir, { mode: 0o700 });
    env = { TASKS_SSH_COMMAND: `ssh -F ${config}`, XDG_RUNTIME_DIR: runDir, TASKS_SSH_TIMEOUT: '5', USER: 'carol' };
    local = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-board-hosts-')), 'claude');
    // The same list id on both machines: two lists, one on each.
    seed(alpha, 'web', [
      ['1', 'Deploy the API', 'in_progress', 'agent-alpha'],
      ['2', 'Write the release notes', 'pending', undefined],
    ]);
    seed(beta, 'web', [
      ['1', 'Train the ranking model', 'pending', undefined],
      ['2', 'Index the corpus', 'in_progress', 'agent-beta'],
    ]);
    seed(beta, 'etl', [['1', 'Load the nightly dump', 'completed', 'agent-beta']]);
  }, 120_000);

  afterAll(async () => {
    betaAgain?.kill('SIGKILL');
    alpha?.stop();
    beta?.stop();
  });

  async function startBoard(args: string[]): Promise<Board> {
    const child = spawn(process.execPath, [BIN, 'board', '--json', ...args], {
      env: baseEnv(local, env),
      cwd: os.tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      // Two hosts to reach and, the first time, this build to copy to each: at load 8, that takes a while.
      const timer = setTimeout(() => reject(new Error(`no URL; stderr: ${stderr}`)), 90_000);
      child.stdout?.on('data', () => {
        try {
          resolve((JSON.parse(stdout) as { url: string }).url);
          clearTimeout(timer);
        } catch {}
      });
      void ended.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the board exited (${code}); stderr: ${stderr}`));
      });
    });
    return {
      url,
      child,
      stderr: () => stderr,
      stop: async () => {
        child.kill('SIGTERM');
        return ended;
      },
    };
  }

  const overviewOf = (p: Page) => p.evaluate(async () => (await (await fetch('api/overview')).json()) as OverviewPayload);
  const nowOf = (p: Page) => p.evaluate(async () => (await (await fetch('api/now')).json()) as NowPayload);

  it('shows each host as a group, the Now view across both, live; acts on the host of the list; a host gone is a banner', async () => {
    const board = await startBoard(['-H', 'alpha', '-H', 'beta']);
    try {
      const page = await b.page(board.url);
      // The sidebar: a group per host, in the order named, each with its own lists (the same id on both is two lists).
      await page.locator('.host-group[data-host="beta"] .list-item').nth(1).waitFor({ timeout: 30_000 });
      const groups = await page.$$eval('.host-group', (els) =>
        els.map((e) => ({
          host: e.getAttribute('data-host'),
          headings: [...e.querySelectorAll('.project-name')].map((i) => i.textContent),
          lists: [...e.querySelectorAll('.list-item')].map((i) => i.getAttribute('data-list')),
        })),
      );
      expect(groups).toEqual([
        { host: 'alpha', headings: ['No known session'], lists: ['h0-web'] },
        { host: 'beta', headings: ['No known session'], lists: expect.arrayContaining(['h1-web', 'h1-etl']) },
      ]);
      const overview = await overviewOf(page);
      expect(overview.hosts?.map((h) => [h.label, h.state])).toEqual([
        ['alpha', 'live'],
        ['beta', 'live'],
      ]);
      // The Now view: the work in progress on both machines, each naming its host.
      const work = page.locator('.now-work');
      await expect.poll(async () => work.count(), { timeout: 20_000 }).toBe(2);
      const working = await page.$$eval('.now-work', (els) =>
        els.map((e) => `${e.querySelector('.host-chip')?.textContent} ${e.querySelector('.now-subject')?.textContent}`).sort(),
      );
      expect(working).toEqual(['alpha Deploy the API…', 'beta Index the corpus…']);
      await shot(page, 'board-hosts-now');
      expect(await axe(page)).toEqual([]);

      // An agent on beta starts a task: the page shows it within a few seconds, under beta.
      agentOn(
        beta,
        'etl',
        'create',
        'Vacuum the warehouse',
        JSON.stringify({ status: 'in_progress', owner: 'agent-beta', activeForm: 'Vacuuming the warehouse' }),
      );
      await page.locator('.now-work[data-list="h1-etl"] .now-subject', { hasText: 'Vacuuming the warehouse' }).waitFor({ timeout: 15_000 });

      // Assign to me on beta's web list, task 1: written on beta, as beta's user; alpha's task 1 of its own web list untouched.
      const alphaBefore = fs.readFileSync(path.join(alpha.claudeDir, 'tasks', 'web', '1.json'), 'utf8');
      await page.locator('.host-group[data-host="beta"] .list-item[data-list="h1-web"]').click();
      // The list's head names its host.
      await page.locator('.head-meta .tag.host', { hasText: 'host beta' }).waitFor({ timeout: 10_000 });
      await page.locator('.card[data-task="1"]').first().click();
      await page
        .getByRole('button', { name: /assign to me/i })
        .first()
        .click();
      await expect.poll(() => taskFile(beta, 'web', '1').status, { timeout: 15_000 }).toBe('in_progress');
      expect(taskFile(beta, 'web', '1').owner).toBe(beta.user);
      expect(fs.readFileSync(path.join(alpha.claudeDir, 'tasks', 'web', '1.json'), 'utf8')).toBe(alphaBefore);
      expect(fs.existsSync(local)).toBe(false);

      // beta goes away (its server and every process of its user): a banner names it; alpha goes on, live.
      for (const pid of pidsOf((p) => p.ppid === beta.sshdPid || p.user === beta.user)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
      process.kill(beta.sshdPid, 'SIGKILL');
      await page.locator('.hosts-banner .host-down[data-host="beta"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('.hosts-banner').textContent()).toMatch(/Host beta is not reached since .*: /);
      // beta's lists are off the page (nothing shown as live that is not); its own page says why.
      await expect.poll(async () => page.locator('.host-group[data-host="beta"] .list-item').count()).toBe(0);
      expect((await nowOf(page)).working.map((w) => w.host)).toEqual(['alpha']);
      // The list open was beta's: it says why it shows nothing.
      await page.locator('#view', { hasText: 'host beta is not reached' }).waitFor({ timeout: 5000 });
      await page.locator('#now-nav').click();
      await page.locator('.host-group[data-host="beta"] .host-name.down').waitFor();
      await shot(page, 'board-hosts-down', { toastMs: 8000 });
      expect(await axe(page)).toEqual([]);
      agentOn(
        alpha,
        'web',
        'update',
        '2',
        JSON.stringify({ status: 'in_progress', owner: 'agent-alpha', activeForm: 'Writing the release notes' }),
      );
      await page
        .locator('.now-work[data-list="h0-web"] .now-subject', { hasText: 'Writing the release notes' })
        .waitFor({ timeout: 15_000 });
      // An action on beta now: refused at once, nothing sent.
      const refused = await page.evaluate(async () => {
        const res = await fetch('api/action', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ action: 'start', list: 'h1-web', id: '2', expect: { status: 'pending', owner: null } }),
        });
        return { status: res.status, body: await res.json() };
      });
      expect(refused.status).toBe(503);
      expect(refused.body.error.message).toMatch(/^host beta is not reached .*nothing was sent to it$/);
      // beta is back (its server started again, and left running for the tests after this one): the board finds it by itself,
      // and its lists come back.
      betaAgain = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', path.join(beta.dir, 'sshd_config')], { stdio: 'ignore' });
      await page.locator('.host-group[data-host="beta"] .list-item[data-list="h1-web"]').waitFor({ timeout: 60_000 });
      expect(await page.locator('#hosts-down').isHidden()).toBe(true);
      // Its Now view, once its board there has read its lists again.
      await expect
        .poll(async () => (await nowOf(page)).working.map((w) => `${w.host} ${w.list}`).sort(), { timeout: 15_000 })
        .toEqual(['alpha h0-web', 'beta h1-etl', 'beta h1-web']);
    } finally {
      expect(await board.stop()).toBe(0);
    }
    expect(fs.existsSync(local)).toBe(false);
  }, 240_000);

  it('opens on the list -l names, as its one host finds it (a short id there); no such list there is the error of that host', async () => {
    const session = '7c0ffee0-1111-4222-8333-444455556666';
    seed(beta, session, [['1', 'Review the schema', 'pending', undefined]]);
    const board = await startBoard(['-H', 'beta', '-l', '7c0ffee0']);
    try {
      expect(new URL(board.url).hash).toBe(`#list=h0-${session}`);
      const page = await b.page(board.url);
      await page.locator(`.list-item[data-list="h0-${session}"][aria-current="true"]`).waitFor({ timeout: 30_000 });
      await page.getByText('Review the schema').first().waitFor({ timeout: 30_000 });
    } finally {
      expect(await board.stop()).toBe(0);
    }
    const tasks = (args: string[]) => run(local, args, { env, timeoutMs: 60_000 });
    const missing = tasks(['-H', 'beta', '-l', 'nope', 'board']);
    expect(missing.code, missing.stderr).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^error: host beta: .*nope/);
    // Two hosts may each have a list of that name: which one is not guessed.
    const two = tasks(['-H', 'alpha', '-H', 'beta', '-l', 'web', 'board']);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/^error: board: -l and --session name a list on one host/);
    expect(fs.existsSync(local)).toBe(false);
  }, 180_000);

  it("a host whose board there stops answering (SIGSTOP): a read of it answered by the deadline, a banner saying since when; alpha's board goes on; back by itself", async () => {
    const feedsOf = (host: SshHost) =>
      pidsOf((p) => p.user === host.user).filter((pid) => {
        try {
          // The host's tasks (node), not the shells that started it: by its executable, as
          // Node 24 names its main thread "MainThread" (/proc/<pid>/comm).
          return (
            path.basename(fs.readlinkSync(`/proc/${pid}/exe`)) === 'node' &&
            fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('board-feed')
          );
        } catch {
          return false;
        }
      });
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    const board = await startBoard(['-H', 'alpha', '-H', 'beta']);
    const stopped: number[] = [];
    try {
      const page = await b.page(board.url);
      await page.locator('.host-group[data-host="beta"] .list-item[data-list="h1-web"]').waitFor({ timeout: 30_000 });
      const sshs = pidsOf((p) => p.ppid === board.child.pid);
      expect(sshs.length).toBeGreaterThanOrEqual(2);
      // beta's board there is stuck: its connection stays up, and nothing comes back.
      await expect.poll(() => feedsOf(beta).length, { timeout: 10_000 }).toBeGreaterThan(0);
      for (const pid of feedsOf(beta)) {
        process.kill(pid, 'SIGSTOP');
        stopped.push(pid);
      }
      const read = (list: string) =>
        page.evaluate(async (l) => {
          const t0 = Date.now();
          const res = await fetch(`api/list?list=${l}`);
          return { status: res.status, body: await res.json(), ms: Date.now() - t0 };
        }, list);
      const [silent, other] = await Promise.all([read('h1-web'), read('h0-web')]);
      // TASKS_SSH_TIMEOUT=5: the deadline is 5 + 5 s.
      expect(silent.status).toBe(504);
      expect(silent.ms).toBeLessThan(12_000);
      expect(silent.body.error.message).toMatch(/^host beta is not answering: nothing came back within 10s; /);
      expect(other.status).toBe(200);
      expect(other.ms).toBeLessThan(3000);
      // The banner says so; it goes once the host is dialled again and answers (a new board there), on the same page.
      const banner = page.locator('.hosts-banner .host-down[data-host="beta"]');
      const said = await Promise.race([
        banner.textContent({ timeout: 15_000 }),
        page
          .locator('#hosts-down')
          .waitFor({ state: 'hidden', timeout: 15_000 })
          .then(() => 'back already'),
      ]);
      expect(said).toMatch(
        /^Host beta is not answering since .*: not answering \(nothing came back within 10s\)\. It last answered at .*\./,
      );
      await page.locator('.host-group[data-host="beta"] .list-item[data-list="h1-web"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('#hosts-down').isHidden()).toBe(true);
      expect((await read('h1-web')).status).toBe(200);
      // The ssh of the stuck connection was ended, not left: only the new one runs for beta.
      expect(sshs.filter(alive).length).toBeLessThan(sshs.length);
      // The stuck board there, continued, finds its connection gone and ends: nothing left on the host.
      for (const pid of stopped) process.kill(pid, 'SIGCONT');
      await expect.poll(() => stopped.filter(alive), { timeout: 15_000 }).toEqual([]);
    } finally {
      for (const pid of stopped.filter(alive)) process.kill(pid, 'SIGCONT');
      const children = pidsOf((p) => p.ppid === board.child.pid);
      expect(await board.stop()).toBe(0);
      // Every ssh the board ran ends with it (the shared connection is ssh's own, kept for ControlPersist as for any -H command).
      await expect.poll(() => children.filter(alive), { timeout: 10_000 }).toEqual([]);
    }
  }, 180_000);

  it('refuses bad hosts as -H does: a bad name exit 2, no host reached exit 8, nothing listening', () => {
    const tasks = (args: string[]) => run(local, args, { env, timeoutMs: 60_000 });
    const bad = tasks(['board', '-H', 'ssh://alpha:70000']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')[0]).toBe('error: -H "ssh://alpha:70000": port 70000 is not 1-65535');
    const down = tasks(['board', '-H', 'alpha-down']);
    expect(down.code, down.stderr).toBe(8);
    expect(down.stdout).toBe('');
    expect(down.stderr).toMatch(/^error: host alpha-down: connection refused/);
    expect(fs.existsSync(local)).toBe(false);
  }, 120_000);
});
