/**
 * `tasks notify --to desktop` against a real notification daemon: Debian's dunst on its
 * own D-Bus session (dbus-run-session) and X display (Xvfb), read back with `dunstctl
 * history`. Through the built binary: notify-send is a process notify starts.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempConfig } from '../helpers/cli.js';
import { listWith, notifyEnv, taskOf } from '../helpers/notify.js';

const have = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const tools = ['Xvfb', 'dbus-run-session', 'dunst', 'dunstctl', 'notify-send'].every(have);

let xvfb: ChildProcess | undefined;
let display = '';

beforeAll(async () => {
  if (!tools) return;
  // -displayfd: Xvfb picks a free display and writes its number; no guessing beside other tests.
  xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '800x600x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  display = await new Promise<string>((resolve, reject) => {
    let text = '';
    xvfb?.stdio[3]?.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    xvfb?.on('exit', (code) => reject(new Error(`Xvfb exited (${code})`)));
  });
});

afterAll(() => {
  xvfb?.kill('SIGTERM');
});

/** Run `tasks notify <args>` inside a D-Bus session with dunst up; what dunst kept, and notify's output. */
function underDunst(config: string, args: string[]) {
  const script = path.join(config, 'desktop.sh');
  fs.writeFileSync(
    script,
    [
      'dunst >/dev/null 2>&1 &',
      'DUNST=$!',
      // Up once it answers on the bus.
      'for i in $(seq 1 100); do dunstctl is-paused >/dev/null 2>&1 && break; sleep 0.05; done',
      `"${process.execPath}" "${BIN}" notify "$@" >"${config}/out" 2>"${config}/err"`,
      `echo $? > "${config}/code"`,
      // Shown notifications reach the history once closed.
      'sleep 0.3; dunstctl close-all; sleep 0.3',
      `dunstctl history > "${config}/history.json"`,
      // Gone already when the bus started another dunst first (D-Bus activation) and it lost the name.
      'kill $DUNST 2>/dev/null || true',
    ].join('\n'),
  );
  const env = baseEnv(config, { ...notifyEnv(config), DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: undefined });
  const r = spawnSync('dbus-run-session', ['--', 'sh', script, ...args], { env, cwd: config, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  const history = JSON.parse(fs.readFileSync(path.join(config, 'history.json'), 'utf8')) as {
    data: Array<Array<Record<string, { data: unknown }>>>;
  };
  return {
    code: Number(fs.readFileSync(path.join(config, 'code'), 'utf8')),
    stdout: fs.readFileSync(path.join(config, 'out'), 'utf8'),
    stderr: fs.readFileSync(path.join(config, 'err'), 'utf8'),
    shown: (history.data[0] ?? []).map((n) => ({
      app: n.appname?.data,
      summary: n.summary?.data,
      body: n.body?.data,
      urgency: n.urgency?.data,
    })),
  };
}

describe.skipIf(!tools)('notify --to desktop, with dunst on the session bus', () => {
  it('each event is a notification from "tasks" with its title and text and the command; the start note says notify-send was used', () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' }), taskOf('2', { status: 'completed' })]);
    listWith(config, 'web', [taskOf('1', { blockedBy: ['2'], blocks: ['2'] }), taskOf('2', { blockedBy: ['1'], blocks: ['1'] })]);
    const r = underDunst(config, ['--all', '--once', '--to', 'desktop']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('desktop notifications through notify-send (D-Bus)');
    expect(r.stdout).toMatch(/sent {2}list-completed {2}app {2}-> desktop \(notify-send\)/);
    expect(r.stdout).toMatch(/sent {2}blocked-cycle {2}web {2}-> desktop \(notify-send\)/);
    const byTitle = Object.fromEntries(r.shown.map((n) => [n.summary, n]));
    expect(Object.keys(byTitle).sort()).toEqual(['Blocked forever: web', 'Done: list app']);
    expect(byTitle['Done: list app']).toMatchObject({ app: 'tasks', body: 'every task of list app is completed (2)\ntasks -l app list' });
    expect(byTitle['Blocked forever: web']?.body).toContain('tasks -l web check');
    // Told once: a second run shows nothing new.
    const again = underDunst(config, ['--all', '--once', '--to', 'desktop']);
    expect(again.code).toBe(0);
    expect(again.shown).toEqual([]);
  });

  it('without a D-Bus session or a terminal, desktop says it cannot tell anyone, on stderr, and --once exits 1', () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const r = spawnSync(process.execPath, [BIN, '-l', 'app', 'notify', '--once', '--to', 'desktop'], {
      env: baseEnv(config, { ...notifyEnv(config), DBUS_SESSION_BUS_ADDRESS: undefined, DISPLAY: undefined }),
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('desktop notifications ring the terminal (bell and OSC 9)');
    expect(r.stderr).toContain('no desktop notifier (notify-send with a D-Bus session, osascript) and no terminal to ring');
  });
});
