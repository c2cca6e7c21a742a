/**
 * Interop: where Claude Code records folder trust, and how far up it looks, against the
 * binary itself. Claude Code run interactively (in tmux) shows its trust dialog in a folder
 * it does not trust; `tasks` must skip that folder's project hooks exactly then.
 *
 * Run with the rest of the interop suite: npm run test:interop.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { claudeBin } from './agent.js';

const TRUST_DIALOG = /Accessing workspace|trust this folder/;
/** What an interactive session shows once past the trust dialog (nothing is sent anywhere). */
const PAST_TRUST = /custom API key|API key|Welcome|Try "|\? for shortcuts/;

interface World {
  root: string;
  config: string;
  home: string;
}

function world(): World {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-trust-')));
  const config = path.join(root, 'config');
  const home = path.join(root, 'home');
  fs.mkdirSync(config);
  fs.mkdirSync(home);
  return { root, config, home };
}

/** Claude Code's global config with trust records (and onboarding done, so the first screen is the trust check). */
function recordTrust(w: World, folders: string[]): void {
  const projects = Object.fromEntries(folders.map((f) => [f, { allowedTools: [], hasTrustDialogAccepted: true }]));
  fs.writeFileSync(path.join(w.config, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, theme: 'dark', projects }, null, 2));
}

/** Does interactive Claude Code, started in `cwd`, ask whether to trust the folder? */
function claudeAsksForTrust(w: World, cwd: string): boolean {
  const session = `tasks-trust-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const env = [
    `HOME=${w.home}`,
    `CLAUDE_CONFIG_DIR=${w.config}`,
    'ANTHROPIC_API_KEY=sk-mock-loopback-only',
    'ANTHROPIC_BASE_URL=http://127.0.0.1:9',
    'HTTP_PROXY=http://127.0.0.1:9',
    'HTTPS_PROXY=http://127.0.0.1:9',
    'DISABLE_TELEMETRY=1',
    'DISABLE_ERROR_REPORTING=1',
    'DISABLE_AUTOUPDATER=1',
    'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1',
  ].map((v) => `'${v}'`);
  const command = `cd '${cwd}' && env -i PATH="$PATH" TERM=xterm-256color ${env.join(' ')} '${claudeBin()}'; sleep 60`;
  spawnSync('tmux', ['new-session', '-d', '-s', session, '-x', '150', '-y', '40', command]);
  try {
    for (let i = 0; i < 120; i++) {
      const screen = spawnSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' }).stdout ?? '';
      if (TRUST_DIALOG.test(screen)) return true;
      if (PAST_TRUST.test(screen)) return false;
      spawnSync('sleep', ['0.25']);
    }
    throw new Error(`Claude Code showed neither its trust dialog nor what follows it in ${cwd}`);
  } finally {
    spawnSync('tmux', ['kill-session', '-t', session]);
  }
}

/** Does `tasks create`, run in `cwd`, run that folder's project hook? */
function tasksRunsProjectHooks(w: World, cwd: string): boolean {
  const mark = path.join(w.root, `ran-${path.basename(cwd)}`);
  fs.rmSync(mark, { force: true });
  fs.mkdirSync(path.join(cwd, '.claude'), { recursive: true });
  fs.writeFileSync(
    path.join(cwd, '.claude', 'settings.json'),
    JSON.stringify({ hooks: { TaskCreated: [{ hooks: [{ type: 'command', command: `touch '${mark}'` }] }] } }),
  );
  const r = run(w.config, ['-l', 'trust', 'create', 'probe'], { cwd });
  expect(r.code, r.stderr).toBe(0);
  return fs.existsSync(mark);
}

describe('folder trust: tasks runs project hooks exactly where Claude Code trusts the folder', () => {
  const cases: Array<{ name: string; setup: (w: World) => { cwd: string; trusted: string[] }; trusted: boolean }> = [
    { name: 'no record', setup: (w) => ({ cwd: mkdir(w.root, 'plain'), trusted: [] }), trusted: false },
    {
      name: 'a record on the folder',
      setup: (w) => ({ cwd: mkdir(w.root, 'plain'), trusted: [path.join(w.root, 'plain')] }),
      trusted: true,
    },
    {
      name: 'a record on the repository root, run from a folder inside it',
      setup: (w) => {
        const repo = gitRepo(w.root, 'repo');
        return { cwd: mkdir(repo, 'sub'), trusted: [repo] };
      },
      trusted: true,
    },
    {
      name: 'a record above the repository root',
      setup: (w) => ({ cwd: gitRepo(w.root, 'repo'), trusted: [w.root] }),
      trusted: false,
    },
    {
      name: 'outside a repository, a record on a folder above',
      setup: (w) => ({ cwd: mkdir(mkdir(w.root, 'a'), 'b'), trusted: [w.root] }),
      trusted: true,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.trusted ? 'trusted' : 'not trusted'}, by both`, () => {
      const w = world();
      const { cwd, trusted } = c.setup(w);
      recordTrust(w, trusted);
      expect(claudeAsksForTrust(w, cwd)).toBe(!c.trusted);
      expect(tasksRunsProjectHooks(w, cwd)).toBe(c.trusted);
    }, 120_000);
  }
});

function mkdir(parent: string, name: string): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function gitRepo(parent: string, name: string): string {
  const dir = mkdir(parent, name);
  spawnSync('git', ['init', '-q', dir]);
  return dir;
}
