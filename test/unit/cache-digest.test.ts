import { describe, expect, it } from 'vitest';
import { Digest, digestOf, PartsText } from '../../src/core/cache/digest.js';

const of = (...parts: Array<string | number | undefined>) => new Digest().add(...parts).hex();

describe('the digest a kept answer is checked by', () => {
  it('is the same for the same parts, and 32 hex digits', () => {
    expect(of('a', 1, undefined, 'b')).toBe(of('a', 1, undefined, 'b'));
    expect(of('a', 1, undefined, 'b')).toMatch(/^[0-9a-f]{32}$/);
    expect(new Digest().add('a').add(1).hex()).toBe(of('a', 1));
  });

  it('tells parts apart however they run together, and each kind from the others', () => {
    const digests = [
      of('ab', 'c'),
      of('a', 'bc'),
      of('abc'),
      of('1'),
      of(1),
      of(''),
      of(undefined),
      of(),
      of('', ''),
      of(12),
      of(1, 2),
      of('\u0000'),
      of('x'.repeat(70_000)),
      of('x'.repeat(70_001)),
    ];
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('changes with any one unit of a long text', () => {
    const text = 'session-line '.repeat(10_000);
    const seen = new Set([of(text)]);
    for (const at of [0, 1, 5_000, text.length - 1]) seen.add(of(`${text.slice(0, at)}#${text.slice(at + 1)}`));
    expect(seen.size).toBe(5);
  });

  it('of a JSON value: its text', () => {
    expect(digestOf({ a: [1, 'x'] })).toBe(of(JSON.stringify({ a: [1, 'x'] })));
    expect(digestOf([1])).not.toBe(digestOf(['1']));
  });
});

describe('the parts joined as one text, for inputs compared whole', () => {
  const text = (...parts: Array<string | number | undefined>) => new PartsText().add(...parts).text();

  it('is the same for the same parts, added at once or one by one', () => {
    expect(text('a', 1, undefined, 'b')).toBe(text('a', 1, undefined, 'b'));
    expect(new PartsText().add('a').add(1).add(undefined).text()).toBe(text('a', 1, undefined));
  });

  it('tells parts apart however they run together, and each kind from the others', () => {
    const texts = [
      text('ab', 'c'),
      text('a', 'bc'),
      text('abc'),
      text('1'),
      text(1),
      text(''),
      text(undefined),
      text(),
      text('', ''),
      text(12),
      text(1, 2),
      text('1:a'),
      text('s1:a'),
      text('a', 's1:b'),
      text('a:s1', 'b'),
      text('u'),
      text(undefined, undefined),
      text('uu'),
    ];
    expect(new Set(texts).size).toBe(texts.length);
  });
});
