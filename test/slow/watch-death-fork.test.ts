/**
 * A session dies holding #1 while its fork lives on the same list (the real Claude Code
 * 2.1.328's files, test/fixtures/claude-code-2.1.328/gone/forked-live, both sessions made
 * live again by processes standing for theirs). A fork goes on from its parent's work, so
 * #1 is not yet left unfinished: `watch --until` waits on (as `release --gone` leaves #1),
 * and once the fork is gone too, it ends with exit 6 naming both deaths and their tasks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv } from '../helpers/cli.js';
import { goneFixture } from '../helpers/gone-fixtures.js';
import { parseNdjson } from '../helpers/replay.js';
import { writeLiveSession } from '../helpers/session-files.mjs';

const PARENT = 'd3f0527f-93a2-40ee-84e5-09195dc51f82';
const FORK = '0ea1b2eb-1961-46fa-9b97-f1ced9375f7a';
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A process standing for Claude Code's on list rf: named claude, the list in its environment. */
function agent(config: string): ChildProcess & { pid: number } {
  const bin = path.join(config, 'bin');
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(bin);
    fs.symlinkSync(fs.realpathSync('/bin/sleep'), path.join(bin, 'claude'));
  }
  const child = spawn(path.join(bin, 'claude'), ['120'], {
    env: { ...process.env, CLAUDE_CODE_TASK_LIST_ID: 'rf', CLAUDE_CONFIG_DIR: config },
  });
  children.push(child);
  return child as ChildProcess & { pid: number };
}

async function waitFor(pred: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !pred(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a session dies holding work while its fork lives on the same list', () => {
  it('watch --until waits on while the fork lives, then ends naming both deaths', async () => {
    // The recording as of a moment ago, both sessions at work: their live-session files point at live processes.
    const w0 = goneFixture('forked-live', { endedAgoMs: 2_000 });
    const config = w0.config;
    fs.rmSync(path.join(config, 'sessions'), { recursive: true, force: true });
    const parent = agent(config);
    const fork = agent(config);
    const cwd = w0.live.cwd;
    writeLiveSession(config, {
      pid: parent.pid,
      sessionId: PARENT,
      cwd,
      status: 'busy',
      start: Date.now() - 60_000,
    });
    writeLiveSession(config, { pid: fork.pid, sessionId: FORK, cwd, status: 'busy', name: 'p-56', start: Date.now() - 50_000 });
    const watch = spawn(process.execPath, [BIN, '-l', 'rf', 'watch', '--until', 'all-completed', '--timeout', '60s', '--json'], {
      env: baseEnv(config),
      cwd: config,
    });
    children.push(watch);
    let out = '';
    let err = '';
    watch.stdout.on('data', (d) => (out += d));
    watch.stderr.on('data', (d) => (err += d));
    const closed = new Promise<number>((resolve) => watch.on('close', (c) => resolve(c ?? -1)));
    await waitFor(() => out.includes('"snapshot"'), 15_000);
    // The watch has seen both sessions alive (it looks every second).
    await new Promise((r) => setTimeout(r, 1500));
    parent.kill('SIGKILL');
    // Long enough for the watch to have noticed the death (within seconds, test/slow/watch-deaths.test.ts).
    await new Promise((r) => setTimeout(r, 5000));
    expect(watch.exitCode, err).toBe(null);
    expect(parseNdjson(out).some((e) => e.event === 'end')).toBe(false);
    fork.kill('SIGKILL');
    expect(await closed, err).toBe(6);
    const end = parseNdjson(out).at(-1);
    expect(end).toMatchObject({ event: 'end', reason: 'session-died' });
    const died = ((end?.died ?? []) as Array<{ sessionId: string; tasks: string[] }>).map((d) => [d.sessionId, d.tasks]).sort();
    expect(died).toEqual(
      [
        [FORK, ['2']],
        [PARENT, ['1']],
      ].sort(),
    );
  }, 60_000);
});
