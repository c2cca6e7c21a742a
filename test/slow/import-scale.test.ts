import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, tempConfig } from '../helpers/cli.js';

/**
 * Planning an import is n log n: 100,000 todos (all ready at once, the case that re-sorted
 * the ready set on every step) and a 20,000-task chain listed backwards (each cycle check
 * walked the whole chain so far) are planned. No time is asserted: before, these runs
 * did not finish within the minute they are given here (100,000 todos never did).
 */

function dryRun(config: string, input: string, extra: string[] = []) {
  return run(config, ['-l', 'l', 'import', input, '--dry-run', '--json', ...extra], { timeoutMs: 60_000 });
}

describe('import planning at scale', () => {
  it('plans 100,000 todos, ids in source order', () => {
    const config = tempConfig();
    const input = path.join(config, 'todos.json');
    const n = 100_000;
    fs.writeFileSync(
      input,
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ content: `Step ${i + 1}`, status: 'pending', activeForm: `Doing ${i + 1}` }))),
    );
    const r = dryRun(config, input);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { created: Array<{ id: string; subject: string }> };
    expect(plan.created).toHaveLength(n);
    expect(plan.created[0]).toMatchObject({ id: '1', subject: 'Step 1' });
    expect(plan.created[n - 1]).toMatchObject({ id: String(n), subject: `Step ${n}` });
  }, 90_000);

  it('plans a 20,000-task chain given backwards, blockers first', () => {
    const config = tempConfig();
    const input = path.join(config, 'tasks.json');
    const n = 20_000;
    // Task k is blocked by task k+1: the last listed must be created first.
    const tasks = Array.from({ length: n }, (_, i) => ({
      id: String(i + 1),
      subject: `T${i + 1}`,
      description: '',
      status: 'pending',
      blocks: i > 0 ? [String(i)] : [],
      blockedBy: i + 1 < n ? [String(i + 2)] : [],
    }));
    fs.writeFileSync(input, JSON.stringify(tasks));
    const r = dryRun(config, input);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { created: Array<{ id: string; subject: string; blockedBy: string[] }> };
    // Created blockers first; each under its own id (the list is empty: every id is free).
    expect(plan.created[0]).toMatchObject({ id: String(n), subject: `T${n}`, blockedBy: [] });
    expect(plan.created[n - 1]).toMatchObject({ id: '1', subject: 'T1', blockedBy: ['2'] });
  }, 90_000);

  it('still refuses a cycle, naming the edge that closes it', () => {
    const config = tempConfig();
    const input = path.join(config, 'tasks.json');
    const t = (id: string, blockedBy: string[]) => ({ id, subject: `T${id}`, description: '', status: 'pending', blocks: [], blockedBy });
    fs.writeFileSync(input, JSON.stringify([t('1', ['3']), t('2', ['1']), t('3', ['2']), t('4', [])]));
    const r = run(config, ['-l', 'l', 'import', input, '--dry-run']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('error: the import would make a dependency cycle: "T2" -> "T3" -> "T1" -> "T2"\n');
  });
});
