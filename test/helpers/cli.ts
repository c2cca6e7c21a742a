import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Helpers to run the built binary as users run it, in a throwaway config folder. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin', 'tasks.js');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'claude-code-2.1.328');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  /** Another copy of bin/tasks.js to run. */
  bin?: string;
  /** Kill the run (SIGKILL) after this long; default 60 s. */
  timeoutMs?: number;
}

/** A clean environment: no colour forcing, no list id, nothing from the real ~/.claude. */
export function baseEnv(configDir: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLAUDE_CONFIG_DIR: configDir,
    HOME: path.join(configDir, 'home'),
    // Managed settings from the test's folder, never the machine's /etc/claude-code.
    TASKS_MANAGED_SETTINGS_DIR: path.join(configDir, 'managed'),
  };
  delete env.CLAUDE_CODE_SANDBOXED;
  delete env.CLAUDE_CODE_TASK_LIST_ID;
  delete env.CLAUDE_CODE_PROJECT_DIR_NAME;
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  delete env.NODE_EXTRA_CA_CERTS;
  // The persistent cache: the test's own (never a shared one), outside its config folder,
  // whose files tests compare before and after, and away from what lies beside it.
  env.XDG_CACHE_HOME = path.join(os.tmpdir(), 'tasks-test-caches', path.basename(configDir));
  // The state folder (the board's kept URL, notify's sent state): the test's own too.
  env.XDG_STATE_HOME = path.join(os.tmpdir(), 'tasks-test-states', path.basename(configDir));
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function run(configDir: string, args: string[], opts: RunOptions = {}): RunResult {
  const result = spawnSync(process.execPath, [opts.bin ?? BIN, ...args], {
    env: baseEnv(configDir, opts.env),
    input: opts.input,
    cwd: opts.cwd ?? (fs.existsSync(configDir) ? configDir : os.tmpdir()),
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 60_000,
    // SIGKILL: a run that ignores SIGTERM (a bug under test) must still end the test.
    killSignal: 'SIGKILL',
    // Large plans and listings print megabytes; the default buffer (1 MB) would cut them.
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Start the binary without waiting: for concurrency tests. */
export function runAsync(configDir: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(configDir, opts.env), cwd: opts.cwd ?? configDir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export function tempConfig(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-test-'));
}

/** A config folder holding the real agent's `refactor-auth` list. */
export function fixtureConfig(): { config: string; list: string } {
  const config = tempConfig();
  const list = path.join(config, 'tasks', 'refactor-auth');
  fs.mkdirSync(path.dirname(list), { recursive: true });
  fs.cpSync(path.join(FIXTURES, 'tasks', 'refactor-auth'), list, { recursive: true });
  for (const f of fs.readdirSync(list)) fs.chmodSync(path.join(list, f), 0o644);
  fs.chmodSync(list, 0o755);
  return { config, list };
}

/** Every file in a folder with its bytes, for "nothing changed" assertions. */
export function snapshotDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p);
    out[name] = st.isFile() ? fs.readFileSync(p, 'utf8') : st.isDirectory() ? '<dir>' : '<other>';
  }
  return out;
}

export function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Each line of JSON lines (a journal, a stream's events) as an object. */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function writeTask(listDir: string, task: Record<string, unknown>): void {
  fs.mkdirSync(listDir, { recursive: true });
  fs.writeFileSync(path.join(listDir, `${String(task.id)}.json`), JSON.stringify(task, null, 2));
}

/**
 * stderr of a `--json` run (JSON lines: errors, warnings, notes) read back as the lines a
 * run without --json prints: a note's message, `warning: <message>`, `error: <message>`.
 */
export function stderrText(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const line = JSON.parse(l) as Record<string, { message: string }>;
      if (line.note) return line.note.message;
      if (line.warning) return `warning: ${line.warning.message}`;
      return `error: ${line.error?.message}`;
    })
    .map((l) => `${l}\n`)
    .join('');
}

/** The JSON lines of a --json stderr, by kind: what a test looks for among warnings and notes. */
export function stderrLines(stderr: string): Array<Record<string, Record<string, unknown>>> {
  return stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, Record<string, unknown>>);
}

/** The one error line of a --json stderr (warnings and notes beside it left out). */
export function stderrError(stderr: string): Record<string, unknown> | undefined {
  return stderrLines(stderr).find((l) => l.error !== undefined);
}
