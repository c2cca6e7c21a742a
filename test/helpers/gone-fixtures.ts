import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES, tempConfig } from './cli.js';

/** When each fixture's task files were last written (test/fixtures/claude-code-2.1.328/gone/README.md). */
const TASK_TIMES: Record<string, { list: string; at: string }> = {
  'crashed-unowned': { list: 'solo', at: '2026-12-03T11:40:49.843Z' },
  'cleared-shared': { list: 'team', at: '2026-12-03T11:40:17.971Z' },
};

/**
 * A config folder as Claude Code left it in one of the `gone/` fixtures, with the files'
 * times as they were written (a checkout does not keep them). `pid`: the live-session
 * file is pointed at this process (with its start time), standing for the agent's.
 */
export function goneFixture(name: keyof typeof TASK_TIMES, o: { pid?: number; procStart?: string } = {}) {
  const config = tempConfig();
  const from = path.join(FIXTURES, 'gone', name);
  for (const dir of ['projects', 'tasks', 'sessions']) fs.cpSync(path.join(from, dir), path.join(config, dir), { recursive: true });
  const projects = path.join(config, 'projects');
  let newest = 0;
  for (const folder of fs.readdirSync(projects))
    for (const file of fs.readdirSync(path.join(projects, folder))) {
      const p = path.join(projects, folder, file);
      const times = [...fs.readFileSync(p, 'utf8').matchAll(/"timestamp":"([^"]+)"/g)].map((m) => Date.parse(m[1] as string));
      const last = Math.max(...times);
      newest = Math.max(newest, last);
      fs.utimesSync(p, last / 1000, last / 1000);
    }
  const { list, at } = TASK_TIMES[name] as { list: string; at: string };
  const dir = path.join(config, 'tasks', list);
  for (const f of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, f), Date.parse(at) / 1000, Date.parse(at) / 1000);
  const sessions = path.join(config, 'sessions');
  const [file] = fs.readdirSync(sessions);
  const live = JSON.parse(fs.readFileSync(path.join(sessions, file as string), 'utf8'));
  if (o.pid !== undefined) {
    fs.rmSync(path.join(sessions, file as string));
    const { pidDomain: _, ...rest } = live;
    fs.writeFileSync(path.join(sessions, `${o.pid}.json`), JSON.stringify({ ...rest, pid: o.pid, procStart: o.procStart }));
  }
  return { config, dir, list, live: live as { pid: number; procStart: string; pidDomain: string; sessionId: string; cwd: string }, newest };
}
