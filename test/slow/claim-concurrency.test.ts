import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/store/schema.js';
import { runAgentWriter } from '../helpers/agent.js';
import { type RunResult, readJson, runAsync, tempConfig, writeTask } from '../helpers/cli.js';

/**
 * Claims, dependencies and updates from many real processes at once, with the agents'
 * locks. Generous timeouts: the machine is shared and two cores are few for this many
 * Node processes; nothing here depends on timing.
 */
const TIMEOUT = 240_000;

function newList(name: string, count: number, extra: (id: string) => Partial<Task> = () => ({})): { config: string; list: string } {
  const config = tempConfig();
  const list = path.join(config, 'tasks', name);
  for (let i = 1; i <= count; i++) {
    writeTask(list, {
      id: String(i),
      subject: `task ${i}`,
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: [],
      ...extra(String(i)),
    });
  }
  fs.writeFileSync(path.join(list, '.lock'), '');
  return { config, list };
}

function readAll(list: string): Map<string, Task> {
  const tasks = new Map<string, Task>();
  for (const name of fs.readdirSync(list)) {
    if (/^\d+\.json$/.test(name)) {
      const t = readJson(path.join(list, name)) as Task;
      tasks.set(t.id, t);
    }
  }
  return tasks;
}

/** No lock directories or temp files left behind. */
function leftovers(list: string): string[] {
  return fs.readdirSync(list).filter((n) => (n.endsWith('.lock') && n !== '.lock') || n.endsWith('.tmp'));
}

describe('claims from many processes', () => {
  it('16 agents claim the same task at once: exactly one wins, fifteen get already_claimed', { timeout: TIMEOUT }, async () => {
    const { config, list } = newList('race', 1);
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => runAsync(config, ['-l', 'race', 'claim', '1', '--as', `agent${i}`, '--json'])),
    );
    const winners = results.map((r, i) => ({ r, agent: `agent${i}` })).filter(({ r }) => r.code === 0);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.agent;
    expect(JSON.parse(winners[0]!.r.stdout)).toMatchObject({ id: '1', owner: winner });
    const losers = results.filter((r) => r.code !== 0);
    expect(losers).toHaveLength(15);
    for (const r of losers) {
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'conflict', reason: 'already_claimed', task: { owner: winner } } });
    }
    expect(readAll(list).get('1')).toMatchObject({ owner: winner, status: 'pending' });
    expect(leftovers(list)).toEqual([]);
  });

  it('8 agents run claim --next against 40 ready tasks: each task claimed exactly once', { timeout: TIMEOUT }, async () => {
    const { config, list } = newList('next', 40);
    const worker = async (agent: string) => {
      const claimed: string[] = [];
      for (;;) {
        const r = await runAsync(config, ['-l', 'next', 'claim', '--next', '--as', agent]);
        // A claim that waits long for the list's lock says so (at load, it may): nothing else is on stderr.
        const stderr = r.stderr.replace(/^waiting for the list: .*\n/gm, '');
        // Nothing ready is 4 (a refusal); 3 would be a missing list.
        if (r.code === 4 && stderr.startsWith('error: no task is ready')) break;
        expect(stderr).toBe('');
        expect(r.code).toBe(0);
        claimed.push(r.stdout.trim());
      }
      return { agent, claimed };
    };
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => worker(`agent${i}`)));
    const all = runs.flatMap((w) => w.claimed);
    expect(all).toHaveLength(40);
    expect(all.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const tasks = readAll(list);
    for (const { agent, claimed } of runs) for (const id of claimed) expect(tasks.get(id)?.owner).toBe(agent);
    expect(leftovers(list)).toEqual([]);
  });

  it('with --busy-check --start, no agent ever holds two tasks; all 40 get done once', { timeout: TIMEOUT }, async () => {
    const { config, list } = newList('busy', 40);
    const worker = async (agent: string) => {
      const claimed: string[] = [];
      const refusals: RunResult[] = [];
      for (;;) {
        const r = await runAsync(config, ['-l', 'busy', 'claim', '--next', '--as', agent, '--busy-check', '--start']);
        if (r.code === 4 && r.stderr.startsWith('error: no task is ready')) break;
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const id = r.stdout.trim();
        claimed.push(id);
        // Holding one, a second claim must be refused (or find nothing left).
        const again = await runAsync(config, ['-l', 'busy', 'claim', '--next', '--as', agent, '--busy-check', '--json']);
        expect(again.code).toBe(4);
        const doc = (JSON.parse(again.stderr) as { error: { reason: string; busyWith: string[] } }).error;
        if (doc.reason !== 'no_task_ready') {
          expect(doc.reason).toBe('agent_busy');
          expect(doc.busyWith).toEqual([id]);
          refusals.push(again);
        }
        const done = await runAsync(config, [
          '-l',
          'busy',
          'update',
          id,
          '--status',
          'completed',
          '--if-owner',
          agent,
          '--if-status',
          'in_progress',
        ]);
        // The worker that completes the 40th task is nudged to verify (no task is a verification step).
        expect(done.stderr.replace(/^note: all 40 tasks are completed and none is a verification step: .*\n$/, '')).toBe('');
        expect(done.code).toBe(0);
      }
      return { agent, claimed, refusals: refusals.length };
    };
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => worker(`agent${i}`)));
    const all = runs.flatMap((w) => w.claimed);
    expect(all.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(runs.reduce((n, w) => n + w.refusals, 0)).toBeGreaterThan(0);
    const tasks = readAll(list);
    for (const { agent, claimed } of runs) {
      for (const id of claimed) expect(tasks.get(id)).toMatchObject({ owner: agent, status: 'completed' });
    }
    expect(leftovers(list)).toEqual([]);
  });
});

describe('dependencies and updates alongside an agent', () => {
  it('block/unblock/update from several processes and two agents writing: no update lost, edges mirrored', {
    timeout: TIMEOUT,
  }, async () => {
    const { config, list } = newList('deps', 6);
    const L = ['-l', 'deps'];
    // Edges always from a lower id to a higher one: no cycle can arise, every command must succeed.
    const edges: Array<[string, string]> = [
      ['1', '4'],
      ['2', '4'],
      ['1', '5'],
      ['3', '5'],
      ['2', '6'],
      ['4', '6'],
      ['3', '6'],
    ];
    const sequence = async (steps: string[][]) => {
      const out: RunResult[] = [];
      for (const args of steps) {
        const r = await runAsync(config, [...L, ...args]);
        // Unblocking an edge the other process has not added yet is a warning, not an error.
        expect(r.stderr, args.join(' ')).toMatch(/^(warning: #\d+ does not block #\d+\n)*$/);
        expect(r.code, args.join(' ')).toBe(0);
        out.push(r);
      }
      return out;
    };
    const blocker = sequence(edges.flatMap(([b, t]) => [['block', t, '--by', b]]).concat([['block', '6', '--by', '1,5']]));
    const unblocker = sequence([
      ['unblock', '4', '--by', '1'],
      ['unblock', '6'],
      ['block', '5', '--by', '2'],
      ['unblock', '5', '--by', '3'],
      ['block', '4', '--by', '3'],
      ['unblock', '6', '--by', '4'],
    ]);
    const cliKeys = Array.from({ length: 8 }, (_, i) => ({ id: String((i % 6) + 1), key: `cli-${i}` }));
    const updater = sequence(cliKeys.map(({ id, key }) => ['update', id, '--meta', `${key}=1`]));
    const agents = [
      runAgentWriter(list, 'agentA', 30, ['1', '2', '3', '4', '5', '6']),
      runAgentWriter(list, 'agentB', 30, ['6', '5', '4']),
    ];
    const [, , , a, b] = await Promise.all([blocker, unblocker, updater, ...agents]);
    for (const agent of [a!, b!]) {
      expect(agent.stderr).toBe('');
      expect(agent.code).toBe(0);
      expect(agent.updates).toHaveLength(30);
    }
    const tasks = readAll(list);
    // No update lost: every metadata key written, by us or by an agent, is there.
    for (const { id, key } of [...cliKeys, ...a!.updates, ...b!.updates]) {
      expect(tasks.get(id)?.metadata, `${key} on #${id}`).toHaveProperty(key);
    }
    // blocks and blockedBy are mirror images.
    for (const t of tasks.values()) {
      for (const x of t.blockedBy) expect(tasks.get(x)?.blocks, `#${x} blocks #${t.id}`).toContain(t.id);
      for (const x of t.blocks) expect(tasks.get(x)?.blockedBy, `#${t.id} blocks #${x}`).toContain(t.id);
      expect(new Set(t.blockedBy).size).toBe(t.blockedBy.length);
      expect(new Set(t.blocks).size).toBe(t.blocks.length);
    }
    expect(leftovers(list)).toEqual([]);
  });
});

describe('a cycle raced from two processes', () => {
  it('create --blocked-by 2 --blocks 1 beside block 2 --by 1, at once: never both, never a cycle on disk', {
    timeout: TIMEOUT,
  }, async () => {
    for (let round = 0; round < 12; round++) {
      const { config, list } = newList('race', 2);
      const [made, blocked] = await Promise.all([
        runAsync(config, ['-l', 'race', 'create', 'new', '--blocked-by', '2', '--blocks', '1']),
        runAsync(config, ['-l', 'race', 'block', '2', '--by', '1']),
      ]);
      // One of the two closes the cycle: it is refused (exit 4), whichever came second.
      expect([made.code, blocked.code].sort(), `round ${round}: ${made.stderr}${blocked.stderr}`).toEqual([0, 4]);
      const refused = made.code === 4 ? made : blocked;
      expect(refused.stderr).toMatch(/^error: .*cycle/);
      const tasks = readAll(list);
      const r = await runAsync(config, ['-l', 'race', 'check']);
      expect(r.stdout + r.stderr, `round ${round}`).not.toMatch(/cycle/);
      expect(tasks.size).toBe(made.code === 0 ? 3 : 2);
    }
  });
});
