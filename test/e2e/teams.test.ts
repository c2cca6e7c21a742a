import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readJson, runAsync, stderrText, writeTask } from '../helpers/cli.js';
import { type HookWorld, hookWorld, writeTeam } from '../helpers/hooks.js';
import { runInProcess } from '../helpers/in-process.js';
import { runInTmux, tmuxAvailable } from '../helpers/tmux.js';

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `Task ${id}`,
  description: `about ${id}`,
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

function teamWorld(): HookWorld & { listDir: string; inbox: (agent: string) => string } {
  const world = hookWorld();
  writeTeam(world, 'core', ['team-lead', 'alice', 'bob']);
  const listDir = path.join(world.config, 'tasks', 'core');
  return { ...world, listDir, inbox: (agent) => path.join(world.config, 'teams', 'core', 'inboxes', `${agent}.json`) };
}

async function tasks(world: HookWorld, args: string[]) {
  return runInProcess(world.config, args, { cwd: world.project });
}

describe('task_assignment messages', () => {
  it("update --owner in a team list writes exactly what TaskUpdate writes to the new owner's inbox", async () => {
    const world = teamWorld();
    writeTask(world.listDir, task('1'));
    const started = Date.now();
    const r = await tasks(world, ['-l', 'core', 'update', '1', '--owner', 'alice', '--subject', 'New title']);
    expect(r).toMatchObject({
      code: 0,
      stdout: 'Updated task #1 subject, owner\n',
      stderr: 'told alice of task #1 (inbox of team "core")\n',
    });
    const bytes = fs.readFileSync(world.inbox('alice'), 'utf8');
    const messages = JSON.parse(bytes) as Array<Record<string, unknown>>;
    expect(bytes).toBe(JSON.stringify(messages, null, 2));
    expect(messages).toHaveLength(1);
    const [m] = messages;
    expect(Object.keys(m!)).toEqual(['from', 'text', 'timestamp', 'msgV', 'msg_id', 'type', 'read']);
    expect(m).toEqual({
      from: 'team-lead',
      text: expect.any(String),
      timestamp: expect.any(String),
      msgV: 1,
      msg_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'message',
      read: false,
    });
    const at = Date.parse(m!.timestamp as string);
    expect(at).toBeGreaterThanOrEqual(started - 5);
    expect(at).toBeLessThanOrEqual(Date.now());
    // The text: the task as it was before this update (as TaskUpdate sends it), in its key order.
    expect(m!.text).toBe(
      JSON.stringify({
        type: 'task_assignment',
        taskId: '1',
        subject: 'Task 1',
        description: 'about 1',
        assignedBy: 'team-lead',
        timestamp: m!.timestamp,
      }),
    );
    expect(fs.existsSync(`${world.inbox('alice')}.lock`)).toBe(false);
  });

  it('claim and claim --next tell the new owner; claiming your own task again tells nobody; --no-notify', async () => {
    const world = teamWorld();
    writeTask(world.listDir, task('1'));
    writeTask(world.listDir, task('2'));
    writeTask(world.listDir, task('3'));
    const claim = await tasks(world, ['-l', 'core', 'claim', '1', '--as', 'alice']);
    expect(claim).toMatchObject({ code: 0, stdout: '1\n', stderr: 'told alice of task #1 (inbox of team "core")\n' });
    expect((await tasks(world, ['-l', 'core', 'claim', '1', '--as', 'alice'])).stderr).toBe('');
    expect((await tasks(world, ['-l', 'core', 'claim', '--next', '--as', 'bob'])).stdout).toBe('2\n');
    expect((await tasks(world, ['-l', 'core', 'claim', '3', '--as', 'bob', '--no-notify'])).code).toBe(0);
    const alice = readJson(world.inbox('alice')) as Array<{ text: string }>;
    const bob = readJson(world.inbox('bob')) as Array<{ text: string }>;
    expect(alice.map((m) => JSON.parse(m.text).taskId)).toEqual(['1']);
    expect(bob.map((m) => JSON.parse(m.text).taskId)).toEqual(['2']);
    // A refused claim tells nobody.
    expect((await tasks(world, ['-l', 'core', 'claim', '1', '--as', 'bob'])).code).toBe(4);
    expect((readJson(world.inbox('bob')) as unknown[]).length).toBe(1);
  });

  it('appends to an existing inbox and keeps entries it does not know', async () => {
    const world = teamWorld();
    writeTask(world.listDir, task('1'));
    writeTask(world.listDir, task('2'));
    fs.mkdirSync(path.dirname(world.inbox('bob')), { recursive: true });
    const old = [{ from: 'alice', text: 'hi', timestamp: '2026-01-01T00:00:00.000Z', read: true, custom: { x: 1 } }, 'odd entry'];
    fs.writeFileSync(world.inbox('bob'), JSON.stringify(old));
    expect((await tasks(world, ['-l', 'core', 'update', '1', '--owner', 'bob'])).code).toBe(0);
    expect((await tasks(world, ['-l', 'core', 'create', 'Fresh', '-d', 'new work', '--owner', 'bob'])).stdout).toBe('3\n');
    const messages = readJson(world.inbox('bob')) as Array<{ text: string }>;
    expect(messages.slice(0, 2)).toEqual(old);
    expect(messages.slice(2).map((m) => JSON.parse(m.text).taskId)).toEqual(['1', '3']);
    expect(JSON.parse(messages[3]!.text)).toMatchObject({ subject: 'Fresh', description: 'new work' });
  });

  it('tells nobody on unassign, on the same owner again, with --no-notify, or outside a team', async () => {
    const world = teamWorld();
    writeTask(world.listDir, task('1', { owner: 'alice' }));
    writeTask(world.list, task('1'));
    expect((await tasks(world, ['-l', 'core', 'update', '1', '--owner', 'alice'])).stderr).toBe('');
    expect((await tasks(world, ['-l', 'core', 'update', '1', '--no-owner'])).stderr).toBe('');
    expect(await tasks(world, ['-l', 'core', 'update', '1', '--owner', 'bob', '--no-notify'])).toMatchObject({
      code: 0,
      stderr: 'not telling bob of task #1 (--no-notify)\n',
    });
    expect(readJson(path.join(world.listDir, '1.json'))).toMatchObject({ owner: 'bob' });
    expect(await tasks(world, ['-l', 'l', 'update', '1', '--owner', 'alice'])).toMatchObject({ code: 0, stderr: '' });
    expect(fs.existsSync(path.join(world.config, 'teams', 'core', 'inboxes'))).toBe(false);
    expect(fs.readdirSync(path.join(world.config, 'teams'))).toEqual(['core']);
  });

  it('an inbox that is not a JSON array is left alone; the owner change stands, with a warning', async () => {
    const world = teamWorld();
    writeTask(world.listDir, task('1'));
    fs.mkdirSync(path.dirname(world.inbox('alice')), { recursive: true });
    fs.writeFileSync(world.inbox('alice'), '{"not": "an array"}');
    const r = await tasks(world, ['-l', 'core', 'update', '1', '--owner', 'alice']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^warning: task #1 is assigned to alice, but their inbox could not be written: inbox .*alice\.json is not a JSON array; not writing over it\n$/,
    );
    expect(fs.readFileSync(world.inbox('alice'), 'utf8')).toBe('{"not": "an array"}');
    expect(readJson(path.join(world.listDir, '1.json'))).toMatchObject({ owner: 'alice' });
  });

  it('concurrent writers to one inbox lose no message: tasks processes and a node writer with the same lock', async () => {
    const world = teamWorld();
    for (let i = 1; i <= 8; i++) writeTask(world.listDir, task(String(i)));
    const writer = new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'test', 'helpers', 'inbox-writer.mjs'), world.inbox('alice'), '20', 'w'], {
        cwd: ROOT,
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('close', () => resolve(out.trim()));
    });
    const updates = Array.from({ length: 8 }, (_, i) =>
      // The binary: several updates at once while another process writes the inbox.
      runAsync(world.config, ['-l', 'core', 'update', String(i + 1), '--owner', 'alice'], { cwd: world.project }),
    );
    const results = await Promise.all(updates);
    for (const r of results) expect(r).toMatchObject({ code: 0, stderr: expect.stringMatching(/^told alice of task #\d+/) });
    expect(await writer).toBe('0');
    const messages = readJson(world.inbox('alice')) as Array<{ text: string; from: string }>;
    expect(messages).toHaveLength(28);
    const assigned = messages.filter((m) => m.from === 'team-lead').map((m) => JSON.parse(m.text).taskId as string);
    expect(assigned.sort((a, b) => Number(a) - Number(b))).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(messages.filter((m) => m.from === 'writer').map((m) => m.text)).toEqual(Array.from({ length: 20 }, (_, i) => `w-${i}`));
  });
});

describe('teams in lists and list --owner', () => {
  it('lists shows the team and its members (json and piped)', async () => {
    const world = teamWorld();
    writeTask(world.listDir, task('1'));
    writeTask(world.list, task('1'));
    const json = JSON.parse((await tasks(world, ['lists', '--json'])).stdout) as Array<Record<string, unknown>>;
    const byId = Object.fromEntries(json.map((l) => [l.id, l]));
    expect(byId.core).toMatchObject({ team: 'core', members: ['team-lead', 'alice', 'bob'] });
    expect(byId.l).toMatchObject({ team: null, members: [] });
    const lines = (await tasks(world, ['lists'])).stdout.trim().split('\n').sort();
    expect(lines[0]).toMatch(/^core\t1\t0\t0\t1\t\S+\tcore\tteam-lead,alice,bob\t/);
    expect(lines[1]).toMatch(/^l\t1\t0\t0\t1\t\S+\t-\t-\t/);
  });

  it.skipIf(!tmuxAvailable())('lists shows a TEAM column in a terminal layout', async () => {
    const world = teamWorld();
    writeTask(world.listDir, task('1'));
    const r = await runInProcess(world.config, ['lists'], { cwd: world.project, env: { FORCE_COLOR: '0' } });
    // The table is for terminals: run it in one.
    // The binary in a terminal (tmux): the table as a person sees it.
    const plain = await runInTmux(world.config, ['lists'], { width: 120, height: 10 });
    expect(r.stdout).toMatch(/\tcore\t/);
    // No session is known here: the session columns take no room.
    expect(plain.split('\n')[0]).toMatch(/^LIST\s+TASKS\s+CHANGED\s+TEAM$/);
    expect(plain.split('\n')[1]).toMatch(/core \(3: team-lead, alice, bob\)$/);
  });

  it('list --owner takes member names; an unknown name is a warning, not an error', async () => {
    const world = teamWorld();
    writeTask(world.listDir, task('1', { owner: 'alice' }));
    writeTask(world.listDir, task('2', { owner: 'zed' }));
    const member = await tasks(world, ['-l', 'core', 'list', '--owner', 'bob', '--json']);
    expect(member).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
    expect(await tasks(world, ['-l', 'core', 'list', '--owner', 'zed', '--json'])).toMatchObject({ code: 0, stderr: '' });
    const typo = await tasks(world, ['-l', 'core', 'list', '--owner', 'alcie', '--json']);
    expect(typo).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(stderrText(typo.stderr)).toBe(
      'warning: "alcie" is not a member of team "core" (members: team-lead, alice, bob) and owns no task here\n',
    );
  });
});
