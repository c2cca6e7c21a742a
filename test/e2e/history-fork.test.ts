/**
 * Each change once, in the list it happened in, on real transcripts: a session, its
 * resumed run, its fork and a fork of the fork, as Claude Code 2.1.328 wrote them
 * (test/fixtures/claude-code-2.1.328/fork/README.md). A fork's copies of its parent's
 * entries count in the parent's list only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempConfig } from '../helpers/cli.js';
import { runInProcessSync } from '../helpers/in-process.js';

const PARENT = 'b662d4b4-5673-4d15-a9d3-6dd961fcbf2e';
const FORK = 'acebfa33-89bc-4c46-ae49-f0564e9fb3fa';

function world(): string {
  const config = tempConfig();
  fs.cpSync(path.join(FIXTURES, 'fork', 'projects'), path.join(config, 'projects'), { recursive: true });
  fs.cpSync(path.join(FIXTURES, 'fork', 'tasks'), path.join(config, 'tasks'), { recursive: true });
  return config;
}

const log = (config: string, list: string, ...args: string[]) =>
  runInProcessSync(config, ['-l', list, 'log', ...args], { env: { USER: 'carol' } });
/** `log --json`: one document, an array of changes. */
const events = (text: string) =>
  JSON.parse(text) as Array<{
    op: string;
    task: string;
    who: { session: string };
    changes: Record<string, { old?: unknown; new?: unknown }>;
  }>;

describe('a resumed and a forked session, as recorded', () => {
  it("the parent's list: its first run and its resumed run, each change once, none of the fork's", () => {
    const config = world();
    const r = log(config, PARENT, '--json');
    expect(r.code, r.stderr).toBe(0);
    const got = events(r.stdout);
    expect(got.map((e) => `${e.op} #${e.task}`)).toEqual(['create #1', 'create #2', 'update #1', 'update #2']);
    expect(got.every((e) => e.who.session === PARENT)).toBe(true);
    expect(got[3]?.changes).toEqual({ status: { old: 'pending', new: 'in_progress' } });
    // Nothing is unrecorded: the record explains both files.
    expect(got.some((e) => e.op === 'unrecorded')).toBe(false);
  });

  it("the fork's list: only the fork's own create; the copies of its parent's changes are said to count there", () => {
    const config = world();
    const r = log(config, FORK, '--json');
    expect(r.code, r.stderr).toBe(0);
    const got = events(r.stdout);
    expect(got.map((e) => `${e.op} #${e.task} ${String(e.changes.subject?.new)}`)).toEqual(['create #1 Ship']);
    expect(got[0]?.who.session).toBe(FORK);
    const text = log(config, FORK);
    expect(text.stderr).toContain("3 changes in entries a forked session copied from its parent: counted in the parent's list, not here");
    expect(text.stderr).toContain("and 1 transcript of this list's sessions");
    // The fork of the fork (no list of its own) is not tied to the fork's list by the copies it holds.
    const lists = JSON.parse(runInProcessSync(config, ['lists', '--json']).stdout) as Array<{
      id: string;
      sessions: Array<{ sessionId: string }>;
    }>;
    expect(lists.find((l) => l.id === FORK)?.sessions.map((x) => x.sessionId)).toEqual([FORK]);
  });
});

describe('a fork in tasks lists', () => {
  it('says whose fork it is, with its own prompt: not its copies of the parent, not a stale last-prompt entry', () => {
    const config = world();
    // The fork was asked something else than its parent (the recording asked both the same).
    const file = path.join(config, 'projects', '-tmp-hx-work', `${FORK}.jsonl`);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const copies = lines.map((l, i) => (/"type":"assistant"/.test(l) && l.includes(`"requestSessionId":"${PARENT}"`) ? i : -1));
    const own = lines.findIndex((l, i) => i > Math.max(...copies) && /"type":"user"/.test(l) && l.includes('"content":"follow the plan"'));
    expect(own).toBeGreaterThan(0);
    lines[own] = (lines[own] as string).replace('"content":"follow the plan"', '"content":"ship the release"');
    fs.writeFileSync(file, lines.join('\n'));

    const rows = JSON.parse(runInProcessSync(config, ['lists', '--all', '--json']).stdout) as Array<Record<string, unknown>>;
    expect(rows.find((r) => r.id === FORK)).toMatchObject({ forkOf: PARENT, prompt: 'ship the release', lastPrompt: 'ship the release' });
    expect(rows.find((r) => r.id === PARENT)).toMatchObject({ forkOf: null, prompt: 'follow the plan' });
    // Piped, PROMPT is the fork's own (the table's `fork of`: test/unit/lists-table.test.ts).
    const piped = runInProcessSync(config, ['lists', '--all']).stdout.split('\n');
    expect(piped.find((l) => l.startsWith(FORK))?.split('\t')).toContain('ship the release');
  });
});
