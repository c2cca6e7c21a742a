import { describe, expect, it } from 'vitest';
import { asProcessRun, boundToScope, currentScope, inScope, RunScope, scopePart, scopeSlot } from '../../src/core/scope/run-scope.js';

const NAME = scopeSlot('a name', () => ({ name: '' }));
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('run scopes', () => {
  it('keeps overlapping runs apart, across awaits and timers', async () => {
    const seen: string[] = [];
    const runOne = (name: string) => {
      const scope = new RunScope();
      scope.part(NAME).name = name;
      return inScope(scope, async () => {
        await tick();
        seen.push(`${name}:${scopePart(NAME)?.name}`);
        await new Promise<void>((r) =>
          setTimeout(() => {
            seen.push(`${name}:${scopePart(NAME)?.name}`);
            r();
          }, 1),
        );
      });
    };
    await Promise.all([runOne('a'), runOne('b')]);
    expect(seen.sort()).toEqual(['a:a', 'a:a', 'b:b', 'b:b']);
  });

  it("makes the process's run the scope of code outside any other, and refuses a second", async () => {
    const proc = new RunScope();
    proc.part(NAME).name = 'process';
    const inner = new RunScope();
    inner.part(NAME).name = 'inner';
    await asProcessRun(proc, async () => {
      await tick();
      expect(currentScope()).toBe(proc);
      // A run in a scope of its own still finds its own, and a listener bound there keeps it.
      const bound = await inScope(inner, async () => {
        await tick();
        expect(scopePart(NAME)?.name).toBe('inner');
        return boundToScope(() => scopePart(NAME)?.name);
      });
      expect(bound()).toBe('inner');
      expect(scopePart(NAME)?.name).toBe('process');
    });
    expect(() => asProcessRun(new RunScope(), () => 0)).toThrow(/one process run/);
  });
});
