import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, baseEnv, FIXTURES, fixtureConfig, run } from '../helpers/cli.js';

/**
 * The live view in a real terminal: tmux runs a shell in a pane of a fixed size; we type
 * into it (send-keys) and read the screen back (capture-pane -p).
 */
const TMUX = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const title = TMUX ? 'watch in a terminal (tmux)' : 'watch in a terminal: SKIPPED, tmux is not installed (apt-get install tmux)';

const { config } = fixtureConfig();
const socket = path.join(config, 'tmux.sock');
const env = baseEnv(config, { PS1: '$ ', TERM: 'xterm-256color', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' });

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { env, encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The visible screen; with `history`, the lines scrolled off the top too (a resize can push them there). */
const pane = (history = false) => tmux('capture-pane', '-p', '-t', 'w', ...(history ? ['-S', '-100'] : []));
const type = (text: string) => tmux('send-keys', '-t', 'w', '-l', text);
const key = (name: string) => tmux('send-keys', '-t', 'w', name);

async function waitForPane(check: (screen: string) => boolean, what: string, opts: { history?: boolean } = {}): Promise<string> {
  const until = Date.now() + 20_000;
  for (;;) {
    const screen = pane(opts.history);
    if (check(screen)) return screen;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; the pane shows:\n${screen}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A screen is read while the terminal may be half-way through drawing it: wait for all of it. */
const showsAll =
  (...patterns: RegExp[]) =>
  (screen: string) =>
    patterns.every((p) => p.test(screen));

afterAll(() => {
  if (TMUX && fs.existsSync(socket)) spawnSync('tmux', ['-S', socket, 'kill-server']);
});

describe.skipIf(!TMUX)(title, () => {
  it('shows the list, follows a change and a resize, and gives the screen back on Ctrl-C with exit 0', async () => {
    tmux('new-session', '-d', '-s', 'w', '-x', '100', '-y', '30', 'bash --norc --noprofile');
    type(`cd ${JSON.stringify(config)}; clear; echo BEFORE-WATCH`);
    key('Enter');
    await waitForPane((s) => s.split('\n').includes('BEFORE-WATCH'), 'the shell');
    type(`${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} watch; echo "EXIT=$?"`);
    key('Enter');

    const expected = [
      /^ refactor-auth {2}█+░+ {2}1\/4 done {2}3 pending \(1 blocked\)$/m,
      /✔ #1 {2}Analyse code +@researcher/,
      /○ #2 {2}Refactor auth/,
      /○ #4 {2}Run tests +blocked by #2/,
      /No changes yet\./,
      /q quit/,
    ];
    const first = await waitForPane(showsAll(...expected), 'the live view');
    expect(first).not.toContain('BEFORE-WATCH'); // the alternate screen
    for (const pattern of expected) expect(first).toMatch(pattern);

    expect(run(config, ['update', '2', '--status', 'in_progress', '--owner', 'coder']).code).toBe(0);
    const afterChange = [
      /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] #2 {2}Refactoring auth +@coder/,
      /Last change (just now|\d+s ago): #2 Refactor auth: status pending → in progress; owner → coder/,
      /^ refactor-auth .* 1 in progress/,
      /q quit/,
    ];
    const changed = await waitForPane(showsAll(...afterChange), 'the change');
    for (const pattern of afterChange) expect(changed).toMatch(pattern);

    tmux('resize-window', '-t', 'w', '-x', '60', '-y', '20');
    const narrow = await waitForPane(
      (s) => !s.split('\n')[0]?.includes('in progress') && s.includes('@coder') && s.includes('q quit'),
      'the redraw at 60 columns',
    );
    for (const line of narrow.split('\n')) expect(line.length).toBeLessThan(60);

    key('C-c');
    const after = await waitForPane((s) => /^EXIT=\d+$/m.test(s), 'the shell after Ctrl-C', { history: true });
    expect(after).toContain('BEFORE-WATCH');
    expect(after).toMatch(/^EXIT=0$/m);
    expect(after).not.toContain('@coder');
    expect(after).not.toContain('Last change');
  }, 90_000);

  it('q quits too; with --until it leaves the final list on the screen and exits 0', async () => {
    type('clear');
    key('Enter');
    type(`${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} watch; echo "EXIT=$?"`);
    key('Enter');
    await waitForPane(showsAll(/#5 {2}Write changelog/, /q quit/), 'the live view');
    type('q');
    await waitForPane((s) => /^EXIT=0$/m.test(s), 'exit 0 after q');

    type('clear');
    key('Enter');
    type(
      `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} -l refactor-auth watch --until task:4:completed --timeout 2m; echo "EXIT=$?"`,
    );
    key('Enter');
    await waitForPane(showsAll(/#5 {2}Write changelog/, /timeout in/), 'the live view with its deadline');
    expect(run(config, ['update', '4', '--status', 'completed']).code).toBe(0);
    const done = await waitForPane(showsAll(/^EXIT=\d+$/m, /holds/), 'the end');
    expect(done).toMatch(/✔ #4 {2}Run tests/);
    expect(done).toContain('✔ task:4:completed holds');
    expect(done).toMatch(/^EXIT=0$/m);
    expect(done).not.toContain('q quit');
  }, 90_000);

  it('--stream: the live view follows a run piped in line by line, and leaves its final list and the nudge', async () => {
    const stream = path.join(FIXTURES, 'follow', 'stream-json-todowrite-run.jsonl');
    const session = (JSON.parse(fs.readFileSync(stream, 'utf8').split('\n')[0] as string) as { session_id: string }).session_id;
    tmux('resize-window', '-t', 'w', '-x', '120', '-y', '30');
    type('clear');
    key('Enter');
    // A run as a pipe delivers it: one line every half second.
    const feed = `while IFS= read -r l; do printf '%s\\n' "$l"; sleep 0.5; done < ${JSON.stringify(stream)}`;
    type(`(${feed}) | ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} watch --stream - --until all-completed; echo "EXIT=$?"`);
    key('Enter');
    const progress = [
      new RegExp(`^ ${session.slice(0, 8)} .* 1/3 done {2}1 in progress · 1 pending$`, 'm'),
      /✔ #1 {2}Read the failing test/,
      /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] #2 {2}Fixing the race/,
      /○ #3 {2}Run the suite/,
      // One TodoWrite changed two items: the first is told, the other counted.
      /Last change (just now|\d+s ago): #1 Read the failing test: status in progress → \S+ \(\+1 more\)/,
      /q quit · following the stream on stdin · until all-completed/,
    ];
    const mid = await waitForPane(showsAll(...progress), 'the run half-way');
    for (const pattern of progress) expect(mid).toMatch(pattern);

    const done = await waitForPane(showsAll(/^EXIT=\d+$/m, /holds/), 'the end of the run');
    expect(done).toMatch(/✔ #3 {2}Run the suite/);
    expect(done).toContain('⚑ all 3 tasks are completed and none is a verification step');
    expect(done).toContain('✔ all-completed holds');
    expect(done).toMatch(/^EXIT=0$/m);
    expect(done).not.toContain('q quit');
  }, 90_000);
});
