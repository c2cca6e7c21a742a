import { describe, expect, it } from 'vitest';
import { tempConfig } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';
import { callsOf, createdId } from './stream.js';
import { barrier, counter, deferred } from './sync.js';
import { TasksCli } from './tasks-cli.js';

/**
 * Scenario 4: 4 agents and 4 `tasks` processes create tasks in one list at the same time.
 * Ids are allocated under the list lock on both sides; without it two creators compute
 * the same id and one task overwrites the other.
 *
 * Lining up, without relying on timing: every agent is held before its first turn until
 * all four are up; then the `tasks` processes start and the agents are let go, and each
 * later agent turn waits for our side's creates to reach its share, so the two sides'
 * creates stay interleaved all the way through.
 */

const AGENTS = 4;
const TURNS = 6;
const PER_TURN = 2;
const PROCS = 4;
const PER_PROC = 12;
const TOTAL = AGENTS * TURNS * PER_TURN + PROCS * PER_PROC;

describe('scenario 4: concurrent creates from agents and tasks', () => {
  it(`${AGENTS} agents and ${PROCS} tasks processes: ${TOTAL} tasks, unique ids, every file valid`, async () => {
    const config = tempConfig();
    const cli = new TasksCli(config, 'crowd');
    const ready = barrier(AGENTS);
    const go = deferred();
    const ours = counter();
    const share = (turn: number) => Math.floor((turn * PROCS * PER_PROC) / TURNS);

    const agents = Array.from({ length: AGENTS }, (_, a) => {
      const turns: Turn[] = Array.from({ length: TURNS }, (_, t) =>
        Array.from({ length: PER_TURN }, (_, i) => ({
          name: 'TaskCreate' as const,
          input: { subject: `agent ${a} turn ${t} #${i}`, description: `a${a}` },
        })),
      );
      return runAgent({
        configDir: config,
        listId: cli.listId,
        turns,
        beforeTurn: async (t) => {
          if (t === 0) {
            ready.arrive();
            await go.promise;
          } else {
            await ours.reached(share(t));
          }
        },
      });
    });

    // An agent that dies before its first turn fails the test (and lets the others go)
    // instead of leaving it waiting at the barrier.
    await Promise.race([ready.all, Promise.all(agents)]).catch((err: unknown) => {
      go.resolve();
      throw err;
    });
    const procs = Array.from({ length: PROCS }, async (_, p) => {
      const made: Array<[string, string]> = [];
      for (let i = 0; i < PER_PROC; i++) {
        const subject = `tasks ${p} #${i}`;
        const r = await cli.run('create', subject);
        // Whoever finds the list missing says it starts a new one.
        expect(r, subject).toMatchObject({ code: 0, stderr: expect.stringMatching(/^(new list "crowd"\n)?$/) });
        made.push([r.stdout.trim(), subject]);
        ours.add();
      }
      return made;
    });
    go.resolve();
    const ourRuns = Promise.all(procs).finally(ours.release);
    ourRuns.catch(() => undefined); // awaited below, after the agents; no unhandled rejection meanwhile

    const runs = await Promise.all(agents);
    const byUs = (await ourRuns).flat();
    const byAgents = runs.flatMap((run) =>
      callsOf(run.stream, 'TaskCreate').map((c) => {
        expect(c.text).toMatch(/^Task #\d+ created successfully: /);
        return [createdId(c) as string, String(c.input.subject)] as [string, string];
      }),
    );

    // Every creator was given a different id, and the ids are exactly 1..TOTAL.
    const reported = [...byAgents, ...byUs];
    expect(reported).toHaveLength(TOTAL);
    const claimants = new Map<string, string[]>();
    for (const [id, subject] of reported) claimants.set(id, [...(claimants.get(id) ?? []), subject]);
    const shared = [...claimants].filter(([, who]) => who.length > 1).map(([id, who]) => `#${id}: ${who.join(' / ')}`);
    expect(shared, 'ids given to two creators').toEqual([]);
    const ids = reported.map(([id]) => Number(id)).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));

    // Each file holds what its creator wrote there (nothing was overwritten), and is valid.
    const files = cli.files();
    expect(files.size).toBe(TOTAL);
    for (const [id, subject] of reported) expect(files.get(id)?.subject, `#${id}`).toBe(subject);
    expect(await cli.list()).toHaveLength(TOTAL);
    expect(cli.leftoverLocks()).toEqual([]);
  });
});
