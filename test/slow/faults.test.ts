import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskSchemas } from '../../src/core/store/schema.js';
import { BIN, baseEnv, run, tempConfig, writeTask } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

/**
 * Fault injection through the built binary: processes killed with SIGKILL (nothing of
 * theirs runs after), or interrupted with SIGINT / SIGTERM, at random moments and at the
 * moments that matter (just as a lock directory or a temp file appears).
 */

type When = 'random' | 'lock' | 'temp';

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** The signal was sent before the process ended on its own. */
  killed: boolean;
}

/** Run the binary and send `signal` at the chosen moment (or never, if it ends first). */
function runAndHit(config: string, list: string, args: string[], signal: NodeJS.Signals, when: When): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: baseEnv(config), cwd: config, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let killed = false;
    let exited = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.resume();
    const hit = () => {
      if (exited || killed) return;
      killed = true;
      child.kill(signal);
    };
    let watcher: fs.FSWatcher | undefined;
    let timer: NodeJS.Timeout | undefined;
    if (when === 'random') {
      timer = setTimeout(hit, Math.floor(Math.random() * 450));
    } else {
      const pattern = when === 'lock' ? /\.lock$/ : /\.tmp$/;
      watcher = fs.watch(list, (_event, name) => {
        if (name && pattern.test(name) && name !== '.lock') hit();
      });
    }
    child.on('exit', () => {
      exited = true;
      watcher?.close();
      if (timer) clearTimeout(timer);
    });
    child.on('close', (code, sig) => resolve({ code, signal: sig, stdout, killed }));
  });
}

interface FileState {
  ids: string[];
  tasks: Map<string, Record<string, unknown>>;
  locks: string[];
  temps: string[];
}

/** The list as it is on disk; every task file must be a whole, valid task named by its id. */
function inspect(list: string): FileState {
  const state: FileState = { ids: [], tasks: new Map(), locks: [], temps: [] };
  for (const name of fs.readdirSync(list)) {
    if (name.endsWith('.lock') && name !== '.lock') state.locks.push(name);
    else if (name.endsWith('.tmp')) state.temps.push(name);
    else if (/^\d+\.json$/.test(name)) {
      const text = fs.readFileSync(path.join(list, name), 'utf8');
      let parsed: unknown;
      expect(() => (parsed = JSON.parse(text)), `${name} is partial: ${JSON.stringify(text.slice(0, 80))}`).not.toThrow();
      const result = taskSchemas().TaskSchema.safeParse(parsed);
      expect(result.success, `${name} is not a valid task`).toBe(true);
      const task = parsed as Record<string, unknown>;
      expect(task.id).toBe(name.slice(0, -5));
      state.ids.push(task.id as string);
      state.tasks.set(task.id as string, task);
    }
  }
  state.ids.sort((a, b) => Number(a) - Number(b));
  return state;
}

/** A killed holder's lock dir: age it past the stale time, as 10 s of waiting would. */
function ageLocks(list: string, names: readonly string[]): void {
  const past = new Date(Date.now() - 11_000);
  for (const name of names) {
    try {
      fs.utimesSync(path.join(list, name), past, past);
    } catch {
      // already gone
    }
  }
}

const t = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  subject: `task ${id}`,
  description: '',
  status: 'pending',
  blocks: [],
  blockedBy: [],
  ...extra,
});

describe('fault injection', () => {
  it('SIGKILL during create, update, claim and delete, 100 rounds: no partial file, no lost task, no id reused, no lock stuck past the stale time', async () => {
    const config = tempConfig();
    const list = path.join(config, 'tasks', 'f');
    // Pairs 1 -> 2, 3 -> 4, ...: both sides of every edge written; half the tasks claimable.
    for (let i = 1; i <= 30; i++) {
      writeTask(list, t(String(i), i % 2 === 1 ? { blocks: [String(i + 1)] } : { blockedBy: [String(i - 1)] }));
    }
    const everUsed = new Set(inspect(list).ids);
    const expectedMeta = new Map<string, string[]>(); // successful updates: id -> keys
    const expectedOwner = new Map<string, string>(); // successful claims: id -> agent
    let killedCount = 0;
    let leftLocks = 0; // lock directories killed processes left
    let leftTemps = 0;
    const whens: When[] = ['random', 'lock', 'temp'];
    for (let round = 0; round < 100; round++) {
      const before = inspect(list);
      const pick = before.ids[Math.floor(Math.random() * before.ids.length)] as string;
      const op = (['create', 'update', 'claim', 'delete'] as const)[round % 4]!;
      const when = whens[Math.floor(round / 4) % 3] as When;
      const args = {
        create: ['-l', 'f', 'create', `round ${round}`, '--blocked-by', pick],
        update: ['-l', 'f', 'update', pick, '--meta', `r${round}=x`],
        claim: ['-l', 'f', 'claim', pick, '--as', `agent-${round}`],
        delete: ['-l', 'f', 'delete', pick],
      }[op];
      const started = Date.now();
      const out = await runAndHit(config, list, args, 'SIGKILL', when);
      const elapsed = Date.now() - started;
      if (out.killed) killedCount++;
      const after = inspect(list); // asserts: every task file whole and valid
      const ok = !out.killed && out.code === 0;
      // No lost task: everything that was there is still there, but what a delete took.
      for (const id of before.ids) if (!(op === 'delete' && id === pick)) expect(after.ids, `round ${round}: lost #${id}`).toContain(id);
      if (ok && op === 'delete') expect(after.ids).not.toContain(pick);
      if (ok && op === 'create') expect(after.ids).toContain(out.stdout.trim());
      if (ok && op === 'update') expectedMeta.set(pick, [...(expectedMeta.get(pick) ?? []), `r${round}`]);
      if (ok && op === 'claim') expectedOwner.set(pick, `agent-${round}`);
      // A claim is one locked write: killed or not, the task has no owner or the claimant.
      if (op === 'claim' && !expectedOwner.has(pick) && after.tasks.has(pick)) {
        expect([undefined, `agent-${round}`]).toContain(after.tasks.get(pick)?.owner);
        if (after.tasks.get(pick)?.owner !== undefined) expectedOwner.set(pick, `agent-${round}`);
      }
      // No id ever handed out twice.
      for (const id of after.ids) {
        if (!before.ids.includes(id)) {
          expect(everUsed.has(id), `round ${round}: id ${id} reused`).toBe(false);
          everUsed.add(id);
        }
      }
      // No lost update among those that reported success.
      for (const [id, keys] of expectedMeta) {
        const task = after.tasks.get(id);
        if (task)
          for (const key of keys)
            expect((task.metadata as Record<string, unknown>)?.[key], `round ${round}: lost ${key} on #${id}`).toBe('x');
      }
      // A claim once made holds: later claims by others are refused.
      for (const [id, agent] of expectedOwner) {
        const task = after.tasks.get(id);
        if (task) expect(task.owner, `round ${round}: owner of #${id}`).toBe(agent);
      }
      // A lock left by the killed process: the next writer must get past it. Its age is set
      // past the stale time, as ten seconds would leave it (locks.test.ts waits those out
      // for real); then a write that needs it takes it at once, with no wait to announce.
      // The writer runs in process: its holder is dead, the lock is only a directory now.
      const newLocks = after.locks.filter((l) => !before.locks.includes(l));
      leftLocks += newLocks.length;
      ageLocks(list, after.locks);
      for (const lock of after.locks) {
        const id = /^(\d+)\.json\.lock$/.exec(lock)?.[1];
        const probe =
          lock === '.lock.lock'
            ? ['-l', 'f', 'create', `probe ${round}`]
            : id && after.ids.includes(id)
              ? ['-l', 'f', 'update', id, '--meta', `p${round}=x`]
              : undefined;
        if (probe === undefined) continue;
        const r = await runInProcess(config, probe);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toBe('');
        if (probe[2] === 'create') everUsed.add(r.stdout.trim());
        else expectedMeta.set(id as string, [...(expectedMeta.get(id as string) ?? []), `p${round}`]);
        expect(inspect(list).locks).not.toContain(lock);
      }
      leftTemps += after.temps.length - before.temps.length;
      // Processes that were not killed took no longer than start-up, work and one stale lock.
      if (!out.killed) expect(elapsed, `round ${round} took ${elapsed} ms`).toBeLessThan(40_000);
    }
    // Whatever the kills left (half edges, references to deleted tasks, aged locks,
    // temp files), check --fix repairs, after which check is clean.
    const final = inspect(list);
    ageLocks(list, [...final.locks, ...final.temps]);
    const fix = run(config, ['-l', 'f', 'check', '--fix', '--json']);
    expect([0, 4]).toContain(fix.code);
    const again = run(config, ['-l', 'f', 'check', '--json']);
    const remaining = (JSON.parse(again.stdout) as { findings: Array<{ code: string }> }).findings;
    // Temp files younger than the stale time are not findings; nothing else may remain.
    expect(remaining.map((f) => f.code)).toEqual([]);
    expect(again.code).toBe(0);
    expect(inspect(list).locks).toEqual([]);
    expect(killedCount).toBeGreaterThan(30);
    console.log(
      `fault injection: 100 rounds, ${killedCount} killed, ${leftLocks} locks and ${leftTemps} temp files left behind, all recovered`,
    );
  }, 240_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} during update, create, block and unblock: the old or the new file, both sides of an edge or neither, never a lock left`, async () => {
      const config = tempConfig();
      const list = path.join(config, 'tasks', 's');
      writeTask(list, t('1'));
      writeTask(list, t('2'));
      const handled: string[] = []; // signalled, and ended by our code rather than by the signal
      for (let round = 0; round < 24; round++) {
        const kind = (['update', 'create', 'block', 'unblock'] as const)[round % 4]!;
        const create = kind === 'create';
        const before = inspect(list);
        const args = {
          update: ['-l', 's', 'update', '1', '--meta', `k${round}=v`],
          create: ['-l', 's', 'create', `c${round}`, '--blocked-by', '1'],
          // Two task-locked writes in one command: never one without the other.
          block: ['-l', 's', 'block', '2', '--by', '1'],
          unblock: ['-l', 's', 'unblock', '2', '--by', '1'],
        }[kind];
        const out = await runAndHit(config, list, args, signal, round % 4 < 2 ? 'lock' : 'random');
        const after = inspect(list);
        expect(after.locks, `round ${round}`).toEqual([]);
        expect(after.temps, `round ${round}`).toEqual([]);
        if (out.killed) {
          // Our handler stops with 130 once the locked step is done; a command that handles
          // the signal itself (create and update, for their hooks) finishes and ends with 0;
          // before any handler is installed, the default action applies.
          expect(out.code === 130 || out.signal === signal || out.code === 0, `round ${round}: ${out.code} ${out.signal}`).toBe(true);
          if (out.signal === null) handled.push(String(round));
        } else expect(out.code).toBe(0);
        const finished = out.code === 0;
        if (kind === 'block' || kind === 'unblock') {
          const one = after.tasks.get('1')?.blocks as string[];
          const two = after.tasks.get('2')?.blockedBy as string[];
          expect(one.includes('2'), `round ${round}: edge half written`).toBe(two.includes('1'));
          if (finished) expect(two.includes('1')).toBe(kind === 'block');
        } else if (!create) {
          const meta = (after.tasks.get('1')?.metadata ?? {}) as Record<string, unknown>;
          const old = (before.tasks.get('1')?.metadata ?? {}) as Record<string, unknown>;
          // Either untouched, or the whole change.
          expect(Object.keys(meta).length - Object.keys(old).length, `round ${round}`).toBeLessThanOrEqual(1);
          if (finished) expect(meta[`k${round}`]).toBe('v');
        } else {
          const created = after.ids.filter((id) => !before.ids.includes(id));
          expect(created.length).toBeLessThanOrEqual(1);
          // A task created under the lock gets its edge on #1 too: the step after the lock runs to its end.
          for (const id of created) {
            if (out.code === 130 || out.code === 0) expect(after.tasks.get('1')?.blocks as string[], `round ${round}`).toContain(id);
          }
        }
      }
      // The signal landed while the command ran (a lock in play) at least a few times, and was handled.
      expect(handled.length).toBeGreaterThan(2);
    }, 120_000);
  }
});
