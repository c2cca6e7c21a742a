import { describe, expect, it } from 'vitest';
import { compareIds, nextTaskId, parseHighWaterMark, parseTaskId } from '../../src/core/store/ids.js';
import { sanitizeListId, resolveConfigDir } from '../../src/core/store/paths.js';

describe('ids', () => {
  it('takes the max of file ids and the high-water mark, plus one', () => {
    expect(nextTaskId(['1', '2', '4', '5'], 3)).toBe('6');
    expect(nextTaskId(['1', '2'], 7)).toBe('8');
    expect(nextTaskId([], 0)).toBe('1');
    expect(nextTaskId(['9', '10'], 0)).toBe('11');
  });
  it('sorts numerically', () => {
    expect(['10', '9', '1', '100'].sort(compareIds)).toEqual(['1', '9', '10', '100']);
  });
  it('parses ids strictly', () => {
    expect(parseTaskId('4')).toBe('4');
    expect(parseTaskId('#4')).toBe('4');
    for (const bad of ['0', '-1', '1.5', 'abc', '', '../1', '01', '1e3']) expect(() => parseTaskId(bad)).toThrow(/invalid task id/);
  });
  it('reads the high-water mark leniently', () => {
    expect(parseHighWaterMark('3')).toBe(3);
    expect(parseHighWaterMark('12\n')).toBe(12);
    expect(parseHighWaterMark('junk')).toBe(0);
  });
});

describe('paths', () => {
  it('sanitizes list ids as Claude Code does', () => {
    expect(sanitizeListId('my.team/x')).toBe('my-team-x');
    expect(sanitizeListId('../etc')).toBe('---etc');
    expect(sanitizeListId('ok_id-1')).toBe('ok_id-1');
  });
  it('resolves the config folder: flag, then env (even empty), then ~/.claude', () => {
    expect(resolveConfigDir({ flag: '/a', env: '/b', home: '/h' })).toBe('/a');
    expect(resolveConfigDir({ env: '/b', home: '/h' })).toBe('/b');
    expect(resolveConfigDir({ home: '/h' })).toBe('/h/.claude');
  });
});
