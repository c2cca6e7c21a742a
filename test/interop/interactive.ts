import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { claudeBin } from './agent.js';
import { type MockModel, startMockModel, type Turn } from './mock-model.js';

/**
 * The real Claude Code, interactive, in a tmux pane of its own server (a socket in the
 * test's folder): for what only the terminal UI does (`/clear`, the task panel). The
 * scripted model answers each typed prompt (`byPrompt`); first-run screens are answered
 * in the config folder's `.claude.json` (onboarding done, the folder trusted, the key
 * approved), so typing goes straight to the prompt.
 */
export interface Interactive {
  model: MockModel;
  /** Type a line and press Enter. */
  type(line: string): void;
  screen(): string;
  waitFor(check: (screen: string) => boolean, what: string, ms?: number): Promise<string>;
  stop(): Promise<void>;
}

const KEY = 'sk-mock';

export async function startInteractive(opts: {
  configDir: string;
  cwd: string;
  home: string;
  byPrompt: (prompt: string) => Turn | undefined | Promise<Turn | undefined>;
  env?: Record<string, string>;
  /** More arguments, e.g. `--resume <id>`. */
  args?: readonly string[];
}): Promise<Interactive> {
  const model = await startMockModel({ turns: [], byPrompt: opts.byPrompt });
  const globalConfig = path.join(opts.configDir, '.claude.json');
  const existing = fs.existsSync(globalConfig) ? (JSON.parse(fs.readFileSync(globalConfig, 'utf8')) as Record<string, unknown>) : {};
  const projects = {
    ...((existing.projects as Record<string, unknown>) ?? {}),
    [opts.cwd]: { hasTrustDialogAccepted: true, allowedTools: [] },
  };
  fs.writeFileSync(
    globalConfig,
    JSON.stringify({
      ...existing,
      hasCompletedOnboarding: true,
      theme: 'dark',
      projects,
      customApiKeyResponses: { approved: [KEY], rejected: [] },
    }),
  );
  const socket = path.join(opts.configDir, `tmux-${process.pid}-${Math.random().toString(36).slice(2, 8)}.sock`);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    HOME: opts.home,
    CLAUDE_CONFIG_DIR: opts.configDir,
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: model.url,
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    ...opts.env,
  };
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = `cd ${quote(opts.cwd)} && env -i ${Object.entries(env)
    .map(([k, v]) => quote(`${k}=${v}`))
    .join(
      ' ',
    )} ${quote(claudeBin())} ${(opts.args ?? []).map(quote).join(' ')} --allowedTools ${quote('TaskCreate TaskUpdate TaskList TaskGet TodoWrite')}; sleep 600`;
  const tmux = (...args: string[]) => {
    const r = spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', timeout: 20_000 });
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
    return r.stdout;
  };
  tmux('new-session', '-d', '-s', 'cc', '-x', '140', '-y', '40', command);
  const session: Interactive = {
    model,
    type: (line) => {
      tmux('send-keys', '-t', 'cc', '-l', line);
      tmux('send-keys', '-t', 'cc', 'Enter');
    },
    screen: () => tmux('capture-pane', '-p', '-t', 'cc'),
    async waitFor(check, what, ms = 60_000) {
      const until = Date.now() + ms;
      for (;;) {
        const s = session.screen();
        if (check(s)) return s;
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; the pane shows:\n${s}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
      fs.rmSync(socket, { force: true });
      await model.close();
    },
  };
  return session;
}
