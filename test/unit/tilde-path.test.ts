import { describe, expect, it } from 'vitest';
import { tildePath } from '../../src/core/base/tilde-path.js';

describe('tildePath', () => {
  it('a folder under the home folder as ~/..., whether HOME ends in a slash or not', () => {
    expect(tildePath('/home/me/proj', '/home/me')).toBe('~/proj');
    expect(tildePath('/home/me/proj', '/home/me/')).toBe('~/proj');
    expect(tildePath('/home/me', '/home/me//')).toBe('~');
  });

  it('a folder whose name only starts with the home folder, or a home of / or nothing: as it is', () => {
    expect(tildePath('/home/mex/proj', '/home/me')).toBe('/home/mex/proj');
    expect(tildePath('/home/mex/proj', '/home/me/')).toBe('/home/mex/proj');
    expect(tildePath('/srv/proj', '/')).toBe('/srv/proj');
    expect(tildePath('/srv/proj', '//')).toBe('/srv/proj');
    expect(tildePath('/srv/proj', '')).toBe('/srv/proj');
  });
});
