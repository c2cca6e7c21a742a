import { describe, expect, it } from 'vitest';
import type { ListChoice } from '../../src/core/lists/list-choice.js';
import { renderChoiceNote } from '../../src/render/list-choice-note.js';

const opts = { home: '/home/me', now: Date.parse('2026-12-01T12:00:00Z'), width: 500, short: (id: string) => id.slice(0, 8) };

function projectChoice(extra: Partial<ListChoice>): ListChoice {
  return {
    id: 'aaaaaaaa-1111-4a4a-8b8b-000000000001',
    dir: '/c/tasks/aaaaaaaa-1111-4a4a-8b8b-000000000001',
    how: 'project',
    exists: true,
    session: { sessionId: 'aaaaaaaa-1111-4a4a-8b8b-000000000001', state: 'live', cwd: '/home/me/app', prompt: 'write the docs' },
    projectDir: '/home/me/app',
    warnings: [],
    ...extra,
  } as ListChoice;
}

describe('the note of a list chosen by the project, beside other live sessions', () => {
  it('one live session: the other lists are counted, nothing more', () => {
    const note = renderChoiceNote(
      projectChoice({ candidates: ['aaaaaaaa-1111-4a4a-8b8b-000000000001', 'bbbbbbbb-2222-4a4a-8b8b-000000000002'] }),
      opts,
    );
    expect(note).toBe('using list aaaaaaaa (live session "write the docs", ~/app); 1 other list of sessions in ~/app: tasks lists');
  });

  it('several: why this one, and the others named with their prompts (two at most, then a count)', () => {
    const others = [
      { list: 'bbbbbbbb-2222-4a4a-8b8b-000000000002', prompt: 'fix the login' },
      { list: 'cccccccc-3333-4a4a-8b8b-000000000003', prompt: undefined },
      { list: 'dddddddd-4444-4a4a-8b8b-000000000004', prompt: 'more' },
    ];
    const note = renderChoiceNote(
      projectChoice({ liveOthers: others, candidates: ['aaaaaaaa-1111-4a4a-8b8b-000000000001', ...others.map((o) => o.list), 'eeeeeeee'] }),
      opts,
    );
    expect(note).toBe(
      'using list aaaaaaaa (live session "write the docs", ~/app), picked as the most recently active; also live in ~/app: bbbbbbbb ("fix the login"), cccccccc and 1 more; tasks lists shows all 5',
    );
  });

  it('a fresh list: its "no tasks yet" does not hide the others', () => {
    const note = renderChoiceNote(
      projectChoice({
        exists: false,
        fresh: true,
        liveOthers: [{ list: 'bbbbbbbb-2222-4a4a-8b8b-000000000002', prompt: 'fix the login' }],
      }),
      opts,
    );
    expect(note).toBe(
      'using list aaaaaaaa (live session "write the docs", ~/app): no tasks yet; picked as the most recently active; also live in ~/app: bbbbbbbb ("fix the login")',
    );
  });
});

describe('on a narrow terminal', () => {
  it('the other live lists keep their ids; their prompts go first', () => {
    const choice = projectChoice({
      liveOthers: [{ list: 'bbbbbbbb-2222-4a4a-8b8b-000000000002', prompt: 'fix the login bug in the session check' }],
      candidates: ['aaaaaaaa-1111-4a4a-8b8b-000000000001', 'bbbbbbbb-2222-4a4a-8b8b-000000000002'],
    });
    const note = renderChoiceNote(choice, { ...opts, width: 125, fit: true }) as string;
    expect(note).toBe(
      'using list aaaaaaaa (live session "write the docs", ~/app), picked as the most recently active; also live in ~/app: bbbbbbbb',
    );
  });
});
