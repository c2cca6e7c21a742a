import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';
import { FIXTURES, tempConfig } from './cli.js';

/** When each fixture's task files were last written (test/fixtures/claude-code-2.1.328/gone/README.md): all at once, or file by file. */
const TASK_TIMES: Record<string, { list: string; at: string | Record<string, string> }> = {
  'crashed-unowned': { list: 'solo', at: '2026-12-03T11:40:49.843Z' },
  'cleared-shared': { list: 'team', at: '2026-12-03T11:40:17.971Z' },
  'forked-live': { list: 'rf', at: { '1.json': '2026-12-04T22:32:42.980Z', '2.json': '2026-12-04T22:32:49.028Z' } },
};

/** The live-session file's times (ms since the epoch). */
const LIVE_TIMES = /"(startedAt|updatedAt|statusUpdatedAt|nameSince)":(\d{13})/g;

/**
 * A config folder as Claude Code left it in one of the `gone/` fixtures, with the files'
 * times as they were written (a checkout does not keep them). `pid`: the live-session
 * file is pointed at this process (with its start time), standing for the agent's.
 * `endedAgoMs`: every time in it (the transcripts' entries and files, the live-session
 * file's, the task files') moved by one shift, so that the newest transcript entry is
 * that long before now: the same recording, as of a few minutes ago. A read of the list
 * (stalled after 30 minutes) then says the same whenever the test runs.
 */
export function goneFixture(name: keyof typeof TASK_TIMES, o: { pid?: number; procStart?: string; endedAgoMs?: number } = {}) {
  const config = tempConfig();
  const from = path.join(FIXTURES, 'gone', name);
  for (const dir of ['projects', 'tasks', 'sessions']) fs.cpSync(path.join(from, dir), path.join(config, dir), { recursive: true });
  const projects = path.join(config, 'projects');
  const transcripts = fs
    .readdirSync(projects)
    .flatMap((folder) => fs.readdirSync(path.join(projects, folder)).map((f) => path.join(projects, folder, f)));
  const entryTimes = (p: string) =>
    [...fs.readFileSync(p, 'utf8').matchAll(/"timestamp":"([^"]+)"/g)].map((m) => Date.parse(m[1] as string));
  const recorded = Math.max(...transcripts.flatMap(entryTimes));
  const shift = o.endedAgoMs === undefined ? 0 : Date.now() - o.endedAgoMs - recorded;
  const iso = (ms: number) => new Date(ms + shift).toISOString();
  let newest = 0;
  for (const p of transcripts) {
    if (shift !== 0)
      fs.writeFileSync(
        p,
        fs.readFileSync(p, 'utf8').replace(/"timestamp":"([^"]+)"/g, (_, t: string) => `"timestamp":"${iso(Date.parse(t))}"`),
      );
    const last = Math.max(...entryTimes(p));
    newest = Math.max(newest, last);
    fs.utimesSync(p, last / 1000, last / 1000);
  }
  const { list, at } = TASK_TIMES[name] as (typeof TASK_TIMES)[string];
  const dir = path.join(config, 'tasks', list);
  for (const f of fs.readdirSync(dir)) {
    const taskTime = (Date.parse(typeof at === 'string' ? at : (at[f] as string)) + shift) / 1000;
    fs.utimesSync(path.join(dir, f), taskTime, taskTime);
  }
  const sessions = path.join(config, 'sessions');
  const [file] = fs.readdirSync(sessions);
  const text = fs
    .readFileSync(path.join(sessions, file as string), 'utf8')
    .replace(LIVE_TIMES, (_, k: string, t: string) => `"${k}":${Number(t) + shift}`);
  fs.writeFileSync(path.join(sessions, file as string), text);
  const live = JSON.parse(text);
  if (o.pid !== undefined) {
    fs.rmSync(path.join(sessions, file as string));
    const { pidDomain: _, ...rest } = live;
    fs.writeFileSync(path.join(sessions, `${o.pid}.json`), JSON.stringify({ ...rest, pid: o.pid, procStart: o.procStart }));
  }
  return { config, dir, list, live: live as { pid: number; procStart: string; pidDomain: string; sessionId: string; cwd: string }, newest };
}

/** The pid of a process that has exited: a live-session file naming it was left by a crash. */
export function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
}

/** A running process standing for Claude Code's: its argv[0] is `claude`. */
export type AgentProcess = ChildProcess & { pid: number };

/**
 * Starts processes standing for Claude Code's, each with `env` (a list named by
 * CLAUDE_CODE_TASK_LIST_ID, or none), killed once the file's tests are done: called at a
 * test file's top level.
 */
export function agentProcesses(): (env: Record<string, string>) => AgentProcess {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
  });
  return (env) => {
    const child = spawn('sleep', ['600'], { argv0: 'claude', stdio: 'ignore', env: { ...process.env, ...env } });
    children.push(child);
    return child as AgentProcess;
  };
}
