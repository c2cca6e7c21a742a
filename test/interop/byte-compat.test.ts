import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { ToolCallSpec, Turn } from './mock-model.js';
import { callsOf } from './stream.js';
import { TasksCli } from './tasks-cli.js';

/**
 * Byte compatibility: two copies of one list; the agent makes a change in one (TaskUpdate,
 * TaskCreate), `tasks` makes the same change in the other; every file must come out
 * byte for byte the same, and `tasks` must report the change as TaskUpdate does
 * ("Updated task #3 subject, description, ..."). Starting files include what agents leave
 * behind (an owner appended last), hand-written ones (odd key order, compact, a trailing
 * newline) and non-ASCII text. Unknown top-level keys are left out on purpose: agents
 * drop them, `tasks` keeps them (see docs/guide/compatibility.md).
 */

const fresh = (id: string, subject: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, subject, description: subject.toLowerCase(), status: 'pending', blocks: [], blockedBy: [], ...extra }, null, 2);

/** The starting files, as raw text: the same bytes go into both lists. */
const START: Record<string, string> = {
  '1': fresh('1', 'A'),
  '2': fresh('2', 'B'),
  '3': fresh('3', 'C'),
  '4': JSON.stringify(
    {
      id: '4',
      subject: 'D',
      description: 'd',
      activeForm: 'Ding',
      owner: 'amy',
      status: 'in_progress',
      blocks: [],
      blockedBy: [],
      metadata: { keep: 1, drop: 2 },
    },
    null,
    2,
  ),
  '5': fresh('5', 'E'),
  '6': fresh('6', 'F'),
  '7': '{"status":"pending","id":"7","blockedBy":[],"subject":"Odd","blocks":[],"description":"hand-written"}\n',
  '8': fresh('8', 'H', { owner: 'amy' }), // owner last, as an agent's first owner write leaves it
  '9': fresh('9', 'Café ✓ 日本語 🚀'),
  '10': fresh('10', 'J', { metadata: { cfg: { a: 1, b: [1, 2] }, other: 'x' } }),
  '11': fresh('11', 'K'),
  '12': fresh('12', 'L'),
};

/** Each change, as the agent's TaskUpdate input and as `tasks update` flags. */
const UPDATES: Array<{ input: Record<string, unknown>; flags: string[] }> = [
  { input: { taskId: '1', owner: 'bob' }, flags: ['--owner', 'bob'] },
  { input: { taskId: '2', metadata: { z: 1 }, activeForm: 'Bing' }, flags: ['--meta', 'z:=1', '--active-form', 'Bing'] },
  {
    input: { taskId: '3', metadata: { m: 1 }, owner: 'bob', activeForm: 'Cing', status: 'in_progress', subject: 'C2', description: 'd2' },
    flags: ['--meta', 'm:=1', '--owner', 'bob', '--active-form', 'Cing', '--status', 'in_progress', '--subject', 'C2', '-d', 'd2'],
  },
  {
    input: { taskId: '4', status: 'completed', metadata: { drop: null, add: 'x' } },
    flags: ['--status', 'completed', '--unset-meta', 'drop', '--meta', 'add=x'],
  },
  { input: { taskId: '5', metadata: { k: null }, addBlocks: ['6'] }, flags: ['--unset-meta', 'k', '--add-blocks', '6'] },
  { input: { taskId: '7', status: 'in_progress' }, flags: ['--status', 'in_progress'] },
  { input: { taskId: '8', owner: 'zed' }, flags: ['--owner', 'zed'] },
  { input: { taskId: '9', description: 'naïve “quotes” \u2028 and a tab\there' }, flags: ['-d', 'naïve “quotes” \u2028 and a tab\there'] },
  { input: { taskId: '10', metadata: { cfg: { c: 3 } } }, flags: ['--meta', 'cfg:={"c":3}'] },
  {
    input: { taskId: '11', status: 'pending', subject: 'K2', addBlockedBy: ['12'] },
    flags: ['--status', 'pending', '--subject', 'K2', '--add-blocked-by', '12'],
  },
];

/** Creates, as TaskCreate input and as `tasks create` arguments; ids 13 and 14 on both sides. */
const CREATES: Array<{ input: Record<string, unknown>; args: string[] }> = [
  {
    input: { subject: 'New one', description: 'with everything', activeForm: 'Making one', metadata: { priority: 'high', n: 2 } },
    args: ['New one', '-d', 'with everything', '--active-form', 'Making one', '--meta', 'priority=high', '--meta', 'n:=2'],
  },
  { input: { subject: 'Plain', description: '' }, args: ['Plain'] },
];

function seed(cli: TasksCli): void {
  fs.mkdirSync(cli.dir, { recursive: true });
  for (const [id, text] of Object.entries(START)) fs.writeFileSync(path.join(cli.dir, `${id}.json`), text);
}

function snapshot(cli: TasksCli): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(cli.dir).sort()) {
    if (name.endsWith('.json') || name === '.highwatermark') out[name] = fs.readFileSync(path.join(cli.dir, name), 'utf8');
  }
  return out;
}

describe('byte compatibility with the agent', () => {
  it('tasks update and tasks create write the very bytes TaskUpdate and TaskCreate write', async () => {
    const config = tempConfig();
    const agentSide = new TasksCli(config, 'by-agent');
    const ourSide = new TasksCli(config, 'by-tasks');
    seed(agentSide);
    seed(ourSide);

    // Updates touch disjoint tasks (5 also touches 6, 11 touches 12), so one turn may run them at once.
    const turns: Turn[] = [
      UPDATES.map((u): ToolCallSpec => ({ name: 'TaskUpdate', input: u.input })),
      ...CREATES.map((c): Turn => [{ name: 'TaskCreate', input: c.input }]),
    ];
    const { stream } = await runAgent({ configDir: config, listId: agentSide.listId, turns });
    const agentSaid = new Map(callsOf(stream, 'TaskUpdate').map((c) => [String(c.input.taskId), c.text]));

    for (const u of UPDATES) {
      const id = String(u.input.taskId);
      const said = await ourSide.ok('update', id, ...u.flags);
      expect(said.trimEnd(), `tasks update ${id} reports what TaskUpdate reported`).toBe(agentSaid.get(id));
    }
    for (const c of CREATES) await ourSide.ok('create', ...c.args);
    expect(callsOf(stream, 'TaskCreate').map((c) => c.text)).toEqual([
      'Task #13 created successfully: New one',
      'Task #14 created successfully: Plain',
    ]);

    const theirs = snapshot(agentSide);
    const ours = snapshot(ourSide);
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    for (const name of Object.keys(theirs)) expect(ours[name], name).toBe(theirs[name]);
    // Each starting file was rewritten by the change (6 and 12 through edges), so none passed untested.
    for (const id of Object.keys(START)) expect(theirs[`${id}.json`], `${id}.json changed`).not.toBe(START[id]);
  });
});
