/**
 * Interop: `$CLAUDE_CODE_PROJECT_DIR_NAME`, against the real Claude Code. With
 * `$CLAUDE_CONFIG_DIR` set, the agent keeps its transcript in `<config>/projects/<that
 * name>/` whatever its directory (checked: 2.1.328 and 2.1.332), while its list and its
 * live-session file stay where they always are. `tasks` in the agent's directory, with
 * no `-l`, still picks that session's list, whether it runs with the same variable (a
 * user who exports it) or without it; a change there goes to the list the agent sees
 * when it is resumed; and another directory's session in the same named folder is never
 * taken for this directory's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';
import { world } from './session-world.js';

const CREATE = (subject: string): Turn => [{ name: 'TaskCreate', input: { subject, description: `${subject}, from the agent` } }];
const subjects = (stdout: string) => (JSON.parse(stdout) as Array<{ subject: string }>).map((t) => t.subject);

describe('the real Claude Code with CLAUDE_CODE_PROJECT_DIR_NAME', () => {
  it("tasks in the agent's directory picks its list, with the variable or without it", async () => {
    const w = world();
    const proj = w.dir('work/my.proj');
    const neighbour = w.dir('work/neighbour');
    const env = { CLAUDE_CODE_PROJECT_DIR_NAME: 'myproj' };
    const mine = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      prompt: 'plan my work',
      turns: [CREATE('Mine')],
      env,
    });
    const mineId = mine.stream.sessionId as string;
    // Another directory's session, later, into the same named folder.
    const next = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: neighbour,
      prompt: 'plan the neighbour',
      turns: [CREATE("The neighbour's")],
      env,
    });
    const nextId = next.stream.sessionId as string;
    // The layout the agent made: both transcripts in the named folder, none named after a directory.
    expect(fs.readdirSync(path.join(w.config, 'projects'))).toEqual(['myproj']);
    expect(
      fs
        .readdirSync(path.join(w.config, 'projects', 'myproj'))
        .filter((f) => f.endsWith('.jsonl'))
        .sort(),
    ).toEqual([`${mineId}.jsonl`, `${nextId}.jsonl`].sort());
    expect(fs.existsSync(path.join(w.config, 'tasks', mineId, '1.json'))).toBe(true);
    // Another list, changed last: only the project rule can pick the agent's.
    expect((await w.tasks(w.home, ['-l', 'other', 'create', 'Elsewhere'])).code).toBe(0);

    for (const variable of [env, { CLAUDE_CODE_PROJECT_DIR_NAME: undefined }]) {
      const r = await w.tasks(proj, ['list', '--json'], variable);
      expect(r.code, r.stderr).toBe(0);
      expect(subjects(r.stdout)).toEqual(['Mine']);
      expect(r.stderr).toContain(`using list ${mineId.slice(0, 8)}`);
      expect(r.stderr).toContain('plan my work');
      const here = await w.tasks(proj, ['lists', '--here', '--json'], variable);
      expect((JSON.parse(here.stdout) as Array<{ id: string }>).map((row) => row.id)).toEqual([mineId]);
    }
    // A change there goes to the agent's list, and the agent, resumed there, sees it.
    const made = await w.tasks(proj, ['create', 'From tasks'], env);
    expect(made.code, made.stderr).toBe(0);
    expect(
      fs
        .readdirSync(path.join(w.config, 'tasks', mineId))
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual(['1.json', '2.json']);
    const resumed = await runAgent({
      configDir: w.config,
      listId: undefined,
      cwd: proj,
      prompt: 'go on',
      turns: [[{ name: 'TaskList', input: {} }]],
      args: ['--resume', mineId],
      env,
    });
    expect(resumed.received.at(-1)?.text).toContain('From tasks');
    expect(fs.readdirSync(path.join(w.config, 'projects'))).toEqual(['myproj']);
  });
});
