import { describe, expect, it } from 'vitest';
import { lineSplitter } from '../../src/core/base/line-splitter.js';

describe('lineSplitter', () => {
  it('hands on each whole line as soon as its newline arrives, across chunks, and keeps the rest', () => {
    const seen: string[] = [];
    const lines = lineSplitter((l) => seen.push(l));
    lines.push('{"a":');
    expect(seen).toEqual([]);
    lines.push('1}\n{"b":2}\n\n{"c"');
    expect(seen).toEqual(['{"a":1}', '{"b":2}', '']);
    expect(lines.rest()).toBe('{"c"');
    expect(lines.rest()).toBe('');
    lines.push(':3}\n');
    expect(seen.at(-1)).toBe(':3}');
  });
});
