import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { endWhenIdle } from '../../src/cli/runtime/end-when-idle.js';

/** A process as endWhenIdle sees it: its events, and its exits counted. */
function fakeProcess() {
  const events = new EventEmitter();
  const proc = {
    exits: 0,
    once: (event: 'beforeExit', listener: () => void) => events.once(event, listener),
    on: (event: 'beforeExit', listener: () => void) => events.on(event, listener),
    listenerCount: (event: 'beforeExit') => events.listenerCount(event),
    exit: () => {
      proc.exits++;
      return undefined;
    },
    emit: () => events.emit('beforeExit'),
  };
  return proc;
}

describe('endWhenIdle', () => {
  it('ends the process once its event loop is empty, and not before', () => {
    const proc = fakeProcess();
    endWhenIdle(proc);
    expect(proc.exits).toBe(0);
    proc.emit();
    expect(proc.exits).toBe(1);
  });

  it("leaves the end to Node when another listener of 'beforeExit' may start more work", () => {
    const proc = fakeProcess();
    let more = 0;
    proc.on('beforeExit', () => more++);
    endWhenIdle(proc);
    proc.emit();
    expect(more).toBe(1);
    expect(proc.exits).toBe(0);
  });
});
