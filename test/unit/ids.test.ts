import { describe, expect, it } from 'vitest';
import { allocateIds, assignIds, compareIds, idNotFree, nextTaskId, parseHighWaterMark, parseTaskId } from '../../src/core/store/ids.js';
import { resolveConfigDir, sanitizeListId } from '../../src/core/store/paths.js';

describe('ids', () => {
  it('takes the max of file ids and the high-water mark, plus one', () => {
    expect(nextTaskId(['1', '2', '4', '5'], 3n)).toBe('6');
    expect(nextTaskId(['1', '2'], 7n)).toBe('8');
    expect(nextTaskId([], 0n)).toBe('1');
    expect(nextTaskId(['9', '10'], 0n)).toBe('11');
  });
  it('counts exactly past 2^53, where Number rounds', () => {
    expect(nextTaskId(['9007199254740992'], 0n)).toBe('9007199254740993');
    expect(nextTaskId([], 9999999999999999n)).toBe('10000000000000000');
    expect(['10000000000000001', '9999999999999999', '10000000000000000'].sort(compareIds)).toEqual([
      '9999999999999999',
      '10000000000000000',
      '10000000000000001',
    ]);
  });
  it('allocates up to Number.MAX_SAFE_INTEGER and refuses past it', () => {
    expect(allocateIds('l', [], 9007199254740989n, 2)).toEqual(['9007199254740990', '9007199254740991']);
    expect(() => allocateIds('l', [], 9007199254740990n, 2)).toThrow(/has ids left only up to 9007199254740991/);
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
    expect(parseHighWaterMark('3')).toBe(3n);
    expect(parseHighWaterMark('12\n')).toBe(12n);
    expect(parseHighWaterMark('12abc')).toBe(12n);
    expect(parseHighWaterMark('junk')).toBe(0n);
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

describe('assignIds: keeping the ids tasks come with', () => {
  it('keeps a free id, moves a taken or used one above every id in use, kept or reserved', () => {
    expect(assignIds('l', ['2'], 3n, ['1', '2', '3', '5'])).toEqual(['6', '7', '8', '5']);
    expect(assignIds('l', [], 0n, ['4', '4'])).toEqual(['4', '5']);
    expect(assignIds('l', [], 0n, ['1', undefined], { reservedAbove: 9n })).toEqual(['1', '10']);
    expect(assignIds('l', [], 0n, ['9007199254740992'])).toEqual(['1']);
  });

  it('says why an id is not free', () => {
    expect(idNotFree('3', new Set(['3']), 0n)).toBe('taken');
    expect(idNotFree('3', new Set(), 3n)).toBe('used before (the high-water mark is 3)');
    expect(idNotFree('x', new Set(), 0n)).toBe('not a task id');
    expect(idNotFree('4', new Set(['3']), 3n)).toBeUndefined();
  });

  it('refuses, as allocateIds does, when a new id would pass the limit', () => {
    expect(() => assignIds('l', ['9007199254740991'], 0n, ['9007199254740991'])).toThrow(/has used every id up to 9007199254740991/);
  });
});
