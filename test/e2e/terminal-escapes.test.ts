/**
 * What a terminal receives, byte for byte: text read from files (transcripts, the price
 * file) or given by agents reaches it without control characters, while the colours tasks
 * writes itself keep their ESC. Through the built binary under `script`, so stdout and
 * stderr are a real terminal.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, baseEnv, tempConfig } from '../helpers/cli.js';
import { CostTranscript, writeTaskFile } from '../helpers/cost-transcript.js';
import { listWith, notifyEnv, taskOf } from '../helpers/notify.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
const A = 'aaaaaaaa-1111-4222-8333-444444444444';
const HOSTILE = '\u001b]0;PWNED\u0007';

/** `tasks <args>` on a terminal: what it wrote there (stdout and stderr, as one stream), and its status. */
function onTerminal(config: string, args: string[], env: Record<string, string | undefined> = {}) {
  const line = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('script', ['-qec', `stty cols 200; ${line}`, '/dev/null'], {
    cwd: config,
    env: baseEnv(config, { TERM: 'xterm-256color', ...env }),
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout };
}

/** The control characters of a terminal's output other than tasks' own SGR colour codes and line ends. */
const foreign = (out: string) =>
  out
    .replace(/\u001b\[[0-9;]*m/g, '')
    .replace(/\r?\n/g, '')
    .match(/[\u0000-\u001f\u007f-\u009f]/g) ?? [];

describe.skipIf(!hasScript)('on a terminal', () => {
  it('a model name from a transcript, and a price file date, are shown without their escape sequences', () => {
    const config = tempConfig();
    const env = { XDG_CONFIG_HOME: path.join(config, 'xdg') };
    writeTaskFile(config, A, { id: '1', subject: 'Port the parser', status: 'completed' });
    const T = Date.now() - 3_600_000;
    new CostTranscript(A, '/work/app', { model: `${HOSTILE}claude-x` })
      .update(T + 1000, { taskId: '1', status: 'in_progress' }, T + 2000)
      .message(T + 60_000, { input: 1000, output: 50 })
      .update(T + 300_000, { taskId: '1', status: 'completed' }, T + 302_000)
      .write(config);
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME, 'tasks'), { recursive: true });
    fs.writeFileSync(path.join(env.XDG_CONFIG_HOME, 'tasks', 'prices.json'), JSON.stringify({ date: `${HOSTILE}2026`, models: {} }));

    const get = onTerminal(config, ['-l', A, 'get', '1'], env);
    expect(get.code).toBe(0);
    expect(get.out).toMatch(/Work:.*]0;PWNEDclaude-x/);
    expect(foreign(get.out)).toEqual([]);

    const cost = onTerminal(config, ['-l', A, 'cost'], env);
    expect(cost.code).toBe(0);
    expect(cost.out).toContain('no price known for ]0;PWNEDclaude-x');
    expect(cost.out).toContain('as of ]0;PWNED2026');
    expect(foreign(cost.out)).toEqual([]);

    // Data stays data: --json keeps the name as it was written.
    const json = spawnSync(process.execPath, [BIN, '-l', A, 'cost', '--json'], { env: baseEnv(config, env), encoding: 'utf8' });
    expect(JSON.parse(json.stdout).unpricedModels).toEqual([`${HOSTILE}claude-x`]);
  });

  it("notify: an exec: target's escape is not echoed in the start note, nor in the line sent", () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const r = onTerminal(config, ['-l', 'app', 'notify', '--once', '--to', `exec:true #${HOSTILE}`], notifyEnv(config));
    expect(r.code).toBe(0);
    expect(r.out).toContain('to exec:true #]0;PWNED');
    expect(r.out).toContain('-> exec:true #]0;PWNED');
    expect(foreign(r.out)).toEqual([]);
  });

  it('notify: its own colours come out as real SGR sequences, not as text that lost its ESC', () => {
    const config = tempConfig();
    listWith(config, 'app', [taskOf('1', { status: 'completed' })]);
    const r = onTerminal(config, ['-l', 'app', 'notify', '--once', '--to', 'exec:true'], notifyEnv(config));
    expect(r.code).toBe(0);
    // "sent" in green, the time dim.
    expect(r.out).toMatch(
      /\u001b\[2m\d\d:\d\d:\d\d\u001b\[22m {2}\u001b\[32msent\u001b\[39m {2}list-completed {2}app {2}-> exec:true {2}Done/,
    );
    // No colour code left as text without its ESC.
    expect(r.out).not.toMatch(/(^|[^\u001b])\[(2|22|32|39)m/);
    expect(foreign(r.out)).toEqual([]);
  });
});
