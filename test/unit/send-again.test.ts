import { describe, expect, it } from 'vitest';
import { SendAgain } from '../../src/core/notify/send-again.js';

describe('SendAgain: when a following notify tries a given-up send again', () => {
  it('waits the first wait, then doubles it each time it fails again, at most 15 minutes', () => {
    const again = new SendAgain(60_000);
    const waits: number[] = [];
    let now = 0;
    for (let i = 0; i < 7; i++) {
      const wait = again.later('k', now);
      waits.push(wait);
      expect(again.due(now + wait - 1)).toBe(false);
      now += wait;
      expect(again.due(now)).toBe(true);
      expect([...again.dueKeys(new Set(['k']), now)]).toEqual(['k']);
      // Not claimed (the state busy): still due at the next look.
      expect(again.due(now)).toBe(true);
      again.tried(['k']);
      expect(again.due(now)).toBe(false);
    }
    expect(waits.map((w) => w / 60_000)).toEqual([1, 2, 4, 8, 15, 15, 15]);
  });

  it('several targets failing one event share its wait; an event no longer active is forgotten, not tried', () => {
    const again = new SendAgain(1000);
    expect(again.later('k', 0)).toBe(1000);
    expect(again.later('k', 300)).toBe(700);
    expect(again.dueKeys(new Set(), 1000)).toEqual(new Set());
    expect(again.due(5000)).toBe(false);
    // Back as news later: a first wait again.
    expect(again.later('k', 6000)).toBe(1000);
  });
});
