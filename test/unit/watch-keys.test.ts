import { describe, expect, it } from 'vitest';
import { keyActions } from '../../src/cli/watch/watch-keys.js';

const up = { type: 'scroll', by: 'line', direction: -1 };
const pageUp = { type: 'scroll', by: 'page', direction: -1 };

describe('keys of the live view', () => {
  it('reads one escape sequence, and Esc alone', () => {
    expect(keyActions('\u001b[A', false)).toEqual([up]);
    expect(keyActions('\u001b[5~', false)).toEqual([pageUp]);
    expect(keyActions('\u001b', true)).toEqual([{ type: 'filter-clear' }]);
  });

  it('reads several sequences that arrive in one chunk (keys pressed before the last was read)', () => {
    expect(keyActions('\u001b[A\u001b[5~', false)).toEqual([up, pageUp]);
    expect(keyActions('\u001b[B\u001b[B\u001bOB', false)).toEqual(Array(3).fill({ type: 'scroll', by: 'line', direction: 1 }));
    expect(keyActions('\u001b\u001b[H', false)).toEqual([{ type: 'filter-clear' }, { type: 'scroll-to', where: 'top' }]);
  });

  it('ignores a chunk holding a sequence it does not use, whatever follows', () => {
    expect(keyActions('\u001b[15~', false)).toEqual([]); // F5
    expect(keyActions('\u001b[A\u001b[15~', false)).toEqual([]);
    expect(keyActions('\u001b[M q', false)).toEqual([]); // a mouse report, whose bytes are not keys
  });

  it('reads plain keys one by one, and letters as text while a filter is typed', () => {
    expect(keyActions('jjq', false)).toEqual([
      { type: 'scroll', by: 'line', direction: 1 },
      { type: 'scroll', by: 'line', direction: 1 },
      { type: 'quit' },
    ]);
    expect(keyActions('abc\r', true)).toEqual([{ type: 'filter-text', text: 'abc' }, { type: 'filter-done' }]);
  });
});
