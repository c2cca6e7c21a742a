import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempConfig, writeTask } from '../helpers/cli.js';
import { runAgent } from './agent.js';
import type { Turn } from './mock-model.js';
import { callsOf } from './stream.js';
import { counter, deferred } from './sync.js';
import { TasksCli } from './tasks-cli.js';

/**
 * Scenario 5: an agent updates a task (metadata, status) while `tasks update` changes
 * other fields of the same task (subject, activeForm, owner). Both sides take the task lock
 * around read-merge-write, so both sides' changes survive. Each agent write adds a
 * metadata key of its own, so a write of ours made from a stale read (no lock) shows as
 * a missing key; each of our processes owns one field, so a lost write of ours shows as a
 * field that is not at its last revision.
 *
 * The agent makes one TaskUpdate per turn: Claude Code 2.1.328 merges `metadata` with a
 * copy of the task read before it takes the task lock, so two metadata updates to one
 * task at once (even two of its own, in one turn) can lose a key. Nobody can prevent that
 * from outside; it is why our side never touches metadata here.
 *
 * The task carries a long description (as a task with a pasted log might): each side's
 * read-merge-write then takes tens of milliseconds instead of a fraction of one, so a
 * write made without the lock meets the other side's in most rounds rather than once in
 * many runs. Run many times all the same.
 */

const ROUNDS = 10;
const AGENT_WRITES = 6;
const FIELDS = ['subject', 'active-form', 'owner'] as const;
const PER_PROC = 3;
/** About 3.5 MB. */
const LONG_DESCRIPTION = 'A pasted build log line, long enough to make every read and write of this task slow.\n'.repeat(40_000);

describe('scenario 5: the agent and tasks update one task at the same time', () => {
  it.each(Array.from({ length: ROUNDS }, (_, i) => i + 1))('round %i: every change from both sides survives', async (round) => {
    const config = tempConfig();
    const cli = new TasksCli(config, `shared-${round}`);
    writeTask(cli.dir, { id: '1', subject: 'Shared', description: LONG_DESCRIPTION, status: 'pending', blocks: [], blockedBy: [] });

    const go = deferred();
    const ours = counter();
    const agentKeys = Array.from({ length: AGENT_WRITES }, (_, t) => `agent_${t}`);
    const turns: Turn[] = agentKeys.map((key, t) => [
      { name: 'TaskUpdate', input: { taskId: '1', metadata: { [key]: round }, ...(t === 0 ? { status: 'in_progress' } : {}) } },
    ]);
    const agent = runAgent({
      configDir: config,
      listId: cli.listId,
      turns,
      // Held until our processes start; then each turn waits for our share of writes,
      // so the two sides' writes stay interleaved from first to last.
      beforeTurn: (t) => (t === 0 ? go.promise : ours.reached(Math.floor((t * FIELDS.length * PER_PROC) / AGENT_WRITES))),
    });

    const procs = FIELDS.map(async (field) => {
      for (let i = 1; i <= PER_PROC; i++) {
        const key = field === 'active-form' ? 'activeForm' : field;
        const r = await cli.run('update', '1', `--${field}`, `${key} rev ${i}`);
        expect(r, `${key} rev ${i}`).toMatchObject({ code: 0, stdout: `Updated task #1 ${key}\n`, stderr: '' });
        ours.add();
      }
    });
    go.resolve();
    const [{ stream }] = await Promise.all([agent, Promise.all(procs).finally(ours.release)]);

    const said = callsOf(stream, 'TaskUpdate').map((c) => c.text);
    expect(said).toEqual(agentKeys.map((_, t) => (t === 0 ? 'Updated task #1 metadata, status' : 'Updated task #1 metadata')));
    const task = cli.files().get('1');
    expect(Object.keys(task?.metadata ?? {}).sort(), 'agent writes that survived').toEqual(agentKeys);
    expect(task).toMatchObject({
      status: 'in_progress',
      subject: `subject rev ${PER_PROC}`,
      activeForm: `activeForm rev ${PER_PROC}`,
      owner: `owner rev ${PER_PROC}`,
    });
    expect(task?.description === LONG_DESCRIPTION, 'the long description is intact').toBe(true);
    expect(cli.leftoverLocks()).toEqual([]);
    fs.rmSync(config, { recursive: true, force: true }); // kept only when a round fails, to look at
  });
});
