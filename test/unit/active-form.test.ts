import { describe, expect, it } from 'vitest';
import { deriveActiveForm, gerund } from '../../src/core/store/active-form.js';

describe('deriveActiveForm', () => {
  it.each([
    ['Fix auth bug', 'Fixing auth bug'],
    ['Write changelog', 'Writing changelog'],
    ['Run tests', 'Running tests'],
    ['Analyse code', 'Analysing code'],
    ['Refactor auth', 'Refactoring auth'],
    ['Set up CI', 'Setting up CI'],
    ['Setup CI', 'Setting up CI'],
    ['Commit the fix', 'Committing the fix'],
    ['Format sources', 'Formatting sources'],
    ['Edit README', 'Editing README'],
    ['Audit deps', 'Auditing deps'],
    ['Clean up', 'Cleaning up'],
    ['Try again', 'Trying again'],
    ['Apply patch', 'Applying patch'],
    ['Sync forks', 'Syncing forks'],
    ['Split api.py', 'Splitting api.py'],
    ['Use pnpm', 'Using pnpm'],
    ['Bump version', 'Bumping version'],
    ['update deps', 'updating deps'],
    ['Bring docs up to date', 'Bringing docs up to date'],
  ])('%s -> %s', (subject, expected) => {
    expect(deriveActiveForm(subject)).toBe(expected);
  });

  it('keeps a subject that already starts with an -ing word', () => {
    expect(deriveActiveForm('Testing the parser')).toBe('Testing the parser');
  });

  it('does not guess at words it does not know', () => {
    expect(deriveActiveForm('Auth bug')).toBe('Working on Auth bug');
    expect(deriveActiveForm('README: typos')).toBe('Working on README: typos');
    expect(deriveActiveForm('#12 flaky test')).toBe('Working on #12 flaky test');
    expect(deriveActiveForm('Ring buffer')).toBe('Working on Ring buffer');
  });

  it('spells the -ing forms by the usual rules', () => {
    expect(['tie', 'see', 'make', 'stop', 'fix', 'play', 'open', 'commit', 'panic'].map(gerund)).toEqual([
      'tying',
      'seeing',
      'making',
      'stopping',
      'fixing',
      'playing',
      'opening',
      'committing',
      'panicking',
    ]);
  });
});
