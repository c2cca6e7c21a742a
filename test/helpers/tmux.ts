import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, baseEnv } from './cli.js';

/**
 * A real terminal for tests: tmux runs a command in a pane of a fixed size; tests type
 * into it (send-keys) and read the screen back (capture-pane -p). Each session gets its
 * own server socket in the test's config folder.
 */

export function tmuxAvailable(): boolean {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

export interface Pane {
  /** The visible screen. */
  screen(): string;
  type(text: string): void;
  key(name: string): void;
  waitFor(check: (screen: string) => boolean, what: string): Promise<string>;
  kill(): void;
}

/**
 * Start `tasks <args>` (then `echo EXIT=$?`) in a shell in a new pane of `width` x `height`;
 * `pipeTo` is shell text after the command (`| cat`: stdout piped, stdin still the terminal).
 */
export function startInTmux(
  config: string,
  args: string[],
  size: { width: number; height: number },
  extraEnv: Record<string, string | undefined> = {},
  pipeTo = '',
): Pane {
  const socket = path.join(config, `tmux-${process.pid}-${Math.random().toString(36).slice(2, 8)}.sock`);
  const env = baseEnv(config, { PS1: '$ ', TERM: 'xterm-256color', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', ...extraEnv });
  const tmux = (...a: string[]): string => {
    const r = spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...a], { env, encoding: 'utf8', timeout: 20_000 });
    if (r.status !== 0) throw new Error(`tmux ${a.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const quoted = [process.execPath, BIN, ...args].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const cwd = fs.existsSync(config) ? config : '/';
  // tmux hands the command to sh -c: single quotes keep $? for bash.
  // tmux sets the pane's TERM itself: a TERM asked for is set inside the pane.
  const term = extraEnv.TERM === undefined ? '' : `export TERM=${extraEnv.TERM}; `;
  const script = `${term}${quoted}${pipeTo}; echo EXIT=$?; sleep 600`.replace(/'/g, `'\\''`);
  tmux(
    'new-session',
    '-d',
    '-s',
    'p',
    '-x',
    String(size.width),
    '-y',
    String(size.height),
    '-c',
    cwd,
    `bash --norc --noprofile -c '${script}'`,
  );
  const pane: Pane = {
    screen: () => tmux('capture-pane', '-p', '-t', 'p'),
    type: (text) => void tmux('send-keys', '-t', 'p', '-l', text),
    key: (name) => void tmux('send-keys', '-t', 'p', name),
    async waitFor(check, what) {
      const until = Date.now() + 20_000;
      for (;;) {
        const s = pane.screen();
        if (check(s)) return s;
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; the pane shows:\n${s}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    kill: () => {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
      fs.rmSync(socket, { force: true });
    },
  };
  return pane;
}

/** Run `tasks <args>` to its end in a terminal; the screen it left (the EXIT=<code> line included). */
export async function runInTmux(config: string, args: string[], size: { width: number; height: number }): Promise<string> {
  const pane = startInTmux(config, args, size);
  try {
    return await pane.waitFor((s) => /EXIT=\d+/.test(s), 'the command to end');
  } finally {
    pane.kill();
  }
}
